"""One protocol conformance suite, run against the Pico firmware and against the
reference emulator: the two must not disagree, and both must follow docs/hardware.md."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from firmware.mcu.conformance import CHECKS, EmulatorTarget, FirmwareTarget, Target, run_checks


@pytest.fixture(params=["emulator", "firmware"])
def target(request: pytest.FixtureRequest) -> Iterator[Target]:
    t: Target = EmulatorTarget() if request.param == "emulator" else FirmwareTarget()
    yield t
    t.close()


def test_every_check_passes(target: Target) -> None:
    report = run_checks(target)
    assert report.ok, report.text()
    assert [r.status for r in report.results] == ["pass"] * len(CHECKS), report.text()
    assert report.firmware


def test_firmware_and_emulator_answer_alike() -> None:
    """Beyond pass/fail: the same detail for every check that does not name the board."""
    details = []
    for make in (EmulatorTarget, FirmwareTarget):
        t = make()
        try:
            details.append([(r.name, r.status, r.detail) for r in run_checks(t).results if r.name != "hello"])
        finally:
            t.close()
    assert details[0] == details[1]


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
