"""The test rigs themselves: the application harness and the null-modem cable."""

from __future__ import annotations

import pytest
import serial

from crownhead.firmware.app.leds import LedPolicy

from helpers.cable import NullModem
from helpers.rig import PAL, MakeRig, dim

# -- the application rig -------------------------------------------------------------------


def test_rig_starts_a_game_on_the_start_position(make_rig: MakeRig) -> None:
    rig = make_rig()
    assert [e["event"] for e in (x.to_json() for x in rig.events)] == ["new-game", "game-start"]
    assert rig.lit == {}
    assert rig.app.view().status == "Black to move, move 1"


def test_rig_dim_matches_policy() -> None:
    assert LedPolicy().frame({5: "king"}, now_ms=0)[5] == dim(PAL.king)


# -- the null-modem cable ------------------------------------------------------------------


def test_null_modem_carries_bytes_both_ways(cable: NullModem) -> None:
    a = serial.serial_for_url(cable.a, timeout=60)
    b = serial.serial_for_url(cable.b, timeout=60)
    a.write(b"to b\n")
    assert b.readline() == b"to b\n"
    b.write(bytes(range(256)) + b"\n")
    assert a.read(257) == bytes(range(256)) + b"\n"
    a.close()
    b.close()


def test_unplugging_makes_reads_fail_and_replug_reopens(cable: NullModem) -> None:
    a = serial.serial_for_url(cable.a, timeout=0.05)
    cable.unplug()
    with pytest.raises(serial.SerialException):
        a.read(1)
    cable.replug()
    a.close()
    a = serial.serial_for_url(cable.a, timeout=60)
    b = serial.serial_for_url(cable.b, timeout=60)
    b.write(b"again\n")
    assert a.readline() == b"again\n"
    a.close()
    b.close()
