"""The Pi install: the systemd unit and the configuration shown in docs/install.md."""

from __future__ import annotations

import configparser
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import firmware.app.application  # noqa: F401 - registers the [play], [palette] and [store] sections
from firmware.config import parse_config

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
    out = subprocess.run(["systemd-analyze", "verify", str(UNIT)], capture_output=True, text=True, timeout=60)
    # The only complaint allowed: the program is not installed on this machine.
    problems = [
        line for line in (out.stdout + out.stderr).splitlines()
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
