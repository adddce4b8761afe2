"""The Pi install: the systemd unit and the configuration shown in docs/install.md."""

from __future__ import annotations

import configparser
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import crownhead.firmware.app.application  # noqa: F401 - registers the [play], [palette] and [store] sections
from crownhead.firmware.config import parse_config

REPO = Path(__file__).resolve().parents[1]
UNIT = REPO / "deploy" / "crownhead.service"


def unit() -> configparser.ConfigParser:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read(UNIT)
    return parser


def test_unit_runs_headless_as_a_user_restarts_and_logs_to_the_journal() -> None:
    service = unit()["Service"]
    assert service["User"] == "crownhead" and service["User"] != "root"
    assert service["ExecStart"].split()[1:3] == ["run", "--headless"]
    assert service["Restart"] == "on-failure"
    assert service["StandardOutput"] == "journal" and service["StandardError"] == "journal"
    assert service["KillSignal"] == "SIGTERM"
    assert service["StateDirectory"] == "crownhead"  # /var/lib/crownhead, the default state dir
    assert "gpio" in service["SupplementaryGroups"].split()
    assert unit()["Install"]["WantedBy"] == "multi-user.target"


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_unit_passes_systemd_analyze(tmp_path: Path) -> None:
    out = subprocess.run(["systemd-analyze", "verify", str(UNIT)], capture_output=True, text=True, timeout=300)
    # The only complaint allowed: the program is not installed on this machine.
    problems = [
        line
        for line in (out.stdout + out.stderr).splitlines()
        if line.strip() and "is not executable" not in line and "No such file" not in line
    ]
    assert problems == []


def test_install_notes_configuration_is_valid() -> None:
    import tomllib

    text = (REPO / "docs" / "install.md").read_text()
    blocks = re.findall(r"```toml\n(.*?)```", text, re.S)
    assert blocks, "docs/install.md shows the [play] / [palette] / [store] settings"
    for block in blocks:
        config = parse_config(tomllib.loads(block))
        assert config.play.mode == "play" and config.palette.brightness == 1.0


def unit_lines() -> dict[str, list[str]]:
    """Every ``Key=value`` of the unit, a key given several times with all its values."""
    values: dict[str, list[str]] = {}
    for line in UNIT.read_text().splitlines():
        if "=" in line and not line.lstrip().startswith(("#", "[")):
            key, _, value = line.partition("=")
            values.setdefault(key.strip(), []).append(value.strip())
    return values


def test_unit_is_hardened_yet_keeps_gpio_spi_serial_and_the_network() -> None:
    values = unit_lines()
    for key in (
        "ProtectKernelTunables",
        "ProtectKernelModules",
        "ProtectKernelLogs",
        "ProtectControlGroups",
        "ProtectClock",
        "RestrictNamespaces",
        "RestrictSUIDSGID",
        "LockPersonality",
        "NoNewPrivileges",
    ):
        assert values[key] == ["yes"], key
    assert values["SystemCallArchitectures"] == ["native"]
    assert "@system-service" in values["SystemCallFilter"]
    assert values["CapabilityBoundingSet"] == [""]  # no capability at all
    assert values["UMask"] == ["0027"]
    assert values["DevicePolicy"] == ["closed"]
    allowed = {entry.split()[0] for entry in values["DeviceAllow"]}
    # GPIO (lgpio/gpiod chips, gpiomem), SPI NeoPixels, serial boards and the host link.
    assert {"char-gpiochip", "char-spidev", "char-bcm2835-gpiomem", "char-rpi-gpiomem"} <= allowed
    assert {"char-ttyAMA", "char-ttyS", "char-ttyACM", "char-ttyUSB", "char-ttyGS"} <= allowed
    assert all(entry.split()[1] == "rw" for entry in values["DeviceAllow"])
    # The web page and MQTT need IP; the journal needs Unix sockets.
    assert set(values["RestrictAddressFamilies"][0].split()) == {"AF_UNIX", "AF_INET", "AF_INET6"}
    assert values["SupplementaryGroups"] == ["gpio spi i2c dialout audio"]
    assert "PrivateDevices" not in values and "PrivateNetwork" not in values


