"""Referee mode's settings: styles, ballots, the ``[referee]`` section and command-line options.

>>> settings = RefereeSettings(style="record", ballot=5)
>>> settings.balloted, RefereeConfig(ballot="deck", clock="300+5").settings().deck
(True, True)
"""

from __future__ import annotations

import argparse
import random
from dataclasses import dataclass

from crownhead.firmware.files import int_argument
from crownhead.firmware.gameclock import ClockSpecError, TimeControl
from crownhead.firmware.config import FieldError, config_section
from crownhead.rules import Position, Rules
from crownhead.rules.ballots import Ballot, ballot as acf_ballot, deck

__all__ = [
    "STYLES",
    "RefereeSettings",
    "RefereeConfig",
    "BallotBox",
    "parse_ballot",
    "add_referee_arguments",
    "referee_from_args",
]

#: ``strict``: the board stops every illegal move; ``record``: it records, a person rules.
STYLES = ("strict", "record")


def parse_ballot(text: str | int | None) -> tuple[int | None, bool]:
    """``(number, deck)`` from a ballot option: an ACF number, ``deck``, or ``""``/``none``.

    >>> parse_ballot("5"), parse_ballot("deck"), parse_ballot("")
    ((5, False), (None, True), (None, False))
    """
    if text is None:
        return None, False
    if isinstance(text, int) and not isinstance(text, bool):
        word = str(text)
    else:
        word = str(text).strip().lower()
    if word in ("", "none", "off"):
        return None, False
    if word == "deck":
        return None, True
    if not (word.isascii() and word.isdigit() and len(word) <= 4):
        raise ValueError(f"ballot {text!r}: give an ACF ballot number (1-174) or deck")
    number = int(word)
    chosen = acf_ballot(number)  # ValueError names a number off the list
    if not chosen.in_deck:
        raise ValueError(f"ballot {number} is barred (lost for one side): it is never played")
    return number, False


@dataclass(frozen=True)
class RefereeSettings:
    """How the referee rules and records.

    ``ballot`` plays that ACF ballot in every pair of games; ``deck`` draws each pair's
    ballot from the shuffled 156-card deck (``seed`` makes the draw repeatable).
    ``black``/``white`` are the players of the first game; they swap colours every game.
    ``record_dir`` holds the live PDN, each game's PDN and the arbiter log (None: no files).
    """

    style: str = "strict"
    clock: TimeControl | None = None
    ballot: int | None = None
    deck: bool = False
    seed: int | None = None
    event: str = "?"
    site: str = "?"
    round: str = "?"
    black: str = "?"
    white: str = "?"
    record_dir: str | None = None

    def __post_init__(self) -> None:
        if self.style not in STYLES:
            raise ValueError(f"referee style must be strict or record, got {self.style!r}")
        if self.ballot is not None:
            parse_ballot(self.ballot)
            if self.deck:
                raise ValueError("give a ballot number or the deck, not both")

    @property
    def balloted(self) -> bool:
        return self.ballot is not None or self.deck


@config_section("referee")
@dataclass(frozen=True)
class RefereeConfig:
    """Referee mode (``crownhead run --mode referee``; the command's options override these)."""

    style: str = "strict"
    clock: str = ""
    ballot: str | int = ""
    seed: int | None = None
    event: str = ""
    site: str = ""
    round: str = ""
    black_name: str = ""
    white_name: str = ""
    record_dir: str = ""

    def validate(self) -> None:
        if self.style not in STYLES:
            raise FieldError("style", f'must be "strict" or "record", got "{self.style}"')
        if self.clock:
            try:
                TimeControl.parse(self.clock)
            except ClockSpecError as exc:
                raise FieldError("clock", str(exc)) from None
        try:
            parse_ballot(self.ballot)
        except ValueError as exc:
            raise FieldError("ballot", str(exc)) from None

    def settings(self) -> RefereeSettings:
        number, from_deck = parse_ballot(self.ballot)
        return RefereeSettings(
            style=self.style,
            clock=TimeControl.parse(self.clock) if self.clock else None,
            ballot=number,
            deck=from_deck,
            seed=self.seed,
            event=self.event or "?",
            site=self.site or "?",
            round=self.round or "?",
            black=self.black_name or "?",
            white=self.white_name or "?",
            record_dir=self.record_dir or None,
        )


_OPTIONS = ("referee_style", "clock", "ballot", "ballot_seed", "event", "site", "round", "record_dir")


