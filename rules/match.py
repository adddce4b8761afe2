"""Matches: two players, game after game, colours swapped every game, and the score.

A match is two named players and a number of games (or open-ended). The first game's
colours are chosen; the colours swap after every game (seed 000, the 1923 Standard Laws,
WCDF). With ballots, each ballot is played by a pair of games with the colours reversed
(WCDF), so the match keeps the ballot of each pair.

The score follows seed 000's score sheet by default: a win is a mark for the winner, a
drawn game gives neither player a mark, and whoever has more wins takes the match. With
``count_draws`` it counts as the 1923 Standard Laws ask: wins, draws and losses, and
points with a draw worth a half. Seed 000's worked example:

Ana wins game 1 with Black, Ben wins game 2 (with Black), game 3 is drawn, Ana wins
game 4 (with White). Results are PDN scores: ``1-0`` means the player who had Black won.

>>> match = Match.new("Ana", "Ben", games=4)
>>> for score in ("1-0", "1-0", "1/2-1/2", "0-1"):
...     match = match.with_result(score)
>>> [(g.number, g.black, g.white, g.winner) for g in match.played]
[(1, 'Ana', 'Ben', 'Ana'), (2, 'Ben', 'Ana', 'Ben'), (3, 'Ana', 'Ben', None), (4, 'Ben', 'Ana', 'Ana')]
>>> match.score_text(), match.over, match.winner
('Ana 2, Ben 1', True, 'Ana')
>>> match.verdict()
'Ana takes the match, 2 games to 1'
>>> counted = match.counting_draws()
>>> counted.score_text(), counted.verdict()
('Ana 2½, Ben 1½', 'Ana takes the match, 2½ points to 1½')
>>> counted.standing("Ben").wdl
'1-1-2'

Unfinished games (``*``) are kept for the record but neither scored nor counted among
the games played, and the game after one is played with the same colours (it replays
that game).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from crownhead.rules.game import BLACK_WINS, DRAW, UNFINISHED, WHITE_WINS

__all__ = [
    "MAX_GAMES",
    "MatchGame",
    "Standing",
    "Match",
    "points_text",
    "match_from_games",
]

#: The longest match a board keeps (a bound on what a saved match file may hold).
MAX_GAMES = 1000
_RESULTS = (BLACK_WINS, WHITE_WINS, DRAW, UNFINISHED)
#: Longest player name kept, in characters (the host link's limit for names too).
MAX_NAME = 40


def points_text(halves: int) -> str:
    """Half-points as a person writes them.

    >>> points_text(5), points_text(4), points_text(1), points_text(0)
    ('2½', '2', '½', '0')
    """
    whole, half = divmod(halves, 2)
    if not half:
        return str(whole)
    return f"{whole}½" if whole else "½"


@dataclass(frozen=True)
class MatchGame:
    """One game of a match: its number, who had which colour, and the PDN result.

    ``id`` names the game where it is kept (the board's game id, or a file and game
    number); ``ballot`` is the ACF ballot it opened with, if any.

    >>> MatchGame(2, "Ben", "Ana", "0-1").winner
    'Ana'
    """

    number: int
    black: str
    white: str
    result: str = UNFINISHED
    id: str = ""
    ballot: int | None = None

    @property
    def finished(self) -> bool:
        return self.result in (BLACK_WINS, WHITE_WINS, DRAW)

    @property
    def drawn(self) -> bool:
        return self.result == DRAW

    @property
    def winner(self) -> str | None:
        if self.result == BLACK_WINS:
            return self.black
        if self.result == WHITE_WINS:
            return self.white
        return None

    @property
    def loser(self) -> str | None:
        if self.result == BLACK_WINS:
            return self.white
        if self.result == WHITE_WINS:
            return self.black
        return None

    def colour_of(self, name: str) -> str | None:
        """``black`` or ``white``: the colour ``name`` had in this game (None: not a player)."""
        if name == self.black:
            return "black"
        if name == self.white:
            return "white"
        return None


@dataclass(frozen=True)
class Standing:
    """One player's record in a match: wins, draws, losses and half-points."""

    name: str
    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def halves(self) -> int:
        """Points counted in halves: a win is 2, a draw 1 (so that they stay whole numbers)."""
        return 2 * self.wins + self.draws

    @property
    def points(self) -> str:
        return points_text(self.halves)

    @property
    def wdl(self) -> str:
        """``W-D-L``, as a tournament cross-table writes it."""
        return f"{self.wins}-{self.draws}-{self.losses}"


