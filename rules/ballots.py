"""The ACF 3-move ballot list: the openings drawn by lot in English checkers tournaments.

In a 3-move match the first three moves (one of Black's, one of White's and Black's
reply) are drawn from a deck of ballots; the players then play the opening twice,
swapping colours. The American Checker Federation numbers 174 openings: 144 are in the
crossboard deck, 12 more are for mail play (together the 156-card deck) and 18 are
barred as lost for one side and never drawn.

>>> len(BALLOTS), len(deck())
(174, 156)
>>> b = ballot(5)
>>> b.name, b.moves, b.status
('Dreaded Edinburgh', ('9-13', '22-18', '6-9'), 'crossboard')
>>> from crownhead.rules import WCDF
>>> [str(m) for m in b.play_moves(WCDF)]
['9-13', '22-18', '6-9']
>>> b.position(WCDF).fen()
'W:W18,21,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,7,8,9,10,11,12,13'
"""

from __future__ import annotations

from functools import cache
from typing import Literal, NamedTuple

from crownhead.rules.move import Move
from crownhead.rules.position import Position
from crownhead.rules.settings import Rules

Status = Literal["crossboard", "mail", "barred"]

#: In the tournament (crossboard) deck.
CROSSBOARD: Status = "crossboard"
#: Played only by mail; with the crossboard ballots it makes the 156-card deck.
MAIL: Status = "mail"
#: Refuted (lost for one side); never balloted.
BARRED: Status = "barred"


class Ballot(NamedTuple):
    """One opening of the list: its ACF number, its three moves in PDN and its status."""

    number: int
    moves: tuple[str, str, str]
    status: Status
    name: str = ""

    @property
    def in_deck(self) -> bool:
        """Whether the ballot is in the 156-card deck (crossboard or mail)."""
        return self.status != BARRED

    def play_moves(self, rules: Rules) -> list[Move]:
        """The three moves as :class:`~crownhead.rules.move.Move` values, checked from the start.

        Raises :class:`~crownhead.rules.move.IllegalMoveError` naming the move if one is not legal
        under ``rules``.
        """
        position = Position.start()
        out = []
        for text in self.moves:
            move = position.parse_move(text, rules)
            out.append(move)
            position = position.apply(move, rules)
        return out

    def position(self, rules: Rules) -> Position:
        """The position after the three moves (White to move)."""
        return _position_after(self, rules)

    def __str__(self) -> str:
        label = f"ACF #{self.number}: {' '.join(self.moves)}"
        return f"{label} ({self.name})" if self.name else label


@cache
def _position_after(ballot: Ballot, rules: Rules) -> Position:
    position = Position.start()
    for move in ballot.play_moves(rules):
        position = position.apply(move, rules)
    return position


