"""The application's settings: its configuration sections (``[play]``, ``[palette]``,
``[store]``, ``[match]``) and :class:`AppSettings`, how one run plays.

Light on purpose: the configuration loader names this module (see
:data:`crownhead.firmware.config.BUILTIN_SECTIONS`), so it imports the values its checks need and
nothing of the application itself.

>>> PlayConfig(mode="computer", level=3).computer_plays
'white'
>>> PaletteConfig(target="#00ff00").led_settings().palette.target
(0, 255, 0)
"""

from __future__ import annotations

from dataclasses import dataclass

from crownhead.firmware.app.leds import LedSettings, Palette
from crownhead.firmware.app.players import MachineSpec
from crownhead.firmware.config import FieldError, config_section
from crownhead.firmware.gameclock import TimeControl
from crownhead.firmware.tracking.policy import MODES, ModePolicy
from crownhead.rules import WCDF, WHITE, Color, Position, Rules
from crownhead.rules.match import MAX_GAMES, MAX_NAME

#: Positions the live analysis searches for one position on the board at most
#: (``[play] analysis_nodes``; see :mod:`crownhead.firmware.app.analysis`): about a second of the
#: native search core here (depth 13 or so from the start), 5-10 on a Pi; and the most a
#: configuration may ask for (a minute or so of a Pi).
ANALYSIS_NODES, MAX_ANALYSIS_NODES = 2_000_000, 100_000_000

__all__ = [
    "ANALYSIS_NODES",
    "MAX_ANALYSIS_NODES",
    "PlayConfig",
    "PaletteConfig",
    "StoreConfig",
    "MatchConfig",
    "AppSettings",
]


@config_section("play")
@dataclass(frozen=True)
class PlayConfig:
    """How games are played and recorded (``crownhead run`` options override these)."""

    mode: str = "play"
    hints: bool = True
    computer_plays: str = "white"
    opponent: str = "engine"
    level: int = 0
    #: The engine's time for the best move the hint button shows.
    hint_movetime_ms: int = 500
    #: The engine's live analysis on the page and the display (never in referee mode).
    analysis: bool = False
    #: Positions the analysis searches for one position on the board at most.
    analysis_nodes: int = ANALYSIS_NODES
    black_name: str = "?"
    white_name: str = "?"
    event: str = ""
    site: str = "?"

    def validate(self) -> None:
        if self.mode not in MODES:
            raise FieldError("mode", f'must be one of {", ".join(MODES)}, got "{self.mode}"')
        if self.computer_plays not in ("black", "white"):
            raise FieldError("computer_plays", f'must be "black" or "white", got "{self.computer_plays}"')
        if self.opponent not in ("engine", "random"):
            raise FieldError("opponent", f'must be "engine" or "random", got "{self.opponent}"')
        if not 0 <= self.level <= 10:
            raise FieldError("level", f"must be 1-10 (or 0 for full strength), got {self.level}")
        if not 50 <= self.hint_movetime_ms <= 10_000:
            raise FieldError("hint_movetime_ms", f"must be 50-10000 (milliseconds), got {self.hint_movetime_ms}")
        if not 1_000 <= self.analysis_nodes <= MAX_ANALYSIS_NODES:
            raise FieldError("analysis_nodes", f"must be 1000-{MAX_ANALYSIS_NODES}, got {self.analysis_nodes}")


