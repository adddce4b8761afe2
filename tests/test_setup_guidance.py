"""Set-up guidance a rank at a time (issue 43): the order of the ranks, the lights of each
rank, and the sentence said for it, on the whole application and its simulated board."""

from __future__ import annotations

from pathlib import Path

from crownhead.firmware.app.guidance import rank_squares, rank_steps
from crownhead.firmware.app.players import Human, RandomMover
from crownhead.firmware.app.settings import AppSettings
from crownhead.firmware.tracking.roles import Role
from crownhead.firmware.voice.adapter import BoardVoice
from crownhead.firmware.voice.phrases import Phrasebook
from crownhead.rules import BLACK, WCDF, WHITE, Position

from helpers.rig import Rig

#: Pieces on six ranks, kings among them.
SCATTERED = Position.from_fen("B:W21,22,K26,30:B1,K6,9,10,14")


def _lit(rig: Rig) -> dict[int, str]:
    return {s: r for s, r in rig.app.lit_roles.items() if r in (Role.MISSING, Role.EXTRA)}


def _fill_rank(rig: Rig) -> None:
    """A person's hands do the rank the lights show: off what is lit to come off, the
    piece said put where one is missing."""
    target = rig.app.setting_up
    assert target is not None
    for square, role in sorted(_lit(rig).items()):
        if role == Role.EXTRA:
            rig.sim.lift(square)
            rig.sim.hand.pop()
        else:
            piece = target.piece_at(square)
            assert piece is not None
            rig.sim.place(square, piece.symbol)
    rig.wait(100)


def test_the_ranks_come_from_the_side_of_the_person_setting_up() -> None:
    white = [s.rank for s in rank_steps(SCATTERED, 0, WHITE)]
    black = [s.rank for s in rank_steps(SCATTERED, 0, BLACK)]
    assert white == [1, 2, 3, 5, 6, 7, 8] and black == list(reversed(white))
    # What is already right is no step; what stands where nothing belongs is emptied.
    board = SCATTERED.occupied | 1 << 31  # a stray piece on 32
    (first, *_rest) = rank_steps(SCATTERED, board, WHITE)
    assert (first.rank, first.fill, first.empty) == (1, (), (32,))


def test_a_position_is_lit_and_said_one_rank_at_a_time_nearest_first(tmp_path: Path) -> None:
    # Against the machine (White): the person plays Black and sits at Black's side.
    rig = Rig(
        tmp_path,
        board={},
        settings=AppSettings(mode="computer", start=SCATTERED),
        players={BLACK: Human("Ann"), WHITE: RandomMover(1)},
        start=False,
    )
    voice = BoardVoice(None, Phrasebook("en")).attach(rig.app)
    rig.app.start()
    rig.wait(100)
    shown: list[tuple[int, dict[int, str]]] = []
    while rig.app.setting_up is not None:
        step = rig.app.guide.step
        assert step is not None
        lit = _lit(rig)
        assert set(lit) <= set(rank_squares(step.rank))  # never more than one rank
        shown.append((step.rank, lit))
        _fill_rank(rig)
        assert len(shown) < 10
    assert [rank for rank, _ in shown] == [8, 7, 6, 5, 3, 2, 1]  # Black's side first
    assert shown[2][1] == {9: Role.MISSING, 10: Role.MISSING}
    assert rig.app.game.start == SCATTERED
    said = [s.text for s in voice.said]
    rank6 = said.index("Rank 6, squares 9 to 12.")
    assert said[rank6 + 1] == "Black men on 9 and 10."
    rank7 = said.index("Rank 7, squares 5 to 8.")
    assert said[rank7 + 1] == "Black kings on 6."
    assert "Rank 3, squares 21 to 24." in said and "White men on 21 and 22." in said
    assert "Rank 4, squares 17 to 20." not in said  # nothing to do there
    events = rig.of_kind("setup-rank")
    assert [e["rank"] for e in events] == [8, 7, 6, 5, 3, 2, 1]
    assert [e["left"] for e in events] == [7, 6, 5, 4, 3, 2, 1]


