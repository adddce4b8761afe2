"""Rule options on one settings object; the defaults are the WCDF rules.

>>> WCDF.captures_compulsory, WCDF.men_capture_backward
(True, False)
>>> Rules(men_capture_backward=True).men_capture_backward
True
>>> Rules(huffing=True).must_capture
False
>>> WCDF.fast_path, Rules(flying_kings=True).fast_path
(True, False)

The named variants (Russian draughts, pool checkers, giveaway) are ready-made values in
:mod:`crownhead.rules.variants`.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any


class Crowning(enum.Enum):
    """What happens when a man lands on the king row in the middle of a chain of jumps.

    The three games on this board each do something different.
    """

    #: The man is crowned and the move ends there, even if the new king could jump on
    #: (English checkers, WCDF 1.16 and 1.19).
    ENDS_MOVE = "ends-move"
    #: The man is crowned at once and carries on jumping as a king in the same move
    #: (Russian draughts; the English house rule "keep jumping after crowning").
    CONTINUES_AS_KING = "continues-as-king"
    #: The man carries on jumping as a man if it can, and is crowned only when the
    #: chain ends on the king row (American pool checkers).
    CONTINUES_AS_MAN = "continues-as-man"

    def __str__(self) -> str:
        return self.value


_COLORS = ("black", "white")


@dataclass(frozen=True, slots=True)
class Rules:
    """How the game is played. The defaults are English checkers under WCDF rules.

    ``men_capture_backward`` and ``captures_compulsory`` are the two toggles a popular
    playing site offers (men may capture backward there; captures may be made optional).
    The other fields are the house rules of English checkers and what the flying-king
    games on the same board need; :mod:`crownhead.rules.variants` names the usual combinations.
    """

    #: Men may jump backward as well as forward (kings always may).
    men_capture_backward: bool = False
    #: A capture must be made when one is available (WCDF 1.20).
    captures_compulsory: bool = True
    #: Kings move and jump any distance along a diagonal (Russian draughts, pool).
    flying_kings: bool = False
    #: A man reaching the king row in the middle of a chain of jumps: see :class:`Crowning`.
    crowning: Crowning = Crowning.ENDS_MOVE
    #: When a king and a man can both capture, a king must (an English house rule).
    kings_capture_first: bool = False
    #: A missed jump may be punished by the opponent (the old Standard Laws): a move that
    #: skips an available jump is legal, and :class:`crownhead.rules.game.Game` offers the huff.
    huffing: bool = False
    #: Who moves first from the starting position: ``"black"`` (the side on 1-12, as in
    #: English checkers and pool) or ``"white"`` (Russian draughts).
    first_mover: str = "black"
    #: The win condition is turned around: a side with no piece or no move wins.
    giveaway: bool = False
    #: The name of the game these rules describe (``english``, ``russian``, ...); a label
    #: for logs and PDN, not a rule by itself.
    variant: str = "english"

    #: Whether a capture must be made when one is available; huffing makes a skipped
    #: jump legal (and punishable) instead.
    must_capture: bool = field(init=False, repr=False, compare=False)
    #: Whether the fast English bitboard generator in :mod:`crownhead.rules.movegen` plays these
    #: rules exactly; otherwise :mod:`crownhead.rules.variants` generates the moves.
    fast_path: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.crowning, Crowning):
            try:
                object.__setattr__(self, "crowning", Crowning(self.crowning))
            except ValueError:
                choices = ", ".join(c.value for c in Crowning)
                raise ValueError(f"crowning {self.crowning!r} is not one of: {choices}") from None
        if self.first_mover not in _COLORS:
            raise ValueError(f"first_mover {self.first_mover!r} must be 'black' or 'white'")
        if not isinstance(self.variant, str) or not self.variant:
            raise ValueError(f"variant {self.variant!r} must be a non-empty name")
        object.__setattr__(self, "must_capture", self.captures_compulsory and not self.huffing)
        object.__setattr__(
            self,
            "fast_path",
            not self.flying_kings and self.crowning is Crowning.ENDS_MOVE and not self.kings_capture_first,
        )

    def with_options(self, **changes: Any) -> Rules:
        """A copy with some options changed; ValueError names an option that is none.

        >>> WCDF.with_options(huffing=True).huffing
        True
        >>> WCDF.with_options(hufing=True)
        Traceback (most recent call last):
        ...
        ValueError: 'hufing' is not a rule option (men_capture_backward, captures_compulsory, \
flying_kings, crowning, kings_capture_first, huffing, first_mover, giveaway, variant)
        """
        unknown = sorted(set(changes) - set(OPTION_TYPES))
        if unknown:
            raise ValueError(f"{unknown[0]!r} is not a rule option ({', '.join(OPTION_TYPES)})")
        return replace(self, **changes)

    def options(self) -> dict[str, bool | str]:
        """Every option as a JSON value, in order (``crowning`` as its name): what a saved
        game keeps. :meth:`from_options` reads it back.

        >>> Rules(huffing=True).options()["huffing"], WCDF.options()["crowning"]
        (True, 'ends-move')
        """
        values = {name: getattr(self, name) for name in OPTION_TYPES}
        return {name: (value.value if isinstance(value, enum.Enum) else value) for name, value in values.items()}

    @classmethod
    def from_options(cls, data: Mapping[str, object]) -> Rules:
        """Rules from :meth:`options` (those missing take their defaults); ValueError names
        an option of the wrong JSON type or value.

        >>> Rules.from_options({"huffing": "yes"})
        Traceback (most recent call last):
        ...
        ValueError: 'huffing' must be a boolean
        """
        for name, value in data.items():
            kind = OPTION_TYPES.get(name)
            if kind is None:
                raise ValueError(f"{name!r} is not a rule option ({', '.join(OPTION_TYPES)})")
            if type(value) is not kind:
                raise ValueError(f"{name!r} must be a {'boolean' if kind is bool else 'string'}")
        return cls(**data)  # type: ignore[arg-type]  # names and JSON types checked above

    @property
    def is_standard(self) -> bool:
        return self == WCDF

    @property
    def keep_jumping_after_crowning(self) -> bool:
        """A man crowned in the middle of a chain goes on jumping as a king."""
        return self.crowning is Crowning.CONTINUES_AS_KING

    @property
    def crowning_ends_capture(self) -> bool:
        """A man crowned in the middle of a chain stops there (English checkers)."""
        return self.crowning is Crowning.ENDS_MOVE

    def option_names(self) -> list[str]:
        """The rule fields, in order (the derived ``must_capture``/``fast_path`` left out)."""
        return list(OPTION_TYPES)

    def describe(self) -> str:
        """The options that differ from WCDF, for logs and PDN comments.

        >>> Rules(huffing=True).describe()
        'WCDF with huffing=True'
        """
        changed = [name for name in self.option_names() if getattr(self, name) != getattr(WCDF, name)]
        return "WCDF" if not changed else "WCDF with " + ", ".join(f"{name}={getattr(self, name)}" for name in changed)


WCDF = Rules()

#: The rule options, in order, each with the JSON type it is kept as (an enum as its
#: name): derived from the fields of :class:`Rules`, the one place they are listed.
OPTION_TYPES: dict[str, type] = {
    f.name: str if isinstance(getattr(WCDF, f.name), (str, enum.Enum)) else type(getattr(WCDF, f.name))
    for f in fields(Rules)
    if f.init
}


@dataclass(frozen=True, slots=True)
class HouseRule:
    """A house rule a player may switch on: its ``name`` (the command line's
    ``--captures-optional``, the link's ``rules english captures-optional``), the
    :class:`Rules` option it sets and the value it sets it to."""

    name: str
    option: str
    value: bool | Crowning
    help: str

    def __post_init__(self) -> None:
        if type(self.value) is not type(getattr(WCDF, self.option, None)):
            raise ValueError(f"house rule {self.name!r}: {self.option!r} is not a {type(self.value).__name__} option")


#: The house rules, in order: each one :class:`Rules` option set to a value (the one
#: place they are listed: the commands' options, the link's ``rules`` command and its
#: checks are made from it).
HOUSE_RULES: tuple[HouseRule, ...] = (
    HouseRule("men-capture-backward", "men_capture_backward", True, "men may jump backward (a house rule; WCDF: off)"),
    HouseRule(
        "captures-optional",
        "captures_compulsory",
        False,
        "captures are not compulsory (a house rule; WCDF: compulsory)",
    ),
    HouseRule(
        "keep-jumping-after-crowning",
        "crowning",
        Crowning.CONTINUES_AS_KING,
        "a man crowned in the middle of a chain of jumps goes on jumping as a king "
        "(a house rule; WCDF: the move ends on crowning)",
    ),
    HouseRule(
        "kings-capture-first",
        "kings_capture_first",
        True,
        "when a king and a man can both capture, a king must (a house rule)",
    ),
    HouseRule(
        "huffing",
        "huffing",
        True,
        "a skipped jump is legal but the opponent may huff the piece that should have "
        "jumped or make the player take the jump (the old Standard Laws)",
    ),
)


def with_house_rules(rules: Rules, names: Iterable[str]) -> Rules:
    """``rules`` with the house rules ``names`` switched on; ValueError names one that is none.

    >>> with_house_rules(WCDF, ["captures-optional", "huffing"]).describe()
    'WCDF with captures_compulsory=False, huffing=True'
    >>> with_house_rules(WCDF, ["flying"])
    Traceback (most recent call last):
    ...
    ValueError: no house rule 'flying' (men-capture-backward, captures-optional, \
keep-jumping-after-crowning, kings-capture-first, huffing)
    """
    by_name = {rule.name: rule for rule in HOUSE_RULES}
    changes: dict[str, Any] = {}
    for name in names:
        rule = by_name.get(name)
        if rule is None:
            raise ValueError(f"no house rule {name!r} ({', '.join(by_name)})")
        changes[rule.option] = rule.value
    return rules.with_options(**changes) if changes else rules