@config_section("palette")
@dataclass(frozen=True)
class PaletteConfig:
    """LED colours per role (``"#rrggbb"`` or ``[r, g, b]``; empty keeps the default)."""

    brightness: float = 1.0
    background: float = 0.15
    blink_ms: int = 250
    touched: str | tuple[int, ...] = ""
    target: str | tuple[int, ...] = ""
    capture: str | tuple[int, ...] = ""
    must_capture: str | tuple[int, ...] = ""
    huff: str | tuple[int, ...] = ""
    next_jump: str | tuple[int, ...] = ""
    remove: str | tuple[int, ...] = ""
    missing: str | tuple[int, ...] = ""
    extra: str | tuple[int, ...] = ""
    crown: str | tuple[int, ...] = ""
    move_from: str | tuple[int, ...] = ""
    move_path: str | tuple[int, ...] = ""
    move_to: str | tuple[int, ...] = ""
    error: str | tuple[int, ...] = ""
    king: str | tuple[int, ...] = ""
    last_from: str | tuple[int, ...] = ""
    last_to: str | tuple[int, ...] = ""
    win: str | tuple[int, ...] = ""
    draw: str | tuple[int, ...] = ""
    hint_from: str | tuple[int, ...] = ""
    hint_path: str | tuple[int, ...] = ""
    hint_to: str | tuple[int, ...] = ""
    hint_capture: str | tuple[int, ...] = ""

    def led_settings(self, hints: bool = True) -> LedSettings:
        colours = {
            name: list(value) if isinstance(value, tuple) else value
            for name in Palette.__dataclass_fields__
            if (value := getattr(self, name)) not in ("", ())
        }
        return LedSettings(
            hints=hints,
            brightness=self.brightness,
            background=self.background,
            blink_ms=self.blink_ms,
            palette=Palette.from_mapping(colours),
        )

    def validate(self) -> None:
        for name in Palette.__dataclass_fields__:
            value = getattr(self, name)
            if value in ("", ()):
                continue
            try:
                Palette.from_mapping({name: list(value) if isinstance(value, tuple) else value})
            except ValueError as exc:
                raise FieldError(name, str(exc).split(": ", 1)[-1]) from None
        try:
            LedSettings(brightness=self.brightness, background=self.background, blink_ms=self.blink_ms)
        except ValueError as exc:
            key = str(exc).split(" ", 1)[0]
            raise FieldError(key, str(exc).split(" ", 1)[1]) from None


@config_section("store")
@dataclass(frozen=True)
class StoreConfig:
    """Where games are kept ("" = /var/lib/crownhead when writable, else the user's state dir)."""

    state_dir: str = ""


@config_section("match")
@dataclass(frozen=True)
class MatchConfig:
    """Boards that always play matches (``crownhead match new`` starts one by hand).

    With ``always`` the board begins a match by itself whenever a game begins and no
    match is under way: ``games`` games (0: open-ended), between ``black_name`` (Black in
    its first game) and ``white_name`` (default: the players' names).
    """

    always: bool = False
    games: int = 0
    count_draws: bool = False
    black_name: str = ""
    white_name: str = ""

    def validate(self) -> None:
        if not 0 <= self.games <= MAX_GAMES:
            raise FieldError("games", f"must be 1-{MAX_GAMES}, or 0 for an open-ended match, got {self.games}")
        for key in ("black_name", "white_name"):
            if len(getattr(self, key)) > MAX_NAME:
                raise FieldError(key, f"is longer than {MAX_NAME} characters")
        if self.black_name and self.black_name == self.white_name:
            raise FieldError("white_name", "the two players need different names")


@dataclass(frozen=True)
class AppSettings:
    """How the application plays. ``event`` None means the mode's own PDN Event name."""

    mode: str = "play"
    black_name: str = "?"
    white_name: str = "?"
    site: str = "?"
    event: str | None = None
    start: Position | None = None
    rules: Rules = WCDF
    #: The simulator's hands crown a man when the board asks (the terminal UI).
    auto_crown: bool = False
    #: Contact chatter the simulator's hands make when they put a piece down or lift it.
    hand_bounces: int = 0
    #: A resumed game's pieces stand on the simulated board at start, as a real board
    #: keeps them through a power cut (otherwise the simulator starts as configured and
    #: the lights guide the pieces into place).
    sim_keep_game: bool = False
    #: How long the engine looks for the move the hint button shows (play and computer modes).
    hint_movetime_ms: int = 500
    #: The engine's live analysis of the position standing (``--analysis``; never under a
    #: referee), and the positions it searches for each at most.
    analysis: bool = False
    analysis_nodes: int = ANALYSIS_NODES
    #: A game against a board far away (``crownhead run --remote``): the live analysis is
    #: refused, since the other side could not see the help this one gets (nor it this one's).
    far_apart: bool = False
    #: A game clock for two-player and computer games (``--clock``; a referee keeps its own).
    clock: TimeControl | None = None
    #: The ``[match]`` section: whether the board begins a match by itself.
    match: MatchConfig = MatchConfig()
    #: What was chosen for this start (``crownhead run``'s options, named as in
    #: :data:`crownhead.firmware.app.resume.RESUMABLE`): these win over a resumed game's own
    #: settings; everything else comes back as the game was played (docs/simulator.md).
    given: frozenset[str] = frozenset()
    #: The machine and its side computer mode makes for this start: a resumed computer
    #: game takes from them what ``given`` names (``level``, ``computer_plays``...).
    machine: MachineSpec = MachineSpec()
    machine_side: Color = WHITE

    @property
    def policy(self) -> ModePolicy:
        try:
            return MODES[self.mode]
        except KeyError:
            raise ValueError(f"unknown mode {self.mode!r} (known: {', '.join(MODES)})") from None
