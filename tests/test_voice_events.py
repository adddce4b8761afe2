"""Every kind of event, and every request, said in every language: no sentence of a
catalogue left unused, none failing, every one naming the squares it is about."""

from __future__ import annotations

import pytest

from crownhead.firmware.events import (
    EVENT_KINDS,
    OFFENCE_CODES,
    WARNING_CODES,
    Alert,
    BallotDrawn,
    BoardWarning,
    Caution,
    Claim,
    ClockReport,
    ComputerMove,
    Condoned,
    Crowned,
    DrawClaimable,
    DrawDeclined,
    DrawLapsed,
    DrawOffer,
    Event,
    Final,
    Flag,
    ForcedJump,
    Forfeit,
    GameOver,
    GameSaved,
    GameStarted,
    HuffTakenBack,
    Huffed,
    Lights,
    MatchScore,
    ProblemReport,
    MissedJump,
    MoveMade,
    NewGame,
    Notice,
    Reopened,
    ResignAsked,
    SetUp,
    SetUpRank,
    Spoken,
    TakebackAsked,
    TakenBack,
)
from crownhead.firmware.voice.adapter import Narrator, Seen
from crownhead.firmware.voice.catalogue import LANGUAGES, load_catalogue
from crownhead.firmware.voice.phrases import Phrasebook
from crownhead.firmware.voice.utterance import Utterance
from crownhead.rules import WCDF, Move, Position

START = "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"


def _events() -> list[Event]:
    """A sample of every kind, in an order a game could give them."""
    events: list[Event] = [
        NewGame(0, START),
        TakenBack(0, 3),  # no move heard yet: said by its number
        SetUp(0, "new-game", START, tuple(range(1, 13)), (), tuple(range(21, 33)), (), (12,)),
        SetUp(0, "resume", "B:W18,K30:B9,K2", (2, 9), (2,), (18, 30), (30,), (2, 9, 18, 30)),
        SetUpRank(0, "new-game", 1, 29, 32, (), (), (29, 30), (31,), (32,), (), 4),
        SetUpRank(0, "resume", 5, 13, 16, (14,), (13,), (), (), (15, 16), (14,), 1),
        GameStarted(0, True, 2, START, "g1"),
        BallotDrawn(0, 1, ("9-13", "21-17", "5-9"), "Old Faithful"),
        MoveMade(100, 1, "black", "11-15", (11, 15), ()),
        Lights.of(150, {22: "hint-from", 18: "hint-to"}),
        ComputerMove(200, "white", "Engine", "22-18", (22, 18), ()),
        MoveMade(300, 2, "white", "22-18", (22, 18), ()),
        Lights.of(310, {15: "hint-from", 22: "hint-to", 18: "hint-capture"}),
        SetUp(320, "restore", START, (), (), (), (), (18, 22)),
        SetUp(330, "restore", "B:W18:B15", (15,), (), (18,), (), (18,)),
        SetUp(340, "restore", "B:W18:B15", (15,), (), (18,), (), (22,)),
        SetUp(350, "restore", "B:W18:B15", (15,), (), (18,), (), ()),
        *[BoardWarning(400, code, (15, 19), "") for code in WARNING_CODES],
        BoardWarning(400, "out-of-sync", (15, 19), ""),
        BoardWarning(400, "out-of-sync", (), ""),
        BoardWarning(400, "illegal-move", (), ""),
        BoardWarning(400, "remove-captured", (18, 27), ""),
        BoardWarning(400, "some-new-code", (5,), ""),
        MoveMade(500, 3, "black", "15x22", (15, 22), (18,)),
        ComputerMove(550, "white", "Engine", "25x18", (25, 18), (22,)),
        ComputerMove(560, "white", "Engine", "26x10", (26, 17, 10), (22, 14)),
        MoveMade(600, 4, "white", "25x18", (25, 18), (22,)),
        MoveMade(650, 5, "black", "1x10", (1, 10, 19), (6, 15)),
        Crowned(700, 30),
        TakenBack(800, 5),
        MoveMade(810, 5, "black", "9-13", (9, 13), ()),
        TakenBack(820, 5),  # a plain move taken back
        TakenBack(800, 9),
        MissedJump(900, 3, "black", (9,), ""),
        Huffed(950, 3, "white", 9),
        HuffTakenBack(960, 9),
        ForcedJump(970, 3, "black", "11-15"),
        DrawOffer(1000, 4, "black"),
        DrawOffer(1000, 4, ""),
        TakebackAsked(1005, 4, "white", "22-18", ""),
        DrawDeclined(1010, "white", ""),
        DrawLapsed(1015, 4, "black", ""),
        DrawLapsed(1016, 4, None, ""),
        Claim(1020, True, "repetition", "black", ""),
        Claim(1030, False, "none", "white", ""),
        ResignAsked(1040, "black", 4000),
        Reopened(1050, 4),
        Reopened(1060, 4, "agreement"),
        *[Caution(1100, "black", 1, code, "") for code in OFFENCE_CODES],
        Forfeit(1200, "white", "backward-man", ""),
        DrawClaimable(1300, "forty-moves", "black"),
        Condoned(1400, "white", "27-31", "wrong-move", "", START),
        ClockReport(1500, 300_000, 59_000, "white"),
        ClockReport(1600, 300_000, 9_000, "white"),
        ClockReport(1700, 300_000, 61_000, "black"),
        Flag(1800, "white"),
        Notice(1850, "the display is back"),
        Alert(1900, "pin-guessing", "someone is guessing the page's PIN"),
        GameSaved(1950, "1-0", "games/x.pdn"),
        MatchScore(1960, "game-start", "m1", "Ann", "Bob", 2, 0, 1, "Ann", ("0", "0"), False, "", False),
        Spoken(1970, "Black, 11 15.", "en", "move"),
        ProblemReport(
            1980,
            "begin",
            "beginner-1",
            "Beginner's problems",
            "Beginner's Problem #1",
            "White to play and win",
            1,
            "white",
            "playing",
            "",
            "",
            0,
            1,
            0,
            0,
            (0, 0, 0, 0, 0),
            (0, 0, 0, 0, 0),
        ),
        *[GameOver(2000, "1-0", reason) for reason in ("resign", "no-moves", "forfeit", "time", "declared")],
        GameOver(2000, "0-1", "agreement"),
        GameOver(2000, "1/2-1/2", "repetition"),
        GameOver(2000, "1/2-1/2", "forty-moves"),
        GameOver(2000, "*", "declared"),
        Final(2100, START, 4),
    ]
    return events


