"""One PDN writer (``crownhead.rules.pdn.PdnExporter``) and one move text (``crownhead.rules.pdn.move_text``).

Every writer of the project (a board's saved game, a referee's record, the hall's state,
the link's ``pdn`` answer, ``write_game``) walks its game through the exporter, so the
escapes, the tag order, the numbering and the notation are written in one place. Checked
twice: no other module formats a tag pair or defines a move text (from the source), and
what each writer writes reads back as it was meant (names with quotes and backslashes,
comments with braces).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from crownhead.firmware.referee.record import TournamentRecord
from crownhead.firmware.storage.store import GameRecord, pdn_text
from crownhead.rules import RUSSIAN, WCDF, Game, Move, Position, Rules
from crownhead.rules.pdn import PdnExporter, move_text, read_game, write_game

REPO = Path(__file__).resolve().parents[1]
WRITER = "rules/pdn.py"
#: A tag pair as a format string or a literal writes it: ``[Event "..."]``, ``[{k} "{v}"]``.
_TAG_PAIR = re.compile(r'\[(?:[A-Za-z][A-Za-z0-9_]*|\{\})[ \t]+\\?"(?:[^"\n]*|\{\})\\?"\]')

NAMES = ('Ann "The Rock" O\\Neil', "Bob \\ {Braces} [and] 'quotes'")


def _sources() -> list[Path]:
    return sorted(p for pkg in ("squares", "rules", "hal", "sim", "firmware") for p in (REPO / pkg).rglob("*.py"))


def _written_strings(tree: ast.AST) -> list[tuple[int, str]]:
    """The string literals and f-strings of a module (f-string fields as ``{}``), its
    docstrings left out (their examples show PDN, they do not write it)."""
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                docstrings.add(id(body[0].value))
    inside_fstrings = {id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for v in n.values}
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            text = "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
            out.append((node.lineno, str(text)))
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docstrings
            and id(node) not in inside_fstrings
        ):
            out.append((node.lineno, node.value))
    return out


def test_the_check_sees_a_tag_pair_however_it_is_written() -> None:
    tree = ast.parse(
        "def f(k, v):\n"
        "    '''[Event \"in a docstring\"]'''\n"
        "    a = f'[{k} \"{v}\"]'\n"
        "    b = '[Event \"Club\"]'\n"
        "    c = f'[Result \"{v}\"]'\n"
        "    d = '[' + k + ' \"' + v + '\"]'\n"
    )
    found = [text for _, text in _written_strings(tree) if _TAG_PAIR.search(text)]
    assert found == ['[{} "{}"]', '[Event "Club"]', '[Result "{}"]']


@pytest.mark.parametrize("path", _sources(), ids=lambda p: str(p.relative_to(REPO)))
def test_no_module_but_the_exporter_writes_pdn(path: Path) -> None:
    relative = str(path.relative_to(REPO))
    if relative == WRITER:
        return
    tree = ast.parse(path.read_text(encoding="utf-8"))
    tag_pairs = [f"{relative}:{line}: {text!r}" for line, text in _written_strings(tree) if _TAG_PAIR.search(text)]
    assert tag_pairs == [], "PDN tag pairs are written by rules.pdn.PdnExporter only"
    own = [
        f"{relative}:{node.lineno}: def {node.name}"
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in ("move_text", "pdn_escape")
    ]
    assert own == [], "the one move text is rules.pdn.move_text"


def test_the_exporter_is_the_only_module_with_a_tag_pair_among_its_strings() -> None:
    # The other half of the check above: the pattern does find the writer's own format.
    tree = ast.parse((REPO / WRITER).read_text(encoding="utf-8"))
    assert any(_TAG_PAIR.search(text) for _, text in _written_strings(tree))


# -- what each writer writes reads back ------------------------------------------------------


def _game() -> Game:
    game = Game(None, WCDF)
    for text in ("11-15", "23-19", "8-11", "22-17"):
        game.play_text(text)
    return game


def _read_back(text: str, rules: Rules = WCDF):  # noqa: ANN202
    game = read_game(text, rules=rules)
    assert game is not None and game.error is None, text
    return game


def test_a_saved_games_names_read_back_as_they_were() -> None:
    black, white = NAMES
    record = GameRecord.new(black=black, white=white, event='Club "open"', now="2026-05-04T20:00:00+00:00", rules=WCDF)
    record = record.with_game(_game())
    back = _read_back(pdn_text(record))
    assert back.tags["Black"] == black and back.tags["White"] == white and back.tags["Event"] == 'Club "open"'
    assert back.moves == list(_game().moves)


def test_a_referees_names_and_notes_read_back() -> None:
    black, white = NAMES
    record = TournamentRecord(event="Final", black=black, white=white, date="2026.11.29")
    record.note(2, "Black said {draw?} and \\ then resigned")
    back = _read_back(record.pdn(_game()))
    assert (back.tags["Black"], back.tags["White"]) == NAMES
    # A comment cannot hold a closing brace: braces are kept as parentheses, and nothing
    # after the comment is lost.
    assert back.comments == {2: ["Black said (draw?) and \\ then resigned"]}
    assert back.moves == list(_game().moves)


def test_write_game_and_the_stores_writer_write_the_same_text() -> None:
    record = GameRecord.new(black=NAMES[0], white=NAMES[1], now="2026-05-04T20:00:00+00:00", rules=WCDF).with_game(
        _game()
    )
    assert pdn_text(record) == write_game(_game(), record.tags(), result="*")


def test_a_tag_value_on_several_lines_is_written_on_one() -> None:
    text = write_game(_game(), {"Event": "Club\nfinal", "Annotator": "a\r\nb"})
    back = _read_back(text)
    assert back.tags["Event"] == "Club final" and back.tags["Annotator"] == "a b"


def test_a_russian_game_is_written_in_its_notation_and_reads_back() -> None:
    game = Game(Position.start(RUSSIAN), RUSSIAN)
    for move in (Move((22, 18)), Move((11, 15)), Move((18, 11), (15,))):
        game.play(move)
    text = write_game(game, {"Black": NAMES[0]})
    assert "1. c3-d4 f6-e5 2. d4:f6" in text
    back = _read_back(text, RUSSIAN)
    assert back.moves == list(game.moves) and back.tags["Black"] == NAMES[0]


def test_the_exporter_refuses_a_tag_name_that_would_break_the_file() -> None:
    out = PdnExporter(Position.start(), WCDF)
    with pytest.raises(ValueError, match="tag name"):
        out.visit_tags({'Bad "name"': "x"}, "*")


def test_move_text_has_no_default_rules() -> None:
    position = Position.start()
    with pytest.raises(TypeError):
        move_text(position, Move((11, 15)))  # type: ignore[call-arg]


# -- games saved before the one writer still load ---------------------------------------------

#: A finished game as the board wrote it before (no Round tag, its own escapes).
OLD_GAME_FILE = """[Event "Home game"]
[Site "Kitchen \\\\ table"]
[Date "2026.05.04"]
[Black "Ann \\"The Rock\\""]
[White "Bob"]
[Result "0-1"]
[GameType "21"]
[Termination "resign"]