def add_referee_arguments(parser: argparse.ArgumentParser, *, names: bool = True) -> None:
    """The referee's command-line options (``crownhead replay`` and ``crownhead run``)."""
    group = parser.add_argument_group("referee mode (with --mode referee)")
    group.add_argument(
        "--referee-style",
        choices=STYLES,
        help="strict: the board stops every illegal move (default); record: it only records, "
        "an illegal move the opponent answers without objection stands",
    )
    group.add_argument(
        "--clock",
        metavar="SPEC",
        help="time control: 300+5 (5 min, 5 s a move), 600, 40/5400:1800 (40 moves in 90 min, "
        "then 30 min), 30/3600 (repeating); see docs/referee.md. crownhead run keeps a clock in "
        "every mode; the game's time starts with the side to move's first lift",
    )
    group.add_argument(
        "--ballot",
        metavar="N|deck",
        help="play ACF 3-move ballot N in every pair of games, or draw each pair's from the 156-card deck",
    )
    group.add_argument("--ballot-seed", type=int_argument, metavar="N", help="seed for drawing ballots from the deck")
    group.add_argument("--event", help="the PDN Event tag")
    group.add_argument("--site", help="the PDN Site tag")
    group.add_argument("--round", help="the PDN Round tag (the games of a session are ROUND.1, ROUND.2, ...)")
    group.add_argument(
        "--record-dir",
        metavar="DIR",
        help="write live.pdn, each game's PDN and the arbiter log (arbiter.jsonl) here",
    )
    if names:
        group.add_argument("--black", metavar="NAME", help="Black's name in the first game")
        group.add_argument("--white", metavar="NAME", help="White's name in the first game")


def referee_from_args(
    args: argparse.Namespace,
    mode: str,
    position: Position,
    rules: Rules,
    base: RefereeConfig | None = None,
    *,
    any_clock: bool = False,
) -> RefereeSettings | None:
    """The referee's settings from the options over ``base`` (the ``[referee]`` section).

    None unless ``mode`` is ``referee`` (``any_clock``: ``--clock`` is allowed in every
    mode, for a caller that keeps the clock itself); ``ValueError`` with a one-line message for an
    option that does not fit (a referee option in another mode, a bad clock spec, a
    barred ballot, a ballot from a position other than the start).
    """
    given = [name for name in _OPTIONS if getattr(args, name, None) is not None]
    if any_clock:
        given = [name for name in given if name != "clock"]  # the board keeps it (firmware.app.timing)
    if mode != "referee":
        if given:
            raise ValueError(f"--{given[0].replace('_', '-')} needs --mode referee")
        return None
    base = base or RefereeConfig()
    style = args.referee_style or base.style
    spec = args.clock if args.clock is not None else base.clock
    try:
        control = TimeControl.parse(spec) if spec else None
    except ClockSpecError as exc:
        raise ValueError(f"--clock: {exc}") from None
    try:
        number, from_deck = parse_ballot(args.ballot if args.ballot is not None else base.ballot)
    except ValueError as exc:
        raise ValueError(f"--ballot: {exc}") from None
    if (number is not None or from_deck) and position != Position.start(rules):
        raise ValueError("--ballot: a ballot is played from the start position (leave out --fen)")
    seed = args.ballot_seed if getattr(args, "ballot_seed", None) is not None else base.seed
    black = getattr(args, "black", None) or base.black_name or "?"
    white = getattr(args, "white", None) or base.white_name or "?"
    return RefereeSettings(
        style=style,
        clock=control,
        ballot=number,
        deck=from_deck,
        seed=seed,
        event=args.event or base.event or "?",
        site=args.site or base.site or "?",
        round=args.round or base.round or "?",
        black=black,
        white=white,
        record_dir=args.record_dir or base.record_dir or None,
    )


class BallotBox:
    """The ballot of each pair of games: always ``number``, or the next card of the deck.

    The 156 cards are shuffled with ``random.Random(seed)`` and dealt without
    replacement, as a tournament director draws them; an empty deck is shuffled again.

    >>> a, b = BallotBox(deck=True, seed=7), BallotBox(deck=True, seed=7)
    >>> [a.draw().number for _ in range(3)] == [b.draw().number for _ in range(3)]
    True
    """

    def __init__(self, number: int | None = None, deck: bool = False, seed: int | None = None) -> None:
        self.number = number
        self.from_deck = deck
        self._rng = random.Random(seed)
        self._cards: list[Ballot] = []
        self.drawn: list[Ballot] = []

    @property
    def active(self) -> bool:
        return self.number is not None or self.from_deck

    def draw(self) -> Ballot | None:
        if self.number is not None:
            chosen: Ballot | None = acf_ballot(self.number)
        elif self.from_deck:
            if not self._cards:
                self._cards = list(deck())
                self._rng.shuffle(self._cards)
            chosen = self._cards.pop()
        else:
            chosen = None
        if chosen is not None:
            self.drawn.append(chosen)
        return chosen