def test_what_comes_off_is_said_and_a_rank_begun_is_finished_first(tmp_path: Path) -> None:
    # The start position stands; a new game from SCATTERED (two players: White's side first).
    rig = Rig(tmp_path, start=False)
    voice = BoardVoice(None, Phrasebook("en")).attach(rig.app)
    rig.app.start()
    rig.wait(100)
    mark = voice.said_count
    rig.app.new_game(SCATTERED, rig.clock.now_ms())
    rig.wait(100)
    # The men on 26 and 6 must become kings, which the switches cannot see: their ranks
    # come first, while the pieces can still be told apart by being lifted.
    assert [s.rank for s in rank_steps(SCATTERED, rig.app.tracker.board, WHITE, Position.start().pieces())] == [
        2,
        7,
        1,
        3,
        5,
        6,
        8,
    ]
    assert rig.app.guide.step is not None and rig.app.guide.step.rank == 2
    assert _lit(rig) == {25: Role.EXTRA, 26: Role.EXTRA, 27: Role.EXTRA, 28: Role.EXTRA}
    said = [s.text for s in voice.said_since(mark)]
    assert said[said.index("Rank 2, squares 25 to 28.") + 1 :][:3] == [
        "White kings on 26.",
        "Take the pieces off 25, 27 and 28.",
        "The piece on 26 is the wrong one: lift it and put the one named.",
    ]
    rig.sim.lift(25)
    rig.sim.hand.pop()
    rig.wait(100)
    # A piece knocked off a rank nearer meanwhile: rank 2 is finished first.
    rig.sim.lift(30)
    rig.sim.hand.pop()
    rig.wait(100)
    assert rig.app.guide.step is not None and rig.app.guide.step.rank == 2
    assert _lit(rig) == {26: Role.EXTRA, 27: Role.EXTRA, 28: Role.EXTRA}
    _fill_rank(rig)
    assert _lit(rig) == {26: Role.MISSING}  # the man lifted: now the king
    _fill_rank(rig)
    assert rig.sim.pieces[26] == "W"
    assert rig.app.guide.step is not None and rig.app.guide.step.rank == 7  # the other man to crown
    assert _lit(rig) == {5: Role.EXTRA, 6: Role.EXTRA, 7: Role.EXTRA, 8: Role.EXTRA}
    _fill_rank(rig)
    _fill_rank(rig)
    assert rig.app.guide.step is not None and rig.app.guide.step.rank == 1  # the knocked man's
    assert _lit(rig) == {29: Role.EXTRA, 30: Role.MISSING, 31: Role.EXTRA, 32: Role.EXTRA}


def test_a_piece_of_the_game_before_standing_where_another_belongs_is_changed(tmp_path: Path) -> None:
    # A White king stands on 26 in the game before; the new position has a Black man there.
    before = Position.from_fen("B:WK26,30:B1")
    after = Position.from_fen("W:W30:B1,5,26")
    rig = Rig(tmp_path, board=before, settings=AppSettings(start=before))
    rig.wait(100)
    rig.app.new_game(after, rig.clock.now_ms())
    rig.wait(100)
    # Two squares: lit at once, the king to come off as well as the man to go on 5.
    assert rig.app.setting_up == after and rig.app.guide.at_once
    assert _lit(rig) == {5: Role.MISSING, 26: Role.EXTRA}
    rig.sim.lift(26)
    rig.sim.hand.pop()
    rig.wait(100)
    assert _lit(rig) == {5: Role.MISSING, 26: Role.MISSING}
    rig.sim.place(26, "b")
    rig.sim.place(5, "b")
    rig.wait(100)
    assert rig.app.setting_up is None and rig.app.game.start == after


def test_a_few_squares_are_lit_at_once(tmp_path: Path) -> None:
    # A takeback (cause restore) and a set-up a move away keep every square lit together.
    rig = Rig(tmp_path)
    rig.do("11-15")
    rig.do("t")
    assert _lit(rig) == {11: Role.MISSING, 15: Role.EXTRA}
    rig.do("f")
    start = Position.start()
    rig.app.new_game(start.apply(start.moves_matching("9-14", WCDF)[0], rig.app.game.rules), rig.clock.now_ms())
    rig.wait(100)
    assert rig.app.guide.at_once and _lit(rig) == {9: Role.EXTRA, 14: Role.MISSING}
    assert rig.of_kind("setup-rank") == []


def test_the_rank_is_said_in_every_language() -> None:
    from crownhead.firmware.events import SetUpRank
    from crownhead.firmware.voice.adapter import Narrator, Seen
    from crownhead.rules import WCDF

    event = SetUpRank(0, "new-game", 3, 21, 24, (), (), (21, 22), (), (23,), (24,), 5)
    for lang, head in (
        ("de", "Reihe 3, Felder 21 bis 24."),
        ("fr", "Rangée 3, cases 21 à 24."),
        ("nl", "Rij 3, velden 21 tot 24."),
        ("es", "Fila 3, casillas 21 a 24."),
        ("ru", "Горизонталь 3, поля с a3 по g3."),
    ):
        sentences = list(Phrasebook(lang).sentences(Narrator(Seen(Position.start(WCDF), (), WCDF)).hear(event)))
        assert sentences[0].text == head, (lang, sentences[0].text)
        assert len(sentences) == 4


def test_the_screen_says_which_rank_is_lit(tmp_path: Path) -> None:
    rig = Rig(tmp_path, board={}, settings=AppSettings(start=SCATTERED))
    rig.wait(100)
    prompt = rig.app.view().prompt
    assert prompt.startswith("Set up Black men on 1, 9, 10 and 14, king on 6;")
    assert ": rank 1 (29-32) now: put pieces on the blue squares" in prompt
    assert rig.app.snapshot.setup is not None and rig.app.snapshot.setup.rank == 1
