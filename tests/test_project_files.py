"""The project's own files say what they should (issue 13, item 11)."""

from __future__ import annotations

import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_the_licence_is_an_spdx_expression_not_the_deprecated_table() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert project["license"] == "MIT"


def test_install_guide_has_no_placeholder_url_and_says_how_to_turn_spi_on() -> None:
    text = (REPO / "docs" / "install.md").read_text()
    assert "example.invalid" not in text
    assert "do_spi 0" in text and "dtparam=spi=on" in text


def test_the_relay_example_says_where_its_port_names_come_from() -> None:
    text = (REPO / "docs" / "protocol.md").read_text()
    assert "link=board-a" in text and "link=relay-a" in text