@dataclass(frozen=True)
class Match:
    """A match between ``first`` (Black in game 1) and ``second`` (see the module docstring).

    ``games`` is the number of games agreed (None: open-ended, the match ends when the
    players say so); ``played`` lists the games so far in order; ``ballots`` the ACF
    ballot drawn for each pair of games, as ``(pair, ballot)`` (pair 1 is games 1 and
    2). A Match is a value: each ``with_...`` method returns the next one.
    """

    first: str
    second: str
    games: int | None = None
    count_draws: bool = False
    played: tuple[MatchGame, ...] = ()
    ballots: tuple[tuple[int, int], ...] = ()
    id: str = ""
    started: str = ""
    ended: bool = False

    def __post_init__(self) -> None:
        for role, name in (("first", self.first), ("second", self.second)):
            if not isinstance(name, str) or not name.strip():
                raise ValueError(f"match: the {role} player needs a name")
            if len(name) > MAX_NAME:
                raise ValueError(f"match: player name {name[:20]!r}... is longer than {MAX_NAME} characters")
        if self.first == self.second:
            raise ValueError(f"match: the two players need different names (both are {self.first!r})")
        if self.games is not None and not 1 <= self.games <= MAX_GAMES:
            raise ValueError(f"match: the number of games must be 1 to {MAX_GAMES}, got {self.games}")
        if len(self.played) > MAX_GAMES:
            raise ValueError(f"match: more than {MAX_GAMES} games")

    @classmethod
    def new(
        cls,
        black: str,
        white: str,
        *,
        games: int | None = None,
        count_draws: bool = False,
        id: str = "",
        started: str = "",
    ) -> Match:
        """A match whose first game ``black`` plays with Black against ``white``."""
        return cls(black.strip(), white.strip(), games, count_draws, id=id, started=started)

    # -- colours and ballots ---------------------------------------------------------------

    @property
    def counted(self) -> tuple[MatchGame, ...]:
        """The finished games (an unfinished one is not a game of the match)."""
        return tuple(g for g in self.played if g.finished)

    @property
    def number(self) -> int:
        """The number of the next game (1 for the first)."""
        return len(self.counted) + 1

    def colours(self, number: int | None = None) -> tuple[str, str]:
        """``(black, white)`` in game ``number`` (default: the next game): swapped every game.

        >>> Match.new("Ana", "Ben").colours(1), Match.new("Ana", "Ben").colours(2)
        (('Ana', 'Ben'), ('Ben', 'Ana'))
        """
        number = self.number if number is None else number
        if number < 1:
            raise ValueError(f"match: no game {number}")
        return (self.first, self.second) if number % 2 else (self.second, self.first)

    @staticmethod
    def pair(number: int) -> tuple[int, bool]:
        """``(pair, first)``: which pair of games game ``number`` belongs to (from 1), and
        whether it is the pair's first game, which draws the ballot the second repeats.

        >>> [Match.pair(n) for n in (1, 2, 3)]
        [(1, True), (1, False), (2, True)]
        """
        return (number + 1) // 2, number % 2 == 1

    def ballot(self, number: int | None = None) -> int | None:
        """The ballot drawn for game ``number``'s pair (default: the next game), if any."""
        pair, _ = self.pair(self.number if number is None else number)
        return dict(self.ballots).get(pair)

    def needs_ballot(self, number: int | None = None) -> bool:
        """Whether game ``number`` (default: the next) must draw a new ballot for its pair."""
        return self.ballot(number) is None

    def with_ballot(self, ballot: int, number: int | None = None) -> Match:
        """This match with ``ballot`` drawn for game ``number``'s pair (the next game's)."""
        pair, _ = self.pair(self.number if number is None else number)
        drawn = dict(self.ballots).get(pair)
        if drawn is not None:
            raise ValueError(f"match: pair {pair} already has ballot {drawn}")
        return replace(self, ballots=self.ballots + ((pair, ballot),))

    # -- results -----------------------------------------------------------------------------

    def with_result(
        self,
        result: str,
        *,
        id: str = "",
        black: str | None = None,
        white: str | None = None,
        ballot: int | None = None,
    ) -> Match:
        """This match with the next game played: ``result`` as PDN (``*``: unfinished).

        The colours are the next game's unless ``black`` and ``white`` say who really had
        them (they must be the two players). A finished match takes no more games.
        """
        if result not in _RESULTS:
            raise ValueError(f"match: result {result!r} is not one of {', '.join(_RESULTS)}")
        if self.over:
            raise ValueError(f"match: it is over ({self.verdict()})")
        if len(self.played) >= MAX_GAMES:
            raise ValueError(f"match: it already has {MAX_GAMES} games")
        expected = self.colours()
        colours = (black or expected[0], white or expected[1])
        if set(colours) != {self.first, self.second}:
            raise ValueError(f"match: {colours[0]} v {colours[1]} is not a game of {self.title}")
        game = MatchGame(self.number, colours[0], colours[1], result, id, ballot)
        return replace(self, played=self.played + (game,))

    def counting_draws(self, count: bool = True) -> Match:
        """This match scored the other way (``count``: wins, draws and losses, in points)."""
        return replace(self, count_draws=count)

    def finished_now(self) -> Match:
        """This match ended by the players (``crownhead match end``) before its games were played."""
        return replace(self, ended=True)

    # -- the score ---------------------------------------------------------------------------

    @property
    def title(self) -> str:
        return f"{self.first} v {self.second}"

    def standing(self, name: str) -> Standing:
        """``name``'s wins, draws and losses over the finished games."""
        if name not in (self.first, self.second):
            raise ValueError(f"match: {name!r} is not a player of {self.title}")
        wins = draws = losses = 0
        for game in self.counted:
            if game.drawn:
                draws += 1
            elif game.winner == name:
                wins += 1
            else:
                losses += 1
        return Standing(name, wins, draws, losses)

    @property
    def standings(self) -> tuple[Standing, Standing]:
        return self.standing(self.first), self.standing(self.second)

    def marks(self, standing: Standing) -> str:
        """The score as this match counts it: wins, or points when draws count."""
        return standing.points if self.count_draws else str(standing.wins)

    def _key(self, standing: Standing) -> int:
        return standing.halves if self.count_draws else standing.wins

    def score_text(self) -> str:
        """``Ana 2, Ben 1``: each player and their score, in the order they were named."""
        return ", ".join(f"{s.name} {self.marks(s)}" for s in self.standings)

    @property
    def over(self) -> bool:
        """All the agreed games are played, or the players ended the match."""
        return self.ended or (self.games is not None and len(self.counted) >= self.games)

    @property
    def leader(self) -> str | None:
        """Who is ahead now (None: level)."""
        a, b = self.standings
        if self._key(a) == self._key(b):
            return None
        return a.name if self._key(a) > self._key(b) else b.name

    @property
    def winner(self) -> str | None:
        """Who took the match, once it is over (None: not over, or level)."""
        return self.leader if self.over else None

    def verdict(self) -> str:
        """The match in one line: who takes it, who leads, or that it is level.

        >>> Match.new("Ana", "Ben", games=2).with_result("1-0").verdict()
        'Ana leads, 1 game to 0, after game 1 of 2'
        """
        a, b = self.standings
        unit = "point" if self.count_draws else "game"
        high, low = (a, b) if self._key(a) >= self._key(b) else (b, a)
        hi, lo = self.marks(high), self.marks(low)
        units = unit if hi == "1" else f"{unit}s"
        n = len(self.counted)
        if not n:
            return f"{self.title}: no game played yet" + (f" (of {self.games})" if self.games else "")
        if self.over:
            if self.leader is None:
                return f"The match is drawn, {hi} {units} each"
            return f"{high.name} takes the match, {hi} {units} to {lo}"
        after = f"after game {n}" + (f" of {self.games}" if self.games else "")
        if self.leader is None:
            return f"Level, {hi} {units} each, {after}"
        return f"{high.name} leads, {hi} {units} to {lo}, {after}"

    # -- as data -------------------------------------------------------------------------------

    def as_dict(self) -> dict[str, Any]:
        """The match as JSON-ready data (see :meth:`from_dict`)."""
        return {
            "id": self.id,
            "started": self.started,
            "first": self.first,
            "second": self.second,
            "games": self.games,
            "count_draws": self.count_draws,
            "ended": self.ended,
            "ballots": [list(item) for item in self.ballots],
            "played": [
                {
                    "number": g.number,
                    "black": g.black,
                    "white": g.white,
                    "result": g.result,
                    "id": g.id,
                    "ballot": g.ballot,
                }
                for g in self.played
            ],
        }

    def status(self) -> dict[str, Any]:
        """What a screen or a host shows: the players, the score, the next game, the verdict.

        >>> Match.new("Ana", "Ben", games=4, id="m1").with_result("1-0").status()["score"]
        {'Ana': 1, 'Ben': 0}
        """
        black, white = self.colours()
        return {
            "id": self.id,
            "players": [self.first, self.second],
            "games": self.games,
            "played": len(self.counted),
            "count_draws": self.count_draws,
            "score": {s.name: (s.halves / 2 if self.count_draws else s.wins) for s in self.standings},
            "wdl": {s.name: [s.wins, s.draws, s.losses] for s in self.standings},
            "text": self.score_text(),
            "verdict": self.verdict(),
            "over": self.over,
            "winner": self.winner,
            "next": None
            if self.over
            else {"number": self.number, "black": black, "white": white, "ballot": self.ballot()},
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], where: str = "match") -> Match:
        """The match of :meth:`as_dict`; ValueError naming ``where`` and the key for bad data."""
        if not isinstance(data, Mapping):
            raise ValueError(f"{where}: expected an object")
        known = {"id", "started", "first", "second", "games", "count_draws", "ended", "ballots", "played"}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"{where}: unknown key {unknown[0]!r}")

        def text(key: str, value: object) -> str:
            if not isinstance(value, str):
                raise ValueError(f"{where}: {key!r} must be a string")
            return value

        def flag(key: str) -> bool:
            value = data.get(key, False)
            if type(value) is not bool:
                raise ValueError(f"{where}: {key!r} must be true or false")
            return value

        games = data.get("games")
        if games is not None and (type(games) is not int or not 1 <= games <= MAX_GAMES):
            raise ValueError(f"{where}: 'games' must be a number of games from 1 to {MAX_GAMES}, or null")
        ballots = data.get("ballots", [])
        if (
            not isinstance(ballots, list)
            or len(ballots) > MAX_GAMES
            or not all(
                isinstance(b, list) and len(b) == 2 and all(type(n) is int and 1 <= n <= MAX_GAMES for n in b)
                for b in ballots
            )
        ):
            raise ValueError(f"{where}: 'ballots' must be a list of [pair, ballot number]")
        played_data = data.get("played", [])
        if not isinstance(played_data, list) or len(played_data) > MAX_GAMES:
            raise ValueError(f"{where}: 'played' must be a list of at most {MAX_GAMES} games")
        played = []
        for i, item in enumerate(played_data, 1):
            at = f"{where}: played game {i}"
            if not isinstance(item, Mapping) or set(item) - {"number", "black", "white", "result", "id", "ballot"}:
                raise ValueError(f"{at}: expected an object with number, black, white, result, id, ballot")
            number = item.get("number")
            if type(number) is not int or number < 1:
                raise ValueError(f"{at}: 'number' must be a game number from 1")
            result = item.get("result", UNFINISHED)
            if result not in _RESULTS:
                raise ValueError(f"{at}: 'result' must be one of {', '.join(_RESULTS)}")
            ballot = item.get("ballot")
            if ballot is not None and type(ballot) is not int:
                raise ValueError(f"{at}: 'ballot' must be a ballot number or null")
            played.append(
                MatchGame(
                    number,
                    text("black", item.get("black")),
                    text("white", item.get("white")),
                    result,
                    text("id", item.get("id", "")),
                    ballot,
                )
            )
        try:
            match = cls(
                text("first", data.get("first")),
                text("second", data.get("second")),
                games,
                flag("count_draws"),
                tuple(played),
                tuple((b[0], b[1]) for b in ballots),
                text("id", data.get("id", "")),
                text("started", data.get("started", "")),
                flag("ended"),
            )
        except ValueError as exc:
            raise ValueError(f"{where}: {str(exc).removeprefix('match: ')}") from None
        for game in match.played:
            if {game.black, game.white} != {match.first, match.second}:
                raise ValueError(
                    f"{where}: game {game.number}: {game.black} v {game.white} are not the match's players"
                )
        return match


def match_from_games(
    games: Iterable[tuple[str, str, str, str]],
    *,
    players: tuple[str, str] | None = None,
    count_draws: bool = False,
) -> Match:
    """The match played by a list of ``(black, white, result, id)`` games, in order.

    The players are ``players``, else those of the first game; games between other
    players are left out. The colours are those the games were played with.

    >>> m = match_from_games([("Ana", "Ben", "1-0", "g1"), ("Cy", "Di", "0-1", "x"),
    ...                       ("Ben", "Ana", "1-0", "g2"), ("Ana", "Ben", "1/2-1/2", "g3"),
    ...                       ("Ben", "Ana", "0-1", "g4")])
    >>> m.score_text(), [g.id for g in m.played]
    ('Ana 2, Ben 1', ['g1', 'g2', 'g3', 'g4'])
    """
    listed = list(games)
    if players is None:
        if not listed:
            raise ValueError("match: no games")
        players = (listed[0][0], listed[0][1])
    match = Match(players[0], players[1], count_draws=count_draws)
    for black, white, result, game_id in listed:
        if {black, white} != set(players) or len(match.played) >= MAX_GAMES:
            continue
        match = match.with_result(result if result in _RESULTS else UNFINISHED, id=game_id, black=black, white=white)
    return match
