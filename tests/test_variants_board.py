"""Variants on the board: the tracker, the LED hints and huffing under every rule option.

* Random games of every variant (English with each house rule, giveaway, Russian, pool)
  made by messy human hands (:func:`crownhead.firmware.simulator.hands.human_actions`) are read back exactly
  by the tracker, with no warning; under huffing the games include missed jumps that
  are huffed (the piece lifted off), forced (the ``force`` button and the piece moved
  back) or let stand.
* Hand-made positions check the LED roles of flying kings: targets along a whole
  diagonal, captures at a distance with every landing square, the forced landing square,
  ``must-capture`` when a piece that cannot capture is lifted.
* Huffing scenarios with the exact events.
"""

from __future__ import annotations

import random
import pytest

from crownhead.firmware.simulator.script import parse_script, replay
from crownhead.firmware.events import BoardWarning, Event, Final, MoveMade
from crownhead.firmware.simulator.hands import Action, HumanStyle, human_actions
from crownhead.firmware.tracking.huffing import HUFF_ROLE
from crownhead.firmware.tracking.tracker import HINT_ROLES, ROLES, Kind, Tracker, visible_roles
from crownhead.rules import Game, Move, Position, Rules
from crownhead.rules.game import Huff, JumpForced
from crownhead.rules.settings import Crowning
from crownhead.squares import bit, parse_square
from crownhead.rules.variants import GIVEAWAY, POOL, RUSSIAN

HUFFING = Rules(huffing=True)

#: Every variant and house rule the board plays, by a readable name.
VARIANT_RULES: dict[str, Rules] = {
    "men-capture-backward": Rules(men_capture_backward=True),
    "captures-optional": Rules(captures_compulsory=False),
    "keep-jumping-after-crowning": Rules(crowning=Crowning.CONTINUES_AS_KING),
    "kings-capture-first": Rules(kings_capture_first=True),
    "huffing": HUFFING,
    "giveaway": GIVEAWAY,
    "russian": RUSSIAN,
    "pool": POOL,
    "pool-huffing": POOL.with_options(huffing=True),
}


def sq(name: str) -> int:
    """A square by its a1-h8 name (Russian books), as our number."""
    return parse_square(name)


# -- random games ---------------------------------------------------------------------------


def random_variant_game(rules: Rules, seed: int, plies: int = 70) -> Game:
    """A random game; under huffing each missed jump is huffed, forced or let stand.

    Captures and king moves are preferred a little, so that games reach kings, long
    flying-king moves and captures at a distance within the ply limit.
    """
    rng = random.Random(f"{rules.describe()}/{seed}")
    game = Game(None, rules)
    while game.ply < plies and not game.is_over:
        if game.missed_jump():
            roll = rng.random()
            if roll < 0.45:
                game.huff(rng.choice(game.huffable()))
                continue
            if roll < 0.75:
                game.force_jump()
                continue
        moves = game.legal_moves()
        if not moves:
            break
        kings = game.position.kings
        weighted = [m for m in moves for _ in range(3 if m.is_capture or kings & bit(m.start) else 1)]
        game.play(rng.choice(weighted))
    return game


def wait(ms: int) -> Action:
    return Action("wait", ms)


def script_for(game: Game, seed: int, style: HumanStyle = HumanStyle()) -> list[Action]:
    """The hand actions that play ``game``'s history on the board."""
    rng = random.Random(seed)
    rules = game.rules
    board = Game(game.start, rules)
    actions: list[Action] = []
    last_end = 0
    for entry in game.history:
        if actions:
            think = rng.randint(300, 2500)
            if last_end:
                # The piece that just moved was huffed: until patience_ms it may also be its
                # mover correcting the move (documented), so the huffer waits that long.
                think += 2600
            actions.append(wait(think))
        last_end = 0
        if isinstance(entry, Huff):
            last_end = entry.square if entry.square == board.moves[-1].end else 0
            actions.append(Action("lift", entry.square))
            board.huff(entry.square)
        elif isinstance(entry, JumpForced):
            missed = entry.missed
            # The button, then the piece goes back faster than settle_ms (no warning).
            actions += [
                Action("press", "force"),
                wait(rng.randint(50, 250)),
                Action("lift", missed.end),
                wait(rng.randint(40, 200)),
                Action("place", missed.start),
            ]
            board.force_jump()
        else:
            crowns = board.position.crowns(entry, rules)
            actions += human_actions(entry, rng, style, crowns)
            board.play(entry)
    return actions