1. 11-15 23-19 2. 8-11 22-17 0-1
"""

#: The game in progress as the board kept it before (format 1, as it still is).
OLD_CURRENT = """{
 "format": 1,
 "id": "20260504-200000-123abcd",
 "started": "2026-05-04T20:00:00+00:00",
 "moves": ["11-15", "23-19", "8-11"],
 "start_fen": null,
 "men_capture_backward": false,
 "captures_compulsory": true,
 "flying_kings": false,
 "crowning": "ends-move",
 "kings_capture_first": false,
 "huffing": false,
 "first_mover": "black",
 "giveaway": false,
 "variant": "english",
 "history": [],
 "condoned": [],
 "black": "Ann \\"The Rock\\"",
 "white": "Bob",
 "event": "Casual game",
 "site": "?",
 "mode": "play",
 "settings": {},
 "result": null,
 "reason": null,
 "extra": {}
}
"""


def test_a_game_file_saved_before_reads_and_lists_as_it_did(tmp_path: Path) -> None:
    from crownhead.firmware.storage.store import GameStore

    store = GameStore(tmp_path)
    store.games_dir.mkdir(parents=True)
    (store.games_dir / "20260504-200000-123abcd.pdn").write_text(OLD_GAME_FILE)
    (listed,) = store.list_games()
    assert listed.tags["Black"] == 'Ann "The Rock"' and listed.tags["Site"] == "Kitchen \\ table"
    assert listed.plies == 4 and listed.result == "0-1"
    back = _read_back(store.export())
    assert [str(m) for m in back.moves] == ["11-15", "23-19", "8-11", "22-17"] and back.result == "0-1"


def test_a_game_in_progress_saved_before_resumes_and_finishes_through_the_exporter(tmp_path: Path) -> None:
    from crownhead.firmware.storage.store import GameStore

    store = GameStore(tmp_path)
    store.games_dir.mkdir(parents=True)
    store.current_path.write_text(OLD_CURRENT)
    record = store.load_current()
    assert record is not None and record.black == 'Ann "The Rock"'
    game = record.to_game()
    game.play_text("22-17")
    game.resign()
    path = store.finish(record.with_game(game))
    back = _read_back(path.read_text())
    assert back.tags["Black"] == 'Ann "The Rock"' and back.result == "0-1" and len(back.moves) == 4
