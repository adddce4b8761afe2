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


def test_the_readme_says_how_to_run_crownhead_which_make_does_not_put_on_the_path() -> None:
    import re
    import sys

    readme = (REPO / "README.md").read_text()
    commands = readme.split("## Commands", 1)[1]
    # Before the first command of the table, a newcomer is told how to run it.
    told = commands.split("| Command |", 1)[0]
    assert ".venv/bin/crownhead" in told and "source .venv/bin/activate" in told
    # It is where the README says: the environment's own bin directory.
    assert (Path(sys.executable).parent / "crownhead").exists()
    makefile = (REPO / "Makefile").read_text()
    run = re.search(r"^run:.*?(?=^\S)", makefile, re.M | re.S)
    assert run is not None and "$(BIN)/crownhead" in run.group(0) and "activate" in run.group(0)


def test_the_pages_screenshots_are_in_the_docs_at_a_phones_and_a_laptops_size() -> None:
    import struct

    text = (REPO / "docs" / "web.md").read_text()
    for tab in ("board", "games", "status"):
        for width, height in ((390, 844), (1280, 800)):
            name = f"screenshots/{tab}-{width}x{height}.png"
            assert f"]({name})" in text, name
            data = (REPO / "docs" / name).read_bytes()
            assert data[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", data[16:24]) == (width, height), name
            assert len(data) < 100_000, name  # small: they live in the repository


def test_the_hall_pages_screenshots_are_in_its_docs_at_a_phones_and_a_laptops_size() -> None:
    import struct

    text = (REPO / "docs" / "hall.md").read_text()
    for width, height in ((390, 844), (1280, 800)):
        name = f"screenshots/hall-{width}x{height}.png"
        assert f"]({name})" in text, name
        data = (REPO / "docs" / name).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", data[16:24]) == (width, height), name
        assert len(data) < 100_000, name
