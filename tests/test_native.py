"""The native search core against the pure-Python engine, its reference.

Both must agree exactly: the same capture routes and quiet steps, the same perft counts
on every position the tests know (each rule option the fast generator plays), the same
static evaluation, and the same search: move, score, depth, node count and principal
variation at a fixed depth or node budget, with and without the endgame tables, with
repetitions and the 40-move count in the history. Skipped, with the reason, where the
core was not built (no compiler at install time); ``CROWNHEAD_ENGINE=python`` forces the
Python search whatever was built.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from crownhead.rules import WCDF, Position, Rules, movegen
from crownhead.rules.ballots import positions as ballot_positions
from crownhead.rules.engine import Engine, evaluation, native
from crownhead.rules.engine.search import capture_moves
from crownhead.rules.position import Color
from crownhead.squares import bit, mask_of

_built = pytest.mark.skipif(not native.built(), reason=native.describe())

OPTIONS = [
    Rules(),
    Rules(men_capture_backward=True),
    Rules(captures_compulsory=False),
    Rules(men_capture_backward=True, captures_compulsory=False),
]
TESTS = Path(__file__).parent
_FEN = re.compile(r'"([BW]:[BW][^"]*)"')


def known_positions() -> list[Position]:
    """The start, the ballots' positions and every FEN written in the tests that parses."""
    out = {Position.start(): None}
    for p in ballot_positions(WCDF).values():
        out[p] = None
    for path in sorted(TESTS.glob("test_*.py")):
        for fen in _FEN.findall(path.read_text()):
            try:
                p = Position.from_fen(fen)
            except ValueError:
                continue
            out[p] = None
    return list(out)


KNOWN = known_positions()


def test_the_core_is_built_where_there_is_a_compiler() -> None:
    # make test and .ci/run install with the system compiler: where one is on the path
    # the core must have been built, or every native test below would skip unseen.
    import shutil
    import sysconfig

    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        pytest.skip(f"no C compiler ({compiler}) here: the engine searches in Python")
    assert native.built(), native.describe()


def sides(p: Position) -> tuple[int, int, int, bool]:
    black = p.turn == Color.BLACK
    own, opp = (p.black, p.white) if black else (p.white, p.black)
    return own, opp, p.kings, black


