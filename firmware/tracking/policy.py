"""How the tracker is tuned: its timing (:class:`TrackerSettings`) and what a play mode
allows (:class:`ModePolicy`, one entry per mode in :data:`MODES`)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["MODES", "ModePolicy", "TRACKER_MODES", "TrackerSettings"]


@dataclass(frozen=True, slots=True)
class TrackerSettings:
    """Timing of the tracker, in milliseconds.

    ``settle_ms``: how long a board must stay the result of a legal move before it is
    accepted (also how long a wrong board must stand before it is reported).
    ``patience_ms``: how long a jumper may stand still part-way through a capture, or
    with captured pieces still on the board, before the board says so.
    """

    settle_ms: int = 300
    patience_ms: int = 2500

    def __post_init__(self) -> None:
        for name in ("settle_ms", "patience_ms"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"{name} must be an int >= 0 (milliseconds), got {value!r}")


@dataclass(frozen=True, slots=True)
class ModePolicy:
    """Everything a play mode changes, in one place.

    How the tracker reads the board: ``strict_touch_move``: after touching a playable
    piece, only a move of that piece is accepted (otherwise a move with another piece is
    accepted with a warning). ``hints``: hint roles are meant to be shown. ``takeback``:
    restoring the previous position, or the ``takeback`` button, undoes the last move.
    ``correction``: the last move may be redone differently until the opponent touches a
    piece. ``skip_ahead``: a move whose result stands on the board except for the
    opponent's reply already begun is accepted (the mover forgot to take a captured piece
    off, and someone did later). ``tracker_mode``: the name the tracker reports for these
    rules (``play`` or ``referee``; default: ``name``).

    What the application does: ``title`` is shown on the screen; ``referee_lights``
    hides hints for good; ``computer`` gives one side to a machine; ``event`` is the PDN
    Event of its games.
    """

    name: str
    strict_touch_move: bool = False
    hints: bool = True
    takeback: bool = True
    correction: bool = True
    skip_ahead: bool = True
    tracker_mode: str = ""
    title: str = ""
    referee_lights: bool = False
    computer: bool = False
    event: str = "Casual game"

    def __post_init__(self) -> None:
        if not self.tracker_mode:
            object.__setattr__(self, "tracker_mode", self.name)


#: The play modes, by name: ``crownhead run --mode``.
MODES: dict[str, ModePolicy] = {
    "play": ModePolicy("play", title="Two players"),
    "computer": ModePolicy(
        "computer",
        tracker_mode="play",
        title="Against the computer",
        computer=True,
        event="Game against the computer",
    ),
    "referee": ModePolicy(
        "referee",
        strict_touch_move=True,
        hints=False,
        takeback=False,
        correction=False,
        title="Referee",
        referee_lights=True,
        event="Tournament game",
    ),
}
#: The tracker's own rule sets (``crownhead replay --mode``): the modes it reports.
TRACKER_MODES: tuple[str, ...] = tuple(name for name, p in MODES.items() if p.tracker_mode == name)
