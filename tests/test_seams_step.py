"""Never a wrong state at the seams (issue 50): what the outputs show in a step is that
step's state. The page's and the link's ``view`` changes in the very step the LEDs do,
from the snapshot that step made (its lit roles included), never one step late.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from test_seams_link import Wire, ask

from crownhead.firmware.app.settings import AppSettings
from crownhead.firmware.link.settings import LinkConfig
from helpers.rig import Rig


class WatchedWire(Wire):
    """The test's wire, connected (a watcher gets views only on a live line)."""

    connected = True


def _roles(lit: dict[int, str]) -> dict[str, list[int]]:
    grouped: dict[str, list[int]] = {}
    for square, role in sorted(lit.items()):
        grouped.setdefault(role, []).append(square)
    return grouped


def _watched(tmp_path: Path) -> Rig:
    rig = Rig(tmp_path / "state", settings=AppSettings(), start=False)
    rig.connect(WatchedWire(), LinkConfig())
    rig.app.start()
    rig.app.run_for(500)
    assert ask(rig, "watch on")["ok"]
    return rig


def _views(rig: Rig, since: int) -> list[dict[str, Any]]:
    return [d for d in rig.transport.sent[since:] if d["event"] == "view"]


def test_the_view_of_a_move_goes_out_in_the_step_that_made_it(tmp_path: Path) -> None:
    rig = _watched(tmp_path)
    try:
        rig.sim.lift(11)
        rig.app.run_for(300)
        rig.sim.place(15)
        for _ in range(200):  # step by step until the move is heard
            before = len(rig.transport.sent)
            due = rig.app.next_deadline()
            assert due is not None
            rig.clock.set(max(due, rig.clock.now_ms()))
            rig.app.step()
            sent = rig.transport.sent[before:]
            if any(d["event"] == "move" for d in sent):
                break
        else:
            raise AssertionError("no move")
        views = _views(rig, before)
        assert views, "no view in the step of the move"
        view = views[-1]
        assert view["ply"] == 1 and view["board"][14] == "b" and view["board"][10] == "."
        # The roles the LEDs light in that step: the move just made.
        snap = rig.app.snapshot
        assert view["roles"] == _roles(dict(snap.lit)) == _roles(rig.app.lit_roles)
        assert "last-from" in view["roles"]
        # The move event before its view.
        kinds = [d["event"] for d in sent if d["event"] in ("move", "view")]
        assert kinds.index("move") < kinds.index("view")
    finally:
        rig.close()


def test_every_step_s_view_shows_that_step_s_lights(tmp_path: Path) -> None:
    rig = _watched(tmp_path)
    try:
        for text in ("11-15", "22-18", "15x22"):
            rig.do(text, wait=0)
            for _ in range(60):
                rig.app.step(rig.clock.now_ms())
                last = _views(rig, 0)[-1]
                assert last["roles"] == _roles(rig.app.lit_roles), text
                assert last["ply"] == rig.app.snapshot.ply
                rig.clock.advance(20) if hasattr(rig.clock, "advance") else rig.clock.set(rig.clock.now_ms() + 20)
    finally:
        rig.close()