def expected_events(game: Game) -> list[tuple[object, ...]]:
    """What the board should report for ``game``'s history, event by event."""
    rules = game.rules
    board = Game(game.start, rules)
    out: list[tuple[object, ...]] = []
    for entry in game.history:
        if isinstance(entry, Huff):
            board.huff(entry.square)
            out.append(("huff", board.ply, str(board.turn), entry.square))
        elif isinstance(entry, JumpForced):
            ply = board.ply
            board.force_jump()
            out.append(("force-jump", ply, str(board.turn), entry.missed.pdn()))
        else:
            crowns = board.position.crowns(entry, rules)
            side = str(board.turn)
            board.play(entry)
            out.append(("move", board.ply, side))
            if crowns:
                out.append(("crown", entry.end))
            if board.missed_jump():
                out.append(("missed-jump", board.ply, side, tuple(board.huffable())))
    if board.result is not None:
        out.append(("game-over", board.result.score, board.result.reason))
    return out


def summary(event: Event) -> tuple[object, ...]:
    data = event.to_json()
    kind = data["event"]
    if kind == "move":
        return (kind, data["ply"], data["side"])
    if kind == "crown":
        return (kind, data["square"])
    if kind == "missed-jump":
        return (kind, data["ply"], data["side"], tuple(data["squares"]))
    if kind == "huff":
        return (kind, data["ply"], data["side"], data["square"])
    if kind == "force-jump":
        return (kind, data["ply"], data["side"], data["move"])
    if kind == "game-over":
        return (kind, data["result"], data["reason"])
    return (kind,)


def check_random_game(name: str, seed: int) -> Game:
    rules = VARIANT_RULES[name]
    game = random_variant_game(rules, seed)
    actions = script_for(game, seed)
    events = replay(actions, game.start, rules, lights=True)
    where = f"{name}, seed {seed}"
    warnings = [e.to_json() for e in events if isinstance(e, BoardWarning)]
    assert warnings == [], f"{where}: clean play raised {warnings[:3]}"
    told = [summary(e) for e in events if e.kind not in ("lights", "final")]
    assert told == expected_events(game), where
    # Routes with the same result may be told apart only by the landings touched: the
    # positions are what must agree, entry by entry.
    read = Game(game.start, rules)
    for e in events:
        if isinstance(e, MoveMade):
            move = Move(tuple(e.path), tuple(e.captures))
            assert move in read.legal_moves(), f"{where}: {move} is not legal"
            read.play(move)
        elif e.kind == "huff":
            read.huff(e.square)  # type: ignore[attr-defined]
        elif e.kind == "force-jump":
            read.force_jump()
        if e.kind in ("move", "huff", "force-jump"):
            assert read.position == replayed(game, len(read.history)).position, where
    for e in events:
        if e.kind == "lights":
            assert set(dict(e.roles).values()) <= set(ROLES), where  # type: ignore[attr-defined]
    final = events[-1]
    assert isinstance(final, Final)
    assert (final.fen, final.plies) == (game.position.fen(), game.ply), where
    return game


def replayed(game: Game, entries: int) -> Game:
    """``game`` after the first ``entries`` entries of its history."""
    out = Game(game.start, game.rules)
    for entry in game.history[:entries]:
        if isinstance(entry, Huff):
            out.huff(entry.square)
        elif isinstance(entry, JumpForced):
            out.force_jump()
        else:
            out.play(entry)
    return out


@pytest.mark.parametrize("name", sorted(VARIANT_RULES))
def test_random_games_of_every_variant_are_read_back_exactly(name: str) -> None:
    for seed in range(1, 7):
        check_random_game(name, seed)


