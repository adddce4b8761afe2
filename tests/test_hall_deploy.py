"""What a hall is installed with: its systemd unit and the shipped Mosquitto files."""

from __future__ import annotations

import configparser
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from crownhead.firmware.hall.acl import SHIPPED_ACL, read_acl, shipped_acl
from crownhead.firmware.hall.broker import MAX_CONNECTIONS, MAX_PACKET

REPO = Path(__file__).resolve().parents[1]
UNIT = REPO / "deploy" / "crownhead-hall.service"
MOSQUITTO = REPO / "deploy" / "mosquitto"


def unit_values() -> dict[str, list[str]]:
    values: dict[str, list[str]] = {}
    for line in UNIT.read_text().replace("\\\n", " ").splitlines():
        if "=" in line and not line.startswith("#"):
            key, _, value = line.partition("=")
            values.setdefault(key.strip(), []).append(value.strip())
    return values


def test_the_hall_unit_runs_the_hall_as_a_user_within_bounds() -> None:
    from crownhead.firmware.pages.serving import Limits

    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read(UNIT)
    service = parser["Service"]
    assert service["User"] == "crownhead" and service["StateDirectory"] == "crownhead"
    values = unit_values()
    assert values["ExecStart"][0].split()[1] == "hall"
    # Descriptors for every broker client and page connection, and the page's reserve.
    assert int(values["LimitNOFILE"][0]) >= MAX_CONNECTIONS + Limits().total + Limits().reserve_fds + 64
    assert values["MemoryMax"][0] == "512M" and 64 <= int(values["TasksMax"][0]) <= 256


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_the_hall_unit_passes_systemd_analyze_and_is_hardened() -> None:
    out = subprocess.run(["systemd-analyze", "verify", str(UNIT)], capture_output=True, text=True, timeout=300)
    problems = [
        line
        for line in (out.stdout + out.stderr).splitlines()
        if line.strip() and "is not executable" not in line and "No such file" not in line
    ]
    assert problems == []
    out = subprocess.run(
        ["systemd-analyze", "security", "--offline=yes", str(UNIT)], capture_output=True, text=True, timeout=300
    )
    found = re.search(r"Overall exposure level for \S+: ([0-9]{1,2}\.[0-9])", out.stdout)
    if found is None:
        pytest.skip("systemd-analyze security --offline=yes is not available (systemd 250 or later)")
    assert float(found.group(1)) <= 1.5  # 1.2 with systemd 252


def test_mosquitto_gets_the_acl_the_embedded_broker_enforces_and_the_same_bounds() -> None:
    shipped = (MOSQUITTO / "crownhead.acl").read_text()
    assert shipped == (REPO / "firmware" / "hall" / SHIPPED_ACL).read_text()  # one file
    assert read_acl(shipped) == shipped_acl()
    conf = [
        line.split()
        for line in (MOSQUITTO / "crownhead.conf").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    settings = {words[0]: words[1:] for words in conf}
    assert settings["allow_anonymous"] == ["false"]
    assert settings["max_packet_size"] == [str(MAX_PACKET)]
    assert settings["acl_file"] == ["/etc/mosquitto/crownhead.acl"]
    # A listener's own setting: after the listener it applies to.
    keys = [words[0] for words in conf]
    assert keys.index("use_username_as_clientid") > keys.index("listener")
    assert settings["use_username_as_clientid"] == ["true"]