#: The device groups of /proc/devices on a Raspberry Pi 5 (Raspberry Pi OS, kernel 6.6)
#: that the board opens, by what opens them. systemd matches a ``char-`` name against
#: them by glob, as fnmatch does.
PI5_DEVICE_GROUPS = {
    "gpiochip": "the switch matrix, shift registers and buttons (lgpio, gpiod)",
    "rp1-pio": "the NeoPixels on a Pi 5 (/dev/pio0, the RP1's PIO driver)",
    "i2c": "the OLED display (/dev/i2c-1)",
    "ttyACM": "a Pico board over USB",
    "ttyAMA": "the Pi's UART",
    "alsa": "the speaker (/dev/snd/pcmC0D0p, the voice through aplay)",
}


def test_every_device_group_the_board_opens_on_a_pi_5_is_allowed() -> None:
    """``char-pio*`` does not match ``rp1-pio``: the LEDs of a Pi 5 would stay dark under
    the service while they light from a shell."""
    import fnmatch

    patterns = [entry.split()[0].removeprefix("char-") for entry in unit_lines()["DeviceAllow"]]
    for group, what in PI5_DEVICE_GROUPS.items():
        assert any(fnmatch.fnmatchcase(group, p) for p in patterns), f"{group} ({what}) is not allowed"
    assert "char-rp1-pio rw" in unit_lines()["DeviceAllow"]
    # The docs tell the builder how to confirm the name on their Pi.
    assert "grep pio /proc/devices" in (REPO / "docs" / "install.md").read_text()


def test_the_display_is_reachable_under_the_service() -> None:
    """The OLED is /dev/i2c-1: group i2c, device group "i2c" in /proc/devices. Without
    both the display is dead under the unit however it is wired."""
    values = unit_lines()
    assert "i2c" in values["SupplementaryGroups"][0].split()
    assert "char-i2c rw" in values["DeviceAllow"]
    groups = set(values["SupplementaryGroups"][0].split())
    # Every usermod the docs give puts the user in exactly the unit's groups: someone who
    # runs `crownhead sensors` as the service user must see what the service sees.
    for doc in ("install.md", "hardware.md"):
        lines = re.findall(r"usermod -aG (\S+) crownhead", (REPO / "docs" / doc).read_text())
        assert lines, doc
        for line in lines:
            assert set(line.split(",")) == groups, (doc, line)


def _offline_security_score() -> float | None:
    if shutil.which("systemd-analyze") is None:
        return None
    out = subprocess.run(
        ["systemd-analyze", "security", "--offline=yes", str(UNIT)], capture_output=True, text=True, timeout=300
    )
    found = re.search(r"Overall exposure level for \S+: ([0-9]{1,2}\.[0-9])", out.stdout)
    return float(found.group(1)) if found else None


def test_unit_security_exposure_is_low() -> None:
    score = _offline_security_score()
    if score is None:
        pytest.skip("systemd-analyze security --offline=yes is not available (systemd 250 or later)")
    assert score <= 2.0, f"exposure {score} (it was 8.5 EXPOSED before the hardening)"


def test_unit_bounds_descriptors_memory_and_tasks() -> None:
    # A crowd of network clients or a leak cannot take what the machine needs, and the
    # web page's connections leave descriptors for the board under the unit's limit.
    from crownhead.firmware.pages.serving import Limits

    values = unit_lines()
    nofile = int(values["LimitNOFILE"][0])
    limits = Limits()
    assert nofile >= limits.total + limits.reserve_fds + 64
    memory = values["MemoryMax"][0]
    assert memory.endswith("M") and 600 <= int(memory[:-1]) <= 1024  # a table build's 512 MB fits
    assert 32 <= int(values["TasksMax"][0]) <= 256
    # The hardening's rating stays where it was (1.5 with systemd 252).
    score = _offline_security_score()
    if score is not None:
        assert score <= 1.5


def test_the_voice_can_play_under_the_service() -> None:
    """Issue 52: aplay opens /dev/snd/*, owned by group audio, in /proc/devices' "alsa"
    group. Without both the board is silent under the unit while it speaks from a shell."""
    values = unit_lines()
    assert "audio" in values["SupplementaryGroups"][0].split()
    assert "char-alsa rw" in values["DeviceAllow"]
    install = (REPO / "docs" / "install.md").read_text()
    assert "espeak-ng" in install and "alsa-utils" in install