def test_the_random_games_cover_what_they_should() -> None:
    """The random games above do reach flying kings' long moves, huffs and forced jumps."""
    long_king_moves = 0
    for name in ("russian", "pool"):
        for seed in (1, 2):
            game = random_variant_game(VARIANT_RULES[name], seed)
            for before, move in zip(game.positions, game.moves):
                king = before.kings & bit(move.start)
                far = any(abs(a - b) > 5 for a, b in zip(move.path, move.path[1:]))
                long_king_moves += bool(king and far)
    assert long_king_moves >= 5
    huffs = forces = stands = 0
    for name in ("huffing", "pool-huffing"):
        for seed in (1, 2):
            game = random_variant_game(VARIANT_RULES[name], seed)
            history = game.history
            for i, entry in enumerate(history):
                if isinstance(entry, Huff):
                    huffs += 1
                elif isinstance(entry, JumpForced):
                    forces += 1
            replayed = Game(game.start, game.rules)
            for i, entry in enumerate(history):
                if isinstance(entry, Move) and replayed.missed_jump():
                    stands += 1
                if isinstance(entry, Huff):
                    replayed.huff(entry.square)
                elif isinstance(entry, JumpForced):
                    replayed.force_jump()
                else:
                    replayed.play(entry)
    assert huffs >= 3 and forces >= 3 and stands >= 3, (huffs, forces, stands)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(VARIANT_RULES))
def test_many_random_games_of_every_variant(name: str) -> None:
    for seed in range(7, 107):
        check_random_game(name, seed)


# -- flying kings: the LED hints -------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(VARIANT_RULES))
def test_lifting_any_piece_lights_exactly_its_legal_moves(name: str) -> None:
    """In positions of random games, each piece of the side to move is lifted in turn:
    the targets are the first landing squares of its legal moves, the captures the pieces
    those moves jump; a piece that cannot move while others must capture shows them."""
    rules = VARIANT_RULES[name]
    checked = 0
    for seed in (1, 2):
        game = random_variant_game(rules, seed)
        for position in game.positions[::3]:
            legal = position.legal_moves(rules)
            if not legal:
                continue
            for square in sorted(position.pieces()):
                if not position.pieces_of(position.turn) & bit(square):
                    continue
                tracker = Tracker(Game(position, rules))
                roles = lifted(tracker, square)
                mine = [m for m in legal if m.start == square]
                targets = {s for s, r in roles.items() if r == "target"}
                captures = {s for s, r in roles.items() if r == "capture"}
                if mine:
                    assert targets == {m.path[1] for m in mine}, (name, position.fen(), square)
                    assert captures == {c for m in mine for c in m.captures}, (name, position.fen())
                else:
                    assert not targets and not captures
                    jumpers = {m.start for m in legal if m.is_capture}
                    if rules.must_capture and jumpers:
                        must = {s for s, r in roles.items() if r == "must-capture"}
                        assert must == jumpers, (name, position.fen(), square)
                checked += 1
    assert checked > 200


def lifted(tracker: Tracker, square: int, t: int = 1000) -> dict[int, str]:
    tracker.update(tracker.board & ~bit(square), t)
    return tracker.roles


def test_a_lifted_flying_king_lights_its_whole_diagonals() -> None:
    # White king on a1 (29), a black man on h8's corner far away: the king may go to any
    # square of the long diagonal b2-g7 and to nothing else (a1 has one diagonal).
    position = Position.from_fen("W:WK29:B4")
    tracker = Tracker(Game(position, RUSSIAN))
    roles = lifted(tracker, 29)
    targets = sorted(s for s, r in roles.items() if r == "target")
    assert targets == sorted(sq(n) for n in ("b2", "c3", "d4", "e5", "f6", "g7"))
    assert roles[29] == "touched" and 4 not in roles
    # English kings: one square only.
    tracker = Tracker(Game(position, Rules()))
    assert sorted(s for s, r in lifted(tracker, 29).items() if r == "target") == [sq("b2")]


def test_a_king_in_the_centre_lights_four_diagonals_up_to_the_pieces() -> None:
    # King on d4 (18); an own man on f6 (11) blocks one ray, a black man on b6 (9)
    # with a7 (5) behind it occupied blocks another ray; the rest run to the edges.
    position = Position.from_fen("W:WK18,11:B9,5,1")
    tracker = Tracker(Game(position, POOL))
    roles = lifted(tracker, 18)
    targets = {s for s, r in roles.items() if r == "target"}
    expected = {sq(n) for n in ("e5", "c5", "c3", "b2", "a1", "e3", "f2", "g1")}
    assert targets == expected