def random_positions(n: int, seed: int, plies: int = 120) -> list[Position]:
    """Positions of random games, from the opening to the ending."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        p = Position.start()
        for _ in range(rng.randrange(plies)):
            moves = p.legal_moves(WCDF)
            if not moves:
                break
            p = p.apply(rng.choice(moves), Rules())
        out.append(p)
    return out


def core():  # type: ignore[no-untyped-def]
    core = native.module()
    assert core is not None
    return core


@_built
def test_known_positions_are_many() -> None:
    assert len(KNOWN) > 300  # the 156 ballots and the tests' FENs


@pytest.mark.parametrize("rules", OPTIONS, ids=lambda r: r.describe())
@_built
def test_perft_equal_on_every_known_position(rules: Rules) -> None:
    c = core()
    for p in KNOWN:
        own, opp, kings, black = sides(p)
        depth = 3 if (own | opp).bit_count() > 12 else 4
        args = (own, opp, kings, black, depth, rules.men_capture_backward, rules.must_capture)
        assert c.perft(*args) == movegen.perft(*args), p.to_fen()


@_built
def test_perft_start_published() -> None:
    own, opp, kings, black = sides(Position.start())
    assert core().perft(own, opp, kings, black, 9) == 3963680  # Aart Bik, Cake (tests/test_perft.py)


@_built
def test_perft_differs_when_a_rule_does() -> None:
    # The options reach the core: captures optional count more moves than compulsory.
    own, opp, kings, black = sides(Position.start())
    assert core().perft(own, opp, kings, black, 5, False, False) == 23582
    assert core().perft(own, opp, kings, black, 5, False, True) == 7361


@pytest.mark.parametrize("men_backward", [False, True])
@_built
def test_capture_routes_and_steps_equal(men_backward: bool) -> None:
    c = core()
    for p in KNOWN + random_positions(400, seed=3):
        own, opp, kings, black = sides(p)
        ours = sorted(c.captures(own, opp, kings, black, men_backward))
        assert ours == sorted(capture_moves(own, opp, kings, black, men_backward)), p.to_fen()
        expected = sorted(
            (bit(r[0][0]), bit(r[0][-1]), mask_of(r[1]))
            for r in movegen.capture_routes(own, opp, kings, black, men_backward)
        )
        assert ours == expected
        steps = sorted((f, t) for f, t, _ in c.quiet_moves(own, opp, kings, black))
        assert steps == sorted(movegen.quiet_moves(own, opp, kings, black))


@_built
def test_evaluation_equal() -> None:
    c = core()
    for p in KNOWN + random_positions(1500, seed=5, plies=200):
        own, opp, kings, black = sides(p)
        mobility = movegen.count_quiet(own, opp, kings, black)
        assert c.evaluate(own, opp, kings, black, mobility) == evaluation.evaluate_boards(
            own, opp, kings, black, mobility
        ), p.to_fen()


@_built
def test_patterns_evaluated_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    # Every entry of the two-row patterns' tables counts the same in both walkers: random
    # weights in every table (the shipped ones leave most arrangements at 0), the boards'
    # bytes read from both sides of the board.
    rng = random.Random(11)
    weights = evaluation.check_weights(evaluation.WEIGHTS)
    weights["patterns"] = [
        [[i, rng.randrange(-400, 400)] for i in range(0, evaluation.PATTERN_SIZE, rng.randrange(1, 4))]
        for _ in range(12)
    ]
    monkeypatch.setattr(evaluation, "_PATTERNS", evaluation._dense_patterns(weights["patterns"]))
    c = core()
    c.set_weights(evaluation.native_weights(weights))
    try:
        for p in KNOWN + random_positions(600, seed=12, plies=120):
            own, opp, kings, black = sides(p)
            mobility = movegen.count_quiet(own, opp, kings, black)
            assert c.evaluate(own, opp, kings, black, mobility) == evaluation.evaluate_boards(
                own, opp, kings, black, mobility
            ), p.to_fen()
    finally:
        native.reload_weights()


def test_weights_checked() -> None:
    # Weights of the wrong form (a fit written wrong, a hand edit) are refused with what
    # is wrong, before either walker reads them.
    good = evaluation.check_weights(evaluation.WEIGHTS)
    for name, bad in (
        ("mobility", 2.5),
        ("men", [[0] * 32] * 2),
        ("runaway", [1] * 7),
        ("patterns", [[[evaluation.PATTERN_SIZE, 1]]] + [[]] * 11),
        ("patterns", [[[0, 1 << 15]]] + [[]] * 11),
        ("patterns", [[]] * 11),
    ):
        with pytest.raises(ValueError, match=name if name != "patterns" else "pattern"):
            evaluation.check_weights({**good, name: bad})
    with pytest.raises(ValueError, match="mapping"):
        evaluation.check_weights([])


@_built
def test_weights_are_read_from_the_evaluation(monkeypatch: pytest.MonkeyPatch) -> None:
    # One source for the weights: a change in rules.engine.evaluation reaches the core
    # once handed over, and the test notices a core that kept its own.
    p = Position.from_fen("B:W18,22:B9,K14")
    own, opp, kings, black = sides(p)
    mobility = movegen.count_quiet(own, opp, kings, black)
    before = core().evaluate(own, opp, kings, black, mobility)
    monkeypatch.setattr(evaluation, "KING_VALUE", 300)
    try:
        native.reload_weights()
        assert core().evaluate(own, opp, kings, black, mobility) == evaluation.evaluate_boards(
            own, opp, kings, black, mobility
        )
        assert core().evaluate(own, opp, kings, black, mobility) != before
    finally:
        monkeypatch.undo()
        native.reload_weights()
    assert core().evaluate(own, opp, kings, black, mobility) == before


def both(position: Position, rules: Rules = Rules(), egdb=None, **limits):  # type: ignore[no-untyped-def]
    out = []
    for on in (False, True):
        engine = Engine(rules, native_core=on, egdb=egdb, tt_size=1 << 16)
        assert (engine.native is not None) == on
        r = engine.search(position, **limits)
        out.append((r.move, r.score, r.depth, r.nodes, r.pv))
    return out


@pytest.mark.parametrize("rules", OPTIONS, ids=lambda r: r.describe())
@_built
def test_same_search_at_fixed_depth_on_the_ballots(rules: Rules) -> None:
    ballots = list(ballot_positions(rules).values())[:: 8 if rules == Rules() else 26]
    for p in ballots:
        python, ours = both(p, rules, depth=6)
        assert python == ours, p.to_fen()


@_built
def test_same_search_on_random_positions_and_node_budgets() -> None:
    for i, p in enumerate(random_positions(24, seed=11, plies=90)):
        if not p.legal_moves(WCDF):
            continue
        limits = {"depth": 7} if i % 2 else {"nodes": 6000}
        python, ours = both(p, **limits)  # type: ignore[arg-type]
        assert python == ours, (p.to_fen(), limits)


@_built
def test_same_search_with_history_and_forty_move_count() -> None:
    # Kings shuffling: repetitions of the game and the 40-move count decide the tree.
    history = [Position.from_fen(f) for f in ("B:WK30,K26:BK5,K9", "W:WK30,K26:BK1,K9", "B:WK30,K22:BK1,K9")]
    p = Position.from_fen("W:WK30,K22:BK5,K9")
    for quiet in (None, 60, 77):
        python, ours = both(p, depth=9, history=history, quiet_plies=quiet)
        assert python == ours, quiet


@_built
def test_same_search_with_the_shipped_tables() -> None:
    from crownhead.firmware.egdb import load_probe

    probe = load_probe()
    if probe is None:
        pytest.skip("no endgame tables shipped in this checkout")
    fens = [
        "W:WK19,K23:BK28,12",  # first position (four pieces, with distances)
        "B:W13,20,26:B1,3,K5",  # five pieces, won/drawn/lost only
        "B:W21,25,K30:B6,K10,11",  # six
        "W:W18,22,25,K30:B6,10,11,K2",  # eight: tables below the root
    ]
    # The native search reads the tables with its own probe, in C (not the callback).
    assert native.probe_of(probe) is not None
    for fen in fens:
        python, ours = both(Position.from_fen(fen), egdb=probe, depth=8)
        assert python == ours, fen


def _table_positions(rng: random.Random, count: int, most: int) -> list[tuple[int, int, int, bool]]:
    """Random positions of 2 to ``most`` pieces, men anywhere (on their crowning row too,
    which no table covers), either side to move: what a search may ask the tables."""
    out = []
    for _ in range(count):
        n = rng.randint(2, most)
        squares = rng.sample(range(32), n)
        split = rng.randint(0 if rng.random() < 0.02 else 1, n - 1)  # now and then a side with none
        own = opp = kings = 0
        for i, s in enumerate(squares):
            if i < split:
                own |= 1 << s
            else:
                opp |= 1 << s
            if rng.random() < 0.5:
                kings |= 1 << s
        out.append((own, opp, kings, rng.random() < 0.5))
    return out


@_built
def test_the_native_probe_gives_the_python_probes_values() -> None:
    """The probe in C (index, block reads, the captures a win/draw/loss table keeps no
    value for) against EndgameTables.value: tables in memory with distances, and the
    shipped ones (2-4 pieces with distances, read whole; 5-6 win/draw/loss, in blocks)."""
    from crownhead.firmware.egdb import load_probe
    from crownhead.rules.engine.egdb import EndgameTables, build

    rng = random.Random(39)
    shipped = load_probe()
    for tables in (EndgameTables(build(2)), shipped):
        if tables is None:
            continue
        probe = native.probe_of(tables)
        assert probe is not None and native.probe_of(tables) is probe  # made once
        positions = _table_positions(rng, 3000, tables.pieces + 1)
        values = [tables.value(*p) for p in positions]
        assert [probe.value(*p) for p in positions] == values  # type: ignore[attr-defined]
        # Every kind of answer was asked for: none, drawn, won and lost.
        assert {None, 0} <= set(values) and any(v for v in values if v is not None and v & 1)
    # A probe that is not EndgameTables (or whose tables cannot be read in blocks) is
    # called back instead.
    assert native.probe_of(None) is None
    # Searchers read a probe without the GIL: it cannot be made again under them.
    with pytest.raises(RuntimeError, match="made once"):
        probe.__init__(2, [], print, 256)  # type: ignore[misc]


@_built
def test_a_damaged_block_found_by_the_native_probe_is_reported_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    import logging

    from crownhead.firmware.egdb import SHIPPED, blocks, default_dir, load_probe
    from crownhead.rules.engine.egdb import boards_of, material_of

    folder = default_dir(tmp_path)
    folder.mkdir(parents=True)
    name = "egdb-2111.wdl"
    good = blocks.WdlTable(SHIPPED / name, (2, 1, 1, 1), blocks.BlockCache())
    n = 1
    start, end = good.offsets[n], good.offsets[n + 1]
    good.close()
    data = bytearray((SHIPPED / name).read_bytes())
    data[start:end] = bytes(end - start)  # block 1 no longer inflates
    (folder / name).write_bytes(data)
    tables = load_probe(state_dir=tmp_path)
    assert tables is not None
    probe = native.probe_of(tables)
    assert probe is not None
    material = (2, 1, 1, 1)
    index = next(
        i
        for i in range(n * blocks.WDL_BLOCK, (n + 1) * blocks.WDL_BLOCK)
        if (b := boards_of(i, material)) is not None and not movegen.jumpers(*b, True)
    )
    own, opp, kings = boards_of(index, material)  # type: ignore[misc]
    assert material_of(own, opp, kings) == material
    with caplog.at_level(logging.WARNING, logger="crownhead.firmware.egdb"):
        assert probe.value(own, opp, kings, True) is None  # type: ignore[attr-defined]
        assert probe.value(own, opp, kings, True) is None  # type: ignore[attr-defined]
    assert caplog.text.count("egdb-2111.wdl: block 1") == 1 and material not in tables.tables


@_built
def test_python_can_be_chosen() -> None:
    was = native.wanted()
    try:
        native.choose("python")
        assert native.core() is None
        assert Engine().native is None
        assert "CROWNHEAD_ENGINE=python" in native.describe()
        assert Engine(native_core=True).native is not None  # insisting overrides the choice
        native.choose("native")
        assert Engine().native is not None
    finally:
        native.choose("native" if was else "python")  # as the suite was run (CROWNHEAD_ENGINE)


@_built
def test_the_command_reads_the_environment(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    code = "from crownhead.firmware.cli import main; main(['perft', '--depth', '1']); from crownhead.rules.engine import native; print(native.describe())"
    for value, said in (("python", "pure-Python search"), ("native", "native search core"), ("fast", "")):
        env = {**os.environ, native.ENV: value}
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=tmp_path)
        if said:
            assert said in out.stdout, out.stderr
        else:  # one clear error naming the problem
            assert out.returncode == 2 and "CROWNHEAD_ENGINE is native or python, not 'fast'" in out.stderr


@_built
def test_other_rules_search_in_python() -> None:
    # Flying kings are the general search's: no native core for them.
    assert Engine(Rules(flying_kings=True), native_core=True).native is None


@_built
def test_verify_keys_turns_to_the_python_search() -> None:
    engine = Engine(native_core=True)
    engine.verify_keys = True
    assert engine.native is None
    assert engine.search(Position.start(), depth=5).depth == 5


@_built
def test_table_probe_and_store_as_the_python_table() -> None:
    from crownhead.rules.engine.tt import EXACT, TranspositionTable

    ours = core().Table(1000)
    python = TranspositionTable(1000)
    assert len(ours) == len(python) == 1024
    mid = bit(9) | bit(14) << 32 | (bit(10) | bit(18)) << 64
    for table in (ours, python):
        table.new_search()
        table.store(0xBEEF, depth=3, bound=EXACT, score=-9_990, move_id=mid)
    assert ours.probe(0xBEEF) == python.probe(0xBEEF)
    assert ours.probe(0xBEEF + 1024) is None
    with pytest.raises(ValueError):
        core().Table(0)


@_built
def test_table_size_in_megabytes() -> None:
    from crownhead.rules.engine.search import NATIVE_SLOT_BYTES

    assert core().ENTRY_BYTES == NATIVE_SLOT_BYTES
    engine = Engine(native_core=True, tt_mb=48)
    assert len(engine.tt) == 1 << 21 and engine.tt.bytes == 48 * 2**20  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="some memory"):
        Engine(tt_mb=0)


@_built
def test_aspiration_is_the_same_both_ways() -> None:
    # The root is Python's for both: a window there keeps the trees alike.
    narrower = 0
    for p in list(ballot_positions(WCDF).values())[::40]:
        found = []
        for on in (False, True):
            for window in (0, 10):
                engine = Engine(native_core=on, tt_size=1 << 16)
                engine.aspiration = window
                r = engine.search(p, depth=7)
                found.append((window, r.move, r.score, r.nodes))
        assert found[0] == found[2] and found[1] == found[3], p.to_fen()
        narrower += found[1][3] < found[0][3]
    assert narrower  # the window reaches the tree


@_built
def test_master_book_at_full_strength() -> None:
    from crownhead.rules.engine.book import MasterBook
    from crownhead.rules.engine.masters import MASTER_MOVES

    start = Position.start()
    book = MasterBook()
    moves = book.moves(start)
    assert {m.pdn() for m in moves} >= {"11-15", "9-14", "10-15"} and all(w > 0 for w in moves.values())
    # Each entry's move is legal where it stands (bench/book.py --check rebuilds it).
    assert len(book) > 400 and len(MASTER_MOVES) > 1000
    for fen, text, games, points in MASTER_MOVES[::50]:
        assert Position.from_fen(fen).parse_move(text, WCDF) in Position.from_fen(fen).legal_moves(WCDF)
        assert 0 < points <= games
    drawn = {str(Engine(seed=s).search(start, book=True).move) for s in range(40)}
    assert len(drawn) > 2 and drawn <= {m.pdn() for m in moves}
    result = Engine().search(start, book=True)
    assert result.depth == 0 and result.pv == (result.move,)
    # A position out of both books is searched.
    assert Engine().search(Position.from_fen("W:WK19,K23:BK28,12"), book=True, depth=3).depth == 3
    # The levels keep the ballots: level 5's first move is a ballot's.
    ballot_firsts = {b.moves[0] for b in __import__("crownhead.rules.ballots", fromlist=["deck"]).deck()}
    assert str(Engine(seed=3).search(start, strength=5).move) in ballot_firsts


@_built
def test_an_error_in_the_clock_or_a_probe_surfaces() -> None:
    # The tree is walked without the GIL; what Python raises in a callback unwinds it.
    calls = [0]

    def clock() -> float:
        calls[0] += 1
        if calls[0] > 50:
            raise RuntimeError("clock broke")
        return 0.0

    with pytest.raises(RuntimeError, match="clock broke"):
        Engine(native_core=True, clock=clock).search(Position.start(), movetime_ms=1000)

    class Broken:
        pieces = 6

        def value(self, own: int, opp: int, kings: int, black: bool) -> int | None:
            raise KeyError("probe broke")

    with pytest.raises(KeyError, match="probe broke"):
        Engine(native_core=True, egdb=Broken()).search(Position.from_fen("W:WK19,K23:BK28,12"), depth=3)
    # and the next search runs as before
    assert Engine(native_core=True).search(Position.start(), depth=6).depth == 6


def test_a_core_not_built_names_the_real_cause() -> None:
    """Issue 52: gcc was there but Python.h was not, and the board said to install a C
    compiler. The cause is the missing piece: the headers, the compiler, or both."""
    from crownhead.extras import build_cause

    assert "python3-dev" in build_cause(headers=False, compiler=True)
    assert "compiler" not in build_cause(headers=False, compiler=True)
    assert "build-essential" in build_cause(headers=True, compiler=False)
    assert "python3-dev" not in build_cause(headers=True, compiler=False)
    both = build_cause(headers=False, compiler=False)
    assert "python3-dev" in both and "build-essential" in both
    assert "reinstall with a C compiler (gcc) present" not in Path(native.__file__).read_text()
