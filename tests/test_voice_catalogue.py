"""The voice's catalogues: every language has every sentence, squares said its players' way."""

from __future__ import annotations

import pytest

from crownhead.firmware.voice.catalogue import (
    LANGUAGES,
    CatalogueError,
    _parse,
    check_against,
    language_of,
    load_catalogue,
    read_catalogue_text,
)
from crownhead.firmware.voice.utterance import Utterance, spoken_kinds

U = Utterance.of


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_catalogue_has_every_english_phrase(lang: str) -> None:
    catalogue = load_catalogue(lang)
    assert set(catalogue.phrases) == set(load_catalogue("en").phrases)
    assert catalogue.voice


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_move_a_jump_and_a_multi_jump_name_their_squares(lang: str) -> None:
    c = load_catalogue(lang)
    name = c.square
    move = c.render(U("move", "move", side="black", start=11, end=15)).text
    assert name(11) in move and name(15) in move and c.word("side.black") in move
    jump = c.render(U("move", "jump", side="white", start=22, end=15, captures=(18,))).text
    assert [name(22), name(15), name(18)] == [s for s in (name(22), name(15), name(18)) if s in jump]
    multi = c.render(U("move", "multi-jump", side="white", start=1, landings=(10, 19), captures=(6, 15))).text
    assert multi.index(name(1)) < multi.index(name(10)) < multi.index(name(19))


def test_english_says_moves_as_checkers_players_do() -> None:
    en = load_catalogue("en")
    assert en.render(U("move", "move", side="black", start=11, end=15)).text == "Black, 11 15."
    multi = U("move", "multi-jump", side="white", start=1, landings=(10, 19, 28), captures=(6, 15, 24))
    assert en.render(multi).text == "White jumps from 1 to 10, then 19, then 28, taking 6, 15 and 24."
    assert en.render(U("guidance", "crowned", square=30)).text == "Crowned on 30: crown the man on 30."
    assert en.render(U("result", "draw", reason="other")).text == "The game is drawn."


def test_russian_names_squares_by_letter_and_says_the_letter_in_russian() -> None:
    ru = load_catalogue("ru")
    sentence = ru.render(U("warning", "warning.put-back", squares=(14,)))
    assert sentence.text == "Верните шашку на c5."
    assert sentence.spoken == "Верните шашку на цэ 5."


def test_plural_forms_follow_each_language() -> None:
    def minutes(lang: str, ms: int) -> str:
        return (
            load_catalogue(lang)
            .render(U("clock", "clocks", black="black", white="white", black_ms=ms, white_ms=1000))
            .text
        )

    assert minutes("en", 60_000).startswith("Black 1 minute,")
    assert minutes("en", 125_000).startswith("Black 2 minutes and 5 seconds,")
    assert minutes("ru", 21 * 60_000).startswith("Чёрные 21 минута,")
    assert minutes("ru", 3 * 60_000).startswith("Чёрные 3 минуты,")
    assert minutes("ru", 5 * 60_000).startswith("Чёрные 5 минут,")
    assert minutes("fr", 0).endswith("Blanc 1 seconde.")


def test_a_catalogue_missing_a_phrase_or_a_plural_form_is_refused_by_name() -> None:
    en = load_catalogue("en")
    text = read_catalogue_text("de")
    short = _parse("de", text.replace('hint = "Tipp: {start:sq} {end:sq}."\n', ""))
    with pytest.raises(CatalogueError, match="de: phrases.hint missing"):
        check_against(short, en)
    extra = _parse("de", text.replace('hint = "Tipp: {start:sq} {end:sq}."', 'hint = "Tipp: {start:sq} {ende:sq}."'))
    with pytest.raises(CatalogueError, match="phrases.hint uses ende"):
        check_against(extra, en)
    with pytest.raises(CatalogueError, match="lacks the plural form"):
        _parse("ru", read_catalogue_text("ru").replace('few = "{n} минуты", ', ""))
    with pytest.raises(CatalogueError, match="unknown spec"):
        _parse("en", read_catalogue_text("en").replace("{start:sq} {end:sq}.", "{start:square} {end:sq}.", 1))


def test_a_language_is_found_by_its_code_or_refused_naming_those_there_are() -> None:
    assert language_of("fr-CA") == "fr"
    with pytest.raises(ValueError, match="no catalogue for language 'xx'.*en, de"):
        language_of("xx")


def test_what_is_spoken_follows_the_setting() -> None:
    assert "move" in spoken_kinds("moves") and "warning" not in spoken_kinds("moves")
    assert "warning" in spoken_kinds("warnings") and "move" not in spoken_kinds("warnings")
    assert spoken_kinds("off") == frozenset()
    with pytest.raises(ValueError, match="speak must be one of all, moves, warnings, off"):
        spoken_kinds("loud")


def test_the_voice_section_checks_every_setting_by_name() -> None:
    from crownhead.firmware.config import ConfigError, parse_config_text

    config = parse_config_text(b'[voice]\nenabled = true\nlanguage = "de"\nwhite_language = "fr"\n')
    from crownhead.firmware.voice.settings import VoiceConfig

    voice = config.get(VoiceConfig)
    assert voice.enabled and voice.language_for("white") == "fr" and voice.language_for("black") == "de"
    for bad, where in [
        ("speed = 20", "voice.speed"),
        ("volume = 300", "voice.volume"),
        ('speak = "loud"', "voice.speak"),
        ('engine = "festival"', "voice.engine"),
        ('voice = "en; rm -rf"', "voice.voice"),
        ('device = "hw:0 x"', "voice.device"),
        ('language = "e n"', "voice.language"),
    ]:
        with pytest.raises(ConfigError, match=where):
            parse_config_text(f"[voice]\n{bad}\n".encode())


def test_only_the_adapter_reads_events_or_the_application() -> None:
    """The catalogue, queue, engine and speaker know no event shape: a change to the
    events (issue 38's typed ones) rewrites the adapter alone."""
    import ast
    from pathlib import Path

    import crownhead.firmware.voice  # noqa: F401 - loads firmware.voice
    from crownhead import firmware

    package = Path(firmware.voice.__file__).parent
    for module in sorted(package.glob("*.py")):
        tree = ast.parse(module.read_text(encoding="utf-8"))
        names = {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
        names |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
        outside = {
            n
            for n in names
            if n.startswith(("crownhead.firmware.events", "crownhead.firmware.app", "crownhead.firmware.tracking"))
        }
        if module.name == "adapter.py":
            assert outside, "the adapter is the one that reads them"
        else:
            assert not outside, f"{module.name} imports {sorted(outside)}: only adapter.py may"