def test_capture_at_a_distance_lights_the_piece_and_every_landing_square() -> None:
    # White king on a1 must take the black man on e5 (15) from afar; it may land on f6,
    # g7 or h8. The capture is compulsory: no quiet target is lit.
    position = Position.from_fen("W:WK29:B15")
    tracker = Tracker(Game(position, RUSSIAN))
    roles = lifted(tracker, 29)
    assert roles[15] == "capture"
    assert sorted(s for s, r in roles.items() if r == "target") == sorted(sq(n) for n in ("f6", "g7", "h8"))
    # Landing far away, then taking the man off: one move, the king crossed six squares.
    board = tracker.board | bit(sq("h8"))
    assert tracker.update(board, 1500) == []
    assert tracker.roles[15] == "remove"
    events = tracker.update(board & ~bit(15), 2000) + tracker.tick(2300)
    assert [e.to_json() for e in events] == [
        {"t": 2300, "event": "move", "ply": 1, "side": "white", "move": "29x4", "path": [29, 4], "captures": [15]},
        {"t": 2300, "event": "game-over", "result": "0-1", "reason": "no-moves"},
    ]


def test_the_landing_square_that_lets_the_king_jump_on_is_the_only_target() -> None:
    # King a1 takes c3 (22): of the landings d4, e5, f6, g7 only e5 lets it jump on
    # (over d6 = 10 to c7 = 6), so the chain must land there.
    position = Position.from_fen("W:WK29:B22,10")
    tracker = Tracker(Game(position, RUSSIAN))
    roles = lifted(tracker, 29)
    assert sorted(s for s, r in roles.items() if r == "target") == [sq("e5")]
    assert {s for s, r in roles.items() if r == "capture"} == {22, 10}
    # On e5: the next landings of the chain are lit as next-jump.
    tracker.update(tracker.board | bit(sq("e5")), 1400)
    roles = tracker.roles
    assert roles[22] == "remove"
    assert {s for s, r in roles.items() if r == "next-jump"} == {sq("c7"), sq("b8")}
    events = tracker.update(tracker.board & ~bit(sq("e5")), 1800)
    events += tracker.update(tracker.board | bit(sq("b8")), 2200)
    events += tracker.update(tracker.board & ~bit(22) & ~bit(10), 2500) + tracker.tick(2800)
    moves = [e.to_json() for e in events if isinstance(e, MoveMade)]
    assert moves == [
        {
            "t": 2800,
            "event": "move",
            "ply": 1,
            "side": "white",
            "move": "29x1",
            "path": [29, 15, 1],
            "captures": [22, 10],
        }
    ]


def test_must_capture_lights_the_king_that_can_capture_from_afar() -> None:
    # Russian: White's man on 26 cannot capture, the king on a1 can (the man on e5).
    position = Position.from_fen("W:WK29,26:B15,2")
    tracker = Tracker(Game(position, RUSSIAN))
    events = tracker.update(tracker.board & ~bit(26), 1000)
    assert [e.to_json()["code"] for e in events] == ["forced-capture"]
    roles = tracker.roles
    assert roles[29] == "must-capture" and roles[26] == "error"
    assert "must-capture" in HINT_ROLES  # hidden with hints off, like every hint
    assert visible_roles(roles, hints=False) == {26: "error"}


def test_kings_capture_first_lights_the_king_not_the_man() -> None:
    # A man on 22 could take 18 and a king on 30 could take 26: only the king may.
    rules = Rules(kings_capture_first=True)
    position = Position.from_fen("W:WK30,22:B18,26,1")
    tracker = Tracker(Game(position, rules))
    events = tracker.update(tracker.board & ~bit(22), 1000)
    assert [e.to_json()["code"] for e in events] == ["forced-capture"]
    assert tracker.roles[30] == "must-capture"