#: The ACF list in number order.
BALLOTS: tuple[Ballot, ...] = (
    Ballot(1, ("9-13", "21-17", "5-9"), CROSSBOARD),
    Ballot(2, ("9-13", "21-17", "6-9"), CROSSBOARD),
    Ballot(3, ("9-13", "21-17", "10-14"), BARRED),
    Ballot(4, ("9-13", "22-17", "13x22"), CROSSBOARD),
    Ballot(5, ("9-13", "22-18", "6-9"), CROSSBOARD, "Dreaded Edinburgh"),
    Ballot(6, ("9-13", "22-18", "10-14"), MAIL, "Inferno"),
    Ballot(7, ("9-13", "22-18", "10-15"), CROSSBOARD),
    Ballot(8, ("9-13", "22-18", "11-15"), CROSSBOARD, "Edinburgh Single"),
    Ballot(9, ("9-13", "22-18", "11-16"), MAIL, "Wilderness I"),
    Ballot(10, ("9-13", "22-18", "12-16"), CROSSBOARD),
    Ballot(11, ("9-13", "23-18", "5-9"), CROSSBOARD),
    Ballot(12, ("9-13", "23-18", "6-9"), CROSSBOARD),
    Ballot(13, ("9-13", "23-18", "10-14"), BARRED),
    Ballot(14, ("9-13", "23-18", "10-15"), CROSSBOARD),
    Ballot(15, ("9-13", "23-18", "11-15"), CROSSBOARD),
    Ballot(16, ("9-13", "23-18", "11-16"), MAIL, "Wilderness II"),
    Ballot(17, ("9-13", "23-18", "12-16"), CROSSBOARD),
    Ballot(18, ("9-13", "23-19", "5-9"), CROSSBOARD),
    Ballot(19, ("9-13", "23-19", "6-9"), CROSSBOARD),
    Ballot(20, ("9-13", "23-19", "10-14"), CROSSBOARD),
    Ballot(21, ("9-13", "23-19", "10-15"), MAIL),
    Ballot(22, ("9-13", "23-19", "11-16"), CROSSBOARD),
    Ballot(23, ("9-13", "24-19", "5-9"), CROSSBOARD),
    Ballot(24, ("9-13", "24-19", "6-9"), CROSSBOARD),
    Ballot(25, ("9-13", "24-19", "10-14"), CROSSBOARD),
    Ballot(26, ("9-13", "24-19", "10-15"), BARRED),
    Ballot(27, ("9-13", "24-19", "11-15"), CROSSBOARD),
    Ballot(28, ("9-13", "24-19", "11-16"), CROSSBOARD),
    Ballot(29, ("9-13", "24-20", "5-9"), CROSSBOARD),
    Ballot(30, ("9-13", "24-20", "6-9"), CROSSBOARD),
    Ballot(31, ("9-13", "24-20", "10-14"), CROSSBOARD),
    Ballot(32, ("9-13", "24-20", "10-15"), CROSSBOARD),
    Ballot(33, ("9-13", "24-20", "11-15"), CROSSBOARD),
    Ballot(34, ("9-13", "24-20", "11-16"), MAIL, "Twilight Zone"),
    Ballot(35, ("9-13", "24-20", "12-16"), BARRED, "Dundee Barred"),
    Ballot(36, ("9-14", "22-17", "5-9"), CROSSBOARD),
    Ballot(37, ("9-14", "22-17", "6-9"), CROSSBOARD),
    Ballot(38, ("9-14", "22-17", "11-15"), CROSSBOARD),
    Ballot(39, ("9-14", "22-17", "11-16"), CROSSBOARD),
    Ballot(40, ("9-14", "22-18", "5-9"), CROSSBOARD),
    Ballot(41, ("9-14", "22-18", "10-15"), CROSSBOARD),
    Ballot(42, ("9-14", "22-18", "11-15"), CROSSBOARD),
    Ballot(43, ("9-14", "22-18", "11-16"), CROSSBOARD),
    Ballot(44, ("9-14", "22-18", "12-16"), BARRED),
    Ballot(45, ("9-14", "22-18", "14-17"), BARRED),
    Ballot(46, ("9-14", "23-18", "14x23"), CROSSBOARD, "Double Cross"),
    Ballot(47, ("9-14", "23-19", "5-9"), CROSSBOARD),
    Ballot(48, ("9-14", "23-19", "10-15"), BARRED, "Rattlesnake"),
    Ballot(49, ("9-14", "23-19", "11-16"), CROSSBOARD),
    Ballot(50, ("9-14", "23-19", "14-18"), CROSSBOARD),
    Ballot(51, ("9-14", "24-19", "5-9"), CROSSBOARD),
    Ballot(52, ("9-14", "24-19", "10-15"), BARRED),
    Ballot(53, ("9-14", "24-19", "11-15"), CROSSBOARD),
    Ballot(54, ("9-14", "24-19", "11-16"), CROSSBOARD),
    Ballot(55, ("9-14", "24-20", "5-9"), CROSSBOARD),
    Ballot(56, ("9-14", "24-20", "10-15"), CROSSBOARD),
    Ballot(57, ("9-14", "24-20", "11-15"), CROSSBOARD),
    Ballot(58, ("9-14", "24-20", "11-16"), CROSSBOARD),
    Ballot(59, ("10-14", "22-17", "7-10"), CROSSBOARD),
    Ballot(60, ("10-14", "22-17", "9-13"), MAIL, "Black Hole"),
    Ballot(61, ("10-14", "22-17", "11-15"), MAIL),
    Ballot(62, ("10-14", "22-17", "11-16"), MAIL, "Gemini I"),
    Ballot(63, ("10-14", "22-17", "14-18"), CROSSBOARD),
    Ballot(64, ("10-14", "22-18", "6-10"), CROSSBOARD),
    Ballot(65, ("10-14", "22-18", "7-10"), CROSSBOARD, "Fraser's Inferno"),
    Ballot(66, ("10-14", "22-18", "11-15"), CROSSBOARD),
    Ballot(67, ("10-14", "22-18", "11-16"), CROSSBOARD),
    Ballot(68, ("10-14", "22-18", "12-16"), CROSSBOARD, "White Doctor"),
    Ballot(69, ("10-14", "23-18", "14x23"), CROSSBOARD),
    Ballot(70, ("10-14", "23-19", "6-10"), CROSSBOARD),
    Ballot(71, ("10-14", "23-19", "7-10"), CROSSBOARD, "Diabolical Denny"),
    Ballot(72, ("10-14", "23-19", "11-15"), CROSSBOARD),
    Ballot(73, ("10-14", "23-19", "11-16"), CROSSBOARD),
    Ballot(74, ("10-14", "23-19", "14-18"), CROSSBOARD),
    Ballot(75, ("10-14", "24-19", "6-10"), CROSSBOARD),
    Ballot(76, ("10-14", "24-19", "7-10"), CROSSBOARD),
    Ballot(77, ("10-14", "24-19", "11-15"), BARRED),
    Ballot(78, ("10-14", "24-19", "11-16"), CROSSBOARD),
    Ballot(79, ("10-14", "24-19", "14-18"), CROSSBOARD),
    Ballot(80, ("10-14", "24-20", "6-10"), CROSSBOARD),
    Ballot(81, ("10-14", "24-20", "7-10"), CROSSBOARD),
    Ballot(82, ("10-14", "24-20", "11-15"), CROSSBOARD),
    Ballot(83, ("10-14", "24-20", "11-16"), CROSSBOARD),
    Ballot(84, ("10-14", "24-20", "14-18"), CROSSBOARD),
    Ballot(85, ("10-15", "21-17", "6-10"), CROSSBOARD),
    Ballot(86, ("10-15", "21-17", "7-10"), CROSSBOARD, "Octopus"),
    Ballot(87, ("10-15", "21-17", "9-13"), CROSSBOARD, "Tyne"),
    Ballot(88, ("10-15", "21-17", "9-14"), BARRED),
    Ballot(89, ("10-15", "21-17", "11-16"), CROSSBOARD),
    Ballot(90, ("10-15", "21-17", "15-18"), CROSSBOARD),
    Ballot(91, ("10-15", "22-17", "6-10"), CROSSBOARD),
    Ballot(92, ("10-15", "22-17", "7-10"), CROSSBOARD),
    Ballot(93, ("10-15", "22-17", "9-13"), CROSSBOARD),
    Ballot(94, ("10-15", "22-17", "9-14"), BARRED, "Nutcracker"),
    Ballot(95, ("10-15", "22-17", "11-16"), CROSSBOARD),
    Ballot(96, ("10-15", "22-17", "15-19"), CROSSBOARD, "Skull-Cracker"),
    Ballot(97, ("10-15", "22-18", "15x22"), CROSSBOARD),
    Ballot(98, ("10-15", "23-18", "6-10"), CROSSBOARD),
    Ballot(99, ("10-15", "23-18", "7-10"), CROSSBOARD),
    Ballot(100, ("10-15", "23-18", "9-14"), CROSSBOARD),
    Ballot(101, ("10-15", "23-18", "11-16"), CROSSBOARD),
    Ballot(102, ("10-15", "23-18", "12-16"), CROSSBOARD),
    Ballot(103, ("10-15", "23-19", "6-10"), CROSSBOARD),
    Ballot(104, ("10-15", "23-19", "7-10"), CROSSBOARD),
    Ballot(105, ("10-15", "23-19", "11-16"), MAIL, "Gemini II"),
    Ballot(106, ("10-15", "24-19", "15x24"), CROSSBOARD),
    Ballot(107, ("10-15", "24-20", "6-10"), CROSSBOARD),
    Ballot(108, ("10-15", "24-20", "7-10"), CROSSBOARD),
    Ballot(109, ("10-15", "24-20", "11-16"), BARRED),
    Ballot(110, ("10-15", "24-20", "15-19"), CROSSBOARD),
    Ballot(111, ("11-15", "21-17", "8-11"), CROSSBOARD),
    Ballot(112, ("11-15", "21-17", "9-13"), CROSSBOARD),
    Ballot(113, ("11-15", "21-17", "9-14"), CROSSBOARD),
    Ballot(114, ("11-15", "21-17", "10-14"), BARRED),
    Ballot(115, ("11-15", "21-17", "15-19"), CROSSBOARD),
    Ballot(116, ("11-15", "22-17", "8-11"), CROSSBOARD),
    Ballot(117, ("11-15", "22-17", "9-13"), CROSSBOARD),
    Ballot(118, ("11-15", "22-17", "15-18"), CROSSBOARD),
    Ballot(119, ("11-15", "22-17", "15-19"), CROSSBOARD),
    Ballot(120, ("11-15", "22-18", "15x22"), CROSSBOARD),
    Ballot(121, ("11-15", "23-18", "8-11"), CROSSBOARD),
    Ballot(122, ("11-15", "23-18", "9-14"), CROSSBOARD),
    Ballot(123, ("11-15", "23-18", "10-14"), CROSSBOARD),
    Ballot(124, ("11-15", "23-18", "12-16"), CROSSBOARD),
    Ballot(125, ("11-15", "23-18", "15-19"), CROSSBOARD),
    Ballot(126, ("11-15", "23-19", "8-11"), CROSSBOARD),
    Ballot(127, ("11-15", "23-19", "9-13"), CROSSBOARD),
    Ballot(128, ("11-15", "23-19", "9-14"), CROSSBOARD),
    Ballot(129, ("11-15", "24-19", "15x24"), CROSSBOARD),
    Ballot(130, ("11-15", "24-20", "8-11"), CROSSBOARD),
    Ballot(131, ("11-15", "24-20", "12-16"), CROSSBOARD),
    Ballot(132, ("11-15", "24-20", "15-18"), CROSSBOARD),
    Ballot(133, ("11-16", "21-17", "7-11"), CROSSBOARD, "Octopus"),
    Ballot(134, ("11-16", "21-17", "8-11"), CROSSBOARD),
    Ballot(135, ("11-16", "21-17", "9-13"), CROSSBOARD),
    Ballot(136, ("11-16", "21-17", "9-14"), CROSSBOARD),
    Ballot(137, ("11-16", "21-17", "10-14"), BARRED, "Shark"),
    Ballot(138, ("11-16", "21-17", "16-20"), CROSSBOARD),
    Ballot(139, ("11-16", "22-17", "7-11"), CROSSBOARD),
    Ballot(140, ("11-16", "22-17", "8-11"), CROSSBOARD),
    Ballot(141, ("11-16", "22-17", "9-13"), MAIL),
    Ballot(142, ("11-16", "22-17", "16-20"), CROSSBOARD),
    Ballot(143, ("11-16", "22-18", "7-11"), CROSSBOARD),
    Ballot(144, ("11-16", "22-18", "8-11"), CROSSBOARD),
    Ballot(145, ("11-16", "22-18", "10-15"), BARRED, "Cheetah"),
    Ballot(146, ("11-16", "22-18", "16-19"), CROSSBOARD),
    Ballot(147, ("11-16", "22-18", "16-20"), CROSSBOARD),
    Ballot(148, ("11-16", "23-18", "7-11"), CROSSBOARD),
    Ballot(149, ("11-16", "23-18", "8-11"), CROSSBOARD),
    Ballot(150, ("11-16", "23-18", "9-14"), CROSSBOARD),
    Ballot(151, ("11-16", "23-18", "10-14"), CROSSBOARD),
    Ballot(152, ("11-16", "23-18", "16-20"), CROSSBOARD),
    Ballot(153, ("11-16", "23-19", "16x23"), MAIL, "Black Widow"),
    Ballot(154, ("11-16", "24-19", "7-11"), CROSSBOARD),
    Ballot(155, ("11-16", "24-19", "8-11"), CROSSBOARD),
    Ballot(156, ("11-16", "24-19", "10-15"), BARRED),
    Ballot(157, ("11-16", "24-19", "16-20"), CROSSBOARD),
    Ballot(158, ("11-16", "24-20", "7-11"), CROSSBOARD),
    Ballot(159, ("11-16", "24-20", "16-19"), CROSSBOARD),
    Ballot(160, ("12-16", "21-17", "9-13"), CROSSBOARD),
    Ballot(161, ("12-16", "21-17", "9-14"), CROSSBOARD),
    Ballot(162, ("12-16", "21-17", "16-19"), CROSSBOARD),
    Ballot(163, ("12-16", "21-17", "16-20"), CROSSBOARD),
    Ballot(164, ("12-16", "22-17", "16-19"), CROSSBOARD),
    Ballot(165, ("12-16", "22-17", "16-20"), CROSSBOARD),
    Ballot(166, ("12-16", "22-18", "16-19"), CROSSBOARD),
    Ballot(167, ("12-16", "22-18", "16-20"), CROSSBOARD),
    Ballot(168, ("12-16", "23-18", "9-14"), BARRED),
    Ballot(169, ("12-16", "23-18", "16-19"), CROSSBOARD),
    Ballot(170, ("12-16", "23-18", "16-20"), CROSSBOARD),
    Ballot(171, ("12-16", "23-19", "16x23"), BARRED),
    Ballot(172, ("12-16", "24-19", "16-20"), CROSSBOARD),
    Ballot(173, ("12-16", "24-20", "8-12"), CROSSBOARD),
    Ballot(174, ("12-16", "24-20", "10-15"), MAIL, "Skunk"),
)

_BY_NUMBER: dict[int, Ballot] = {b.number: b for b in BALLOTS}


def ballot(number: int) -> Ballot:
    """The ballot with ACF number ``number`` (1-174); ValueError names a bad number."""
    try:
        return _BY_NUMBER[number]
    except (KeyError, TypeError):
        raise ValueError(f"there is no ACF ballot number {number!r} (the list runs 1-{len(BALLOTS)})") from None


def deck() -> tuple[Ballot, ...]:
    """The 156-card deck: the crossboard and mail-play ballots, barred ones left out."""
    return tuple(b for b in BALLOTS if b.in_deck)


def positions(rules: Rules) -> dict[int, Position]:
    """The position after each ballot's three moves, by ACF number."""
    return {b.number: b.position(rules) for b in BALLOTS}


__all__ = [
    "BALLOTS",
    "BARRED",
    "Ballot",
    "CROSSBOARD",
    "MAIL",
    "Status",
    "ballot",
    "deck",
    "positions",
]