def test_the_sample_has_every_kind_of_event() -> None:
    assert {type(e) for e in _events()} == set(EVENT_KINDS.values())


class _Shown:
    """The game a board would show the narrator as the sample's events happen (moves
    applied as they come, taken back, a new game): what its snapshots would say."""

    def __init__(self) -> None:
        self.games = [Seen(Position.from_fen(START), (), WCDF)]

    def before(self, event: Event) -> Seen:
        """The game as the step of ``event`` leaves it (shown before the event)."""
        game = self.games[-1]
        if isinstance(event, MoveMade):
            move = Move(event.path, event.captures)
            self.games.append(Seen(game.position.apply(move, WCDF), (*game.moves, move), WCDF))
        elif isinstance(event, TakenBack) and len(self.games) > 1 and event.ply == len(game.moves):
            self.games.pop()
        elif isinstance(event, NewGame | Condoned):
            self.games = [Seen(Position.from_fen(event.fen), (), WCDF)]
        return self.games[-1]


def _utterances() -> list[Utterance]:
    shown = _Shown()
    narrator = Narrator(shown.games[0])
    out: list[Utterance] = []

    def hear(event: Event) -> list[Utterance]:
        game = shown.before(event)
        if game is not narrator.game:
            narrator.see(game)
        return narrator.hear(event)

    for event in _events():
        out += hear(event)
    hear(NewGame(3000, START))
    out += narrator.last_move() + narrator.last_moves()
    hear(MoveMade(3100, 1, "black", "11-15", (11, 15), ()))
    hear(MoveMade(3200, 2, "white", "23-19", (23, 19), ()))
    out += narrator.last_move() + narrator.last_moves(1) + narrator.last_moves()
    out += narrator.read_position() + narrator.read_position(Position.from_fen("W:W:BK5"))
    out += [narrator.square(15), narrator.square(19), narrator.square(16)]
    out += [narrator.square(5, Position.from_fen("W:WK5:B1")), narrator.square(1, Position.from_fen("W:W5:BK1"))]
    out += narrator.turn() + narrator.turn((61_000, 1_000))
    return out


def test_every_phrase_of_the_catalogue_is_said_for_something() -> None:
    used = {u.key for u in _utterances()}
    unused = set(load_catalogue("en").phrases) - used - {"unit.minutes", "unit.seconds"}
    assert unused == set(), "phrases no event or request says"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_event_and_request_is_said_in_every_language(lang: str) -> None:
    catalogue = load_catalogue(lang)
    book = Phrasebook(lang)
    for utterance in _utterances():
        sentence = book.sentence(utterance)
        assert sentence is not None and sentence.text and "{" not in sentence.text, utterance
        squares: list[int] = []
        for name, value in utterance.args:
            if name in ("square", "start", "end"):
                squares.append(int(value))  # type: ignore[arg-type]
            elif name in ("squares", "captures", "landings", "fill", "empty"):
                squares += [int(v) for v in value]  # type: ignore[union-attr]
        for square in squares:
            assert catalogue.square(square) in sentence.text, (utterance, sentence.text)


def _taken_back(fen: str, move: str, lang: str = "en") -> str:
    """What the narrator says when ``move``, played from ``fen``, is taken back."""
    from crownhead.rules import Game

    game = Game(Position.from_fen(fen), WCDF)
    narrator = Narrator(Seen.of(game))
    played = game.play_text(move)
    narrator.see(Seen.of(game))
    narrator.hear(MoveMade(0, 1, "black", move, tuple(played.path), tuple(played.captures)))
    game.undo()
    narrator.see(Seen.of(game))
    [said] = narrator.hear(TakenBack(100, 1))
    return load_catalogue(lang).render(said).text


def test_a_jump_taken_back_says_which_piece_goes_where_and_the_captured_to_put_back() -> None:
    # Issue 54, item 5: a jump taken back sounded like a plain move ("Taken back: Black,
    # 10 26."), leaving a blind player to guess what the lights ask: the jumper back, and
    # the men it took, of the other colour, back on their squares.
    assert _taken_back("B:W15,23:B10", "10x26") == (
        "Taken back: Black's jump from 10 to 26. Put the black man on 26 back on 10,"
        " and the white men back on 15 and 23."
    )
    assert _taken_back("B:WK15:B11", "11x18") == (
        "Taken back: Black's jump from 11 to 18. Put the black man on 18 back on 11, and the white king back on 15."
    )
    assert _taken_back("B:W20:BK16", "16-19") == "Taken back: Black, 16 19. Put the black king on 19 back on 16."