def test_russian_man_crowned_mid_capture_goes_on_as_a_king_and_is_crowned() -> None:
    # White's man on b6 (9) jumps c7 (6) to d8 (2) on the king row, is crowned there and
    # goes on as a flying king over f6 (11) to g5 (16) or h4 (12); the move ends off the
    # king row with a king, and the board asks for the crown where it ends.
    position = Position.from_fen("W:W9:B6,11")
    (route, *others) = sorted(position.legal_moves(RUSSIAN), key=lambda m: m.path)
    assert route.path[:2] == (9, 2) and route.captures == (6, 11)
    script = "lift 9\nwait 200\nplace 2\nwait 200\nlift 2\nwait 200\nplace 16\nlift 6\nlift 11\n"
    events = [e.to_json() for e in replay(parse_script(script), position, RUSSIAN)]
    kinds = [e["event"] for e in events]
    assert kinds == ["move", "crown", "game-over", "final"]
    assert events[0]["path"] == [9, 2, 16] and events[1]["square"] == 16
    assert events[-1]["fen"] == "B:WK16:B"


# -- huffing ----------------------------------------------------------------------------------

#: Black to move; the man on 9 can jump 14 and on over 22 to 25; 11-15 skips that. White
#: cannot capture 9 (5 is occupied), so taking 9 off can only be a huff.
HUFF_FEN = "B:W14,22,30:B1,5,9,11"


def run_script(text: str, fen: str = HUFF_FEN, rules: Rules = HUFFING, **options: object) -> list[dict]:
    events = replay(parse_script(text), Position.from_fen(fen), rules, **options)  # type: ignore[arg-type]
    return [e.to_json() for e in events]


def told(events: list[dict]) -> list[tuple[str, int]]:
    return [(e["event"], e["t"]) for e in events if e["event"] != "lights"]


MISSED = (
    "black could have jumped with the piece on 9: white may huff it (take it off), "
    "press force or takeback to make black take 11-15 back and jump, or move to let it stand"
)
MISS = "lift 11\nwait 300\nplace 15\nwait 1000\n"


def test_a_missed_jump_is_offered_with_the_huff_role() -> None:
    events = run_script(MISS, lights=True)
    assert events[2:] == [
        {"t": 630, "event": "move", "ply": 1, "side": "black", "move": "11-15", "path": [11, 15], "captures": []},
        {"t": 630, "event": "missed-jump", "ply": 1, "side": "black", "squares": [9], "message": MISSED},
        {"t": 630, "event": "lights", "roles": {"9": "huff", "11": "last-from", "15": "last-to"}},
        {"t": 1300, "event": "final", "fen": "W:W14,22,30:B1,5,9,15", "plies": 1},
    ]
    assert HUFF_ROLE in HINT_ROLES and HUFF_ROLE in ROLES


def test_huff_by_taking_the_piece_off() -> None:
    # White takes 9 off and waits: after settle_ms it is a huff, not a move and not a
    # board out of sync; White is still to move and then moves.
    events = run_script(MISS + "lift 9\nwait 1000\nlift 22\nwait 300\nplace 17\n", lights=True)
    assert [e for e in events if e["event"] not in ("move", "missed-jump", "lights")] == [
        {"t": 1630, "event": "huff", "ply": 1, "side": "white", "square": 9},
        {"t": 2930, "event": "final", "fen": "B:W14,17,30:B1,5,15", "plies": 2},
    ]
    assert [e["move"] for e in events if e["event"] == "move"] == ["11-15", "22-17"]
    lights = [e["roles"] for e in events if e["event"] == "lights" and 1300 <= e["t"] <= 1630]
    assert lights == [{}, {"11": "last-from", "15": "last-to"}]  # the offer is over


def test_huff_then_moving_at_once_is_both() -> None:
    # The opponent lifts its own piece 100 ms after taking the huffed piece off.
    events = run_script(MISS + "lift 9\nwait 100\nlift 22\nwait 300\nplace 17\n")
    assert told(events) == [("move", 630), ("missed-jump", 630), ("huff", 1430), ("move", 2030), ("final", 2030)]


