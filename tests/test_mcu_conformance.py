"""One protocol conformance suite, run against the Pico firmware and against the
reference emulator: the two must not disagree, and both must follow docs/hardware.md."""

from __future__ import annotations

import pytest

from crownhead.firmware.mcu.conformance import CHECKS, EmulatorTarget, FirmwareTarget, Report, Target, run_checks

MAKERS = {"emulator": EmulatorTarget, "firmware": FirmwareTarget}


@pytest.fixture(scope="module")
def reports() -> dict[str, Report]:
    out = {}
    for name, make in MAKERS.items():
        target: Target = make()
        try:
            out[name] = run_checks(target)
        finally:
            target.close()
    return out


@pytest.mark.parametrize("name", MAKERS)
def test_every_check_passes(reports: dict[str, Report], name: str) -> None:
    report = reports[name]
    assert report.ok, report.text()
    assert [r.status for r in report.results] == ["pass"] * len(CHECKS), report.text()
    assert report.firmware


def test_firmware_and_emulator_answer_alike(reports: dict[str, Report]) -> None:
    """Beyond pass/fail: the same detail for every check that does not name the board."""
    emulator, firmware = (
        [(r.name, r.status, r.detail) for r in reports[n].results if r.name != "hello"]
        for n in ("emulator", "firmware")
    )
    assert emulator == firmware


def test_a_broken_board_fails_the_checks() -> None:
    """The suite can fail: a firmware that never sends its heartbeat and ignores LED
    frames is caught."""
    t = FirmwareTarget()
    try:
        t.fw.HEARTBEAT_MS = 10**6
        t.board._show = lambda buf, s: None
        report = run_checks(t, only=["heartbeat", "led frame"])
        assert [r.status for r in report.results] == ["fail", "fail"], report.text()
        assert "at least 2 expected" in report.results[0].detail
    finally:
        t.close()
