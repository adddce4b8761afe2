"""A replayed game said aloud: the right sentence for every kind of event, in six languages,
each one real speech of a plausible length naming the event's squares (``crownhead replay
--speech LANG --speech-out DIR``)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from crownhead.firmware.cli import main
from crownhead.firmware.voice.catalogue import LANGUAGES, load_catalogue
from tests.helpers.speech import needs_espeak, wav_stats

pytestmark = needs_espeak

#: Play mode: moves, a forced capture warned of, a capture left on the board, a jump each
#: way, a takeback, a draw offer, a resignation.
PLAY = """
lift 11
wait 300
place 15
wait 1000
lift 22
wait 300
place 18
wait 1000
lift 9
wait 1000
place 9
wait 1000
lift 15
wait 300
place 22
wait 4000
lift 18
wait 1000
lift 25
wait 300
place 18
wait 200
lift 22
wait 1000
press takeback
wait 1000
press draw
wait 1000
hold resign
wait 2000
"""

#: A double jump that crowns, then a reply (from B:W19,27,32:B1,15).
CROWN = """
lift 15
wait 300
lift 19
wait 300
place 24
wait 300
lift 24
wait 300
lift 27
wait 300
place 31
wait 3000
lift 32
wait 300
place 27
wait 2000
"""

#: Referee mode, ballot 1 and a clock: the ballot's moves, touch-move, the caution, a
#: draw by agreement.
REFEREE = """
wait 500
lift 9
wait 300
place 13
wait 2000
lift 21
wait 300
place 17
wait 2000
lift 5
wait 300
place 9
wait 2000
lift 23
wait 200
place 23
wait 500
lift 24
wait 300
place 20
wait 3000
lift 20
wait 300
place 24
wait 2000
lift 23
wait 300
place 19
wait 20000
press black_draw
wait 1000
press white_draw
wait 1000
"""

#: Huffing (from B:W14,22,30:B1,5,9,11): 11-15 skips 9x18, White huffs the man on 9 and
#: moves.
HUFF = """
lift 11
wait 300
place 15
wait 1000
lift 9
wait 1000
lift 22
wait 300
place 17
"""

#: (script, extra arguments, [(kind, catalogue key, the squares it names)]).
GAMES = {
    "play": (
        PLAY,
        [],
        [
            ("move", "move", (11, 15)),
            ("move", "move", (22, 18)),
            ("warning", "warning.forced-capture", (15,)),
            ("warning", "warning.remove-captured", (18,)),
            ("move", "jump", (15, 22, 18)),
            ("move", "jump", (25, 18, 22)),
            ("move", "takeback-jump", (25, 18, 22)),
            ("offer", "draw-offer-anyone", ()),
            ("result", "win", ()),
        ],
    ),
    "crown": (
        CROWN,
        ["--fen", "B:W19,27,32:B1,15"],
        [
            ("move", "multi-jump", (15, 24, 31, 19, 27)),
            ("guidance", "crowned", (31,)),
            ("move", "move", (32, 27)),
        ],
    ),
    "huff": (
        HUFF,
        ["--huffing", "--fen", "B:W14,22,30:B1,5,9,11"],
        [
            ("move", "move", (11, 15)),
            ("ruling", "missed-jump", (9,)),
            ("ruling", "huff", (9,)),
            ("move", "move", (22, 17)),
        ],
    ),
    "referee": (
        REFEREE,
        ["--mode", "referee", "--clock", "75", "--ballot", "1"],
        [
            ("guidance", "ballot", (9, 13, 21, 17, 5)),
            ("move", "move", (9, 13)),
            ("move", "move", (21, 17)),
            ("move", "move", (5, 9)),
            ("warning", "warning.touch-move", (23,)),
            ("warning", "warning.illegal-move", (24,)),
            ("ruling", "caution", ()),
            ("move", "move", (23, 19)),
            ("offer", "draw-offer", ()),
            ("result", "draw", ()),
        ],
    ),
}


def _replay(tmp_path: Path, game: str, lang: str, capsys: pytest.CaptureFixture[str]) -> list[dict[str, object]]:
    script, extra, _expected = GAMES[game]
    path = tmp_path / f"{game}.txt"
    path.write_text(script)
    out = tmp_path / f"{game}-{lang}"
    assert main(["replay", str(path), *extra, "--speech", lang, "--speech-out", str(out)]) == 0
    capsys.readouterr()
    lines = [json.loads(line) for line in (out / "sentences.jsonl").read_text(encoding="utf-8").splitlines()]
    for line in lines:
        line["path"] = out / str(line["file"])
    return lines


def _words(text: str) -> int:
    # A square's number is said as one or two words; a Russian square as two.
    return len(re.findall(r"\w+", text))


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_event_is_said_in_words_naming_its_squares_as_real_speech(
    tmp_path: Path, game: str, lang: str, capsys: pytest.CaptureFixture[str]
) -> None:
    catalogue = load_catalogue(lang)
    lines = _replay(tmp_path, game, lang, capsys)
    expected = GAMES[game][2]
    assert [line["kind"] for line in lines] == [kind for kind, _key, _squares in expected]
    for line, (_kind, key, squares) in zip(lines, expected, strict=True):
        text = str(line["text"])
        assert line["lang"] == lang
        for square in squares:
            assert re.search(rf"(?<!\w){re.escape(catalogue.square(square))}(?!\w)", text), (key, square, text)
        phrase = catalogue.phrases[key]
        fixed = re.split(r"\{[^}]*\}", phrase if isinstance(phrase, str) else next(iter(phrase.values())))
        longest = max((part.strip(" .,:") for part in fixed), key=len)
        assert longest in text, (key, text)  # the catalogue's sentence, not another
        seconds, rms = wav_stats(Path(str(line["path"])))
        assert rms > 0.02, f"{line['file']} is silent"
        words = _words(text)
        assert 0.12 * words < seconds < 1.2 * words + 1, f"{line['file']}: {seconds:.2f} s for {words} words: {text}"


def test_the_sentences_of_a_game_in_english(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    texts = [line["text"] for line in _replay(tmp_path, "play", "en", capsys)]
    assert texts == [
        "Black, 11 15.",
        "White, 22 18.",
        "You must capture: the piece on 15 can jump.",
        "Take the captured piece off 18.",
        "Black jumps from 15 to 22, taking 18.",
        "White jumps from 25 to 18, taking 22.",
        "Taken back: White's jump from 25 to 18. Put the white man on 18 back on 25, and the black man back on 22.",
        "A draw is offered.",
        "Black wins by resignation.",
    ]
    crown = [line["text"] for line in _replay(tmp_path, "crown", "en", capsys)]
    assert crown[:2] == ["Black jumps from 15 to 24, then 31, taking 19 and 27.", "Crowned on 31: crown the man on 31."]


def test_russian_says_the_squares_by_letter(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    texts = [line["text"] for line in _replay(tmp_path, "play", "ru", capsys)]
    assert texts[0] == "Чёрные: f6 e5."


def test_speak_moves_only_leaves_the_warnings_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "play.txt"
    path.write_text(PLAY)
    out = tmp_path / "moves"
    assert main(["replay", str(path), "--speech", "de", "--speak", "moves", "--speech-out", str(out)]) == 0
    capsys.readouterr()
    kinds = [json.loads(line)["kind"] for line in (out / "sentences.jsonl").read_text().splitlines()]
    assert set(kinds) == {"move", "result"} and len(kinds) == 6


def test_speech_out_without_speech_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "play.txt"
    path.write_text(PLAY)
    assert main(["replay", str(path), "--speech-out", str(tmp_path / "x")]) == 2
    assert "--speech-out needs --speech LANG" in capsys.readouterr().err
    assert main(["replay", str(path), "--speech", "xx", "--speech-out", str(tmp_path / "x")]) == 2
    assert "no catalogue for language 'xx'" in capsys.readouterr().err