def test_huff_of_a_piece_the_huffer_could_capture_waits_for_patience() -> None:
    # White's man on 14 could take 9 (landing on 5): taking 9 off may be the start of
    # that capture, so the huff is told only after patience_ms...
    fen = "B:W14,30:B9,11,1"
    events = run_script(MISS + "lift 9\nwait 3000\n", fen)
    assert told(events) == [("move", 630), ("missed-jump", 630), ("huff", 3830), ("final", 4300)]
    # ...and when White then does jump 14x5, it is that capture, not a huff.
    events = run_script(MISS + "lift 9\nwait 500\nlift 14\nwait 300\nplace 5\n", fen)
    assert [(e["event"], e.get("move")) for e in events] == [
        ("move", "11-15"),
        ("missed-jump", None),
        ("move", "14x5"),
        ("final", None),
    ]


def test_moving_lets_the_missed_jump_stand() -> None:
    events = run_script(MISS + "lift 22\nwait 300\nplace 17\n", lights=True)
    assert told(events) == [("move", 630), ("missed-jump", 630), ("move", 1930), ("final", 1930)]
    # The huff role stays while White's move is under way, and goes with it.
    assert [e["roles"] for e in events if e["event"] == "lights"][-3:] == [
        {"9": "huff", "17": "target", "18": "target", "22": "touched"},
        {},
        {"17": "last-to", "22": "last-from"},
    ]
    assert events[-1]["fen"] == "B:W14,17,30:B1,5,9,15"


def test_force_button_takes_the_move_back_and_only_a_jump_is_accepted() -> None:
    script = (
        MISS + "press force\nwait 100\nlift 15\nwait 100\nplace 11\nwait 500\n"
        # a plain move is refused now...
        "lift 11\nwait 200\nplace 16\nwait 1000\nlift 16\nwait 100\nplace 11\nwait 500\n"
        # ...the jump is accepted.
        "lift 9\nwait 300\nplace 18\nwait 200\nlift 18\nwait 200\nplace 25\nlift 14\nlift 22\n"
    )
    events = run_script(script, lights=True)
    assert [e for e in events if e["event"] != "lights"] == [
        {"t": 630, "event": "move", "ply": 1, "side": "black", "move": "11-15", "path": [11, 15], "captures": []},
        {"t": 630, "event": "missed-jump", "ply": 1, "side": "black", "squares": [9], "message": MISSED},
        {"t": 1300, "event": "force-jump", "ply": 1, "side": "black", "move": "11-15"},
        {
            "t": 2030,
            "event": "warning",
            "code": "forced-capture",
            "squares": [9],
            "message": "a capture is compulsory: the man on 11 cannot capture; capture with the piece on 9",
        },
        {
            "t": 2530,
            "event": "warning",
            "code": "illegal-move",
            "squares": [11, 16],
            "message": "a capture is compulsory: 11-16 is not allowed; put the man back on 11",
        },
        {
            "t": 4830,
            "event": "move",
            "ply": 1,
            "side": "black",
            "move": "9x25",
            "path": [9, 18, 25],
            "captures": [14, 22],
        },
        {"t": 4830, "event": "final", "fen": "W:W30:B1,5,11,25", "plies": 1},
    ]
    lights = {e["t"]: e["roles"] for e in events if e["event"] == "lights"}
    # After the button the lights guide the piece back: 15 off, 11 on...
    assert lights[1300] == {"11": "missing", "15": "extra"}
    # ...and the man lifted that cannot jump shows which piece must.
    assert lights[2030] == {"9": "must-capture", "11": "error"}


def test_takeback_button_and_restoring_the_board_force_the_jump_too() -> None:
    button = run_script(MISS + "press takeback\n")
    assert told(button) == [("move", 630), ("missed-jump", 630), ("force-jump", 1300), ("final", 1300)]
    board = run_script(MISS + "lift 15\nwait 100\nplace 11\n")
    assert told(board) == [("move", 630), ("missed-jump", 630), ("force-jump", 1730), ("final", 1730)]
    assert board[-1]["fen"] == "B:W14,22,30:B1,5,9,11"


def test_the_mover_may_still_correct_a_move_that_skipped_a_jump() -> None:
    # Casual play: Black picks the man up again and plays 11-16 instead (still no jump).
    events = run_script(MISS + "lift 15\nwait 300\nplace 16\nwait 1000\n")
    assert [(e["event"], e.get("move"), e["t"]) for e in events] == [
        ("move", "11-15", 630),
        ("missed-jump", None, 630),
        ("takeback", None, 1930),
        ("move", "11-16", 1930),
        ("missed-jump", None, 1930),
        ("final", None, 2600),
    ]


def test_a_huff_is_taken_back_with_the_takeback_button() -> None:
    events = run_script(MISS + "lift 9\nwait 1000\npress takeback\nwait 500\nplace 9\n", lights=True)
    assert told(events) == [
        ("move", 630),
        ("missed-jump", 630),
        ("huff", 1630),
        ("huff-takeback", 2300),
        ("final", 2830),
    ]
    assert events[-4:-1] == [
        {"t": 2300, "event": "huff-takeback", "square": 9},
        {"t": 2300, "event": "lights", "roles": {"9": "missing"}},  # put it back
        {"t": 2830, "event": "lights", "roles": {"9": "huff", "11": "last-from", "15": "last-to"}},
    ]


def test_a_huff_is_taken_back_by_putting_the_piece_back() -> None:
    # Where no piece of the huffer could slide onto the square (White's 14 could slide
    # to 9, which reads as a move begun): here the huffed king on 1 comes back.
    tracker = Tracker(Game(Position.from_fen("B:W10,30:BK1,5"), POOL.with_options(huffing=True)))
    board = tracker.board
    tracker.update(board & ~bit(5), 100)
    tracker.update(board & ~bit(5) | bit(9), 400)
    assert [e.kind for e in tracker.tick(700)] == ["move", "missed-jump"]
    board = tracker.board
    tracker.update(board & ~bit(1), 1000)
    assert [e.to_json() for e in tracker.tick(1300)] == [
        {"t": 1300, "event": "huff", "ply": 1, "side": "white", "square": 1}
    ]
    tracker.update(board, 2000)
    assert [e.to_json() for e in tracker.tick(2300)] == [{"t": 2300, "event": "huff-takeback", "square": 1}]
    assert tracker.game.huffable() == [1] and tracker.board_matches


def test_huff_in_a_game_object_and_the_tracker_agree() -> None:
    tracker = Tracker(Game(Position.from_fen(HUFF_FEN), HUFFING))
    board = tracker.board
    tracker.update(board & ~bit(11), 100)
    tracker.update(board & ~bit(11) | bit(15), 400)
    tracker.tick(800)
    assert tracker.game.huffable() == [9] and tracker.roles[9] == HUFF_ROLE
    tracker.update(tracker.board & ~bit(9), 1000)
    assert tracker.reading.kind is Kind.HUFF
    [huff] = tracker.tick(1300)
    assert huff.to_json() == {"t": 1300, "event": "huff", "ply": 1, "side": "white", "square": 9}
    assert isinstance(tracker.game.history[-1], Huff) and tracker.board_matches
    assert tracker.game.turn.name == "WHITE" and HUFF_ROLE not in tracker.roles.values()


def test_without_huffing_taking_the_piece_off_is_out_of_sync() -> None:
    events = run_script(MISS + "lift 9\nwait 1000\n", rules=Rules(captures_compulsory=False))
    assert told(events) == [("move", 630), ("warning", 1630), ("final", 2300)]
    assert events[1]["code"] == "out-of-sync"


def test_pool_with_huffing_a_flying_king_that_missed_a_jump() -> None:
    # Pool with huffing: Black's king on b8 (1) could take d6 (10) from afar, but Black
    # moves the man 5-9 instead; White huffs the king.
    rules = POOL.with_options(huffing=True)
    events = run_script("lift 5\nwait 300\nplace 9\nwait 1000\nlift 1\nwait 3000\n", "B:W10,30:BK1,5", rules)
    assert [(e["event"], e.get("squares"), e.get("square")) for e in events] == [
        ("move", None, None),
        ("missed-jump", [1], None),
        ("huff", None, 1),
        ("final", None, None),
    ]
    assert events[-1]["fen"] == "W:W10,30:B9"


def test_roles_of_every_variant_are_known_to_the_led_policy() -> None:
    from crownhead.firmware.app.leds import ROLES as LED_ROLES

    assert set(ROLES) == LED_ROLES
