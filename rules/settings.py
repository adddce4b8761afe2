"""Rule options on one settings object; the defaults are the WCDF rules.

>>> WCDF.captures_compulsory, WCDF.men_capture_backward
(True, False)
>>> Rules(men_capture_backward=True).men_capture_backward
True
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace


@dataclass(frozen=True, slots=True)
class Rules:
    """How the game is played. The defaults are English checkers under WCDF rules.

    ``men_capture_backward`` and ``captures_compulsory`` are the two toggles a popular
    playing site offers (men may capture backward there; captures may be made optional).
    """

    #: Men may jump backward as well as forward (kings always may).
    men_capture_backward: bool = False
    #: A capture must be made when one is available (WCDF 1.20).
    captures_compulsory: bool = True

    def with_options(self, **changes: bool) -> Rules:
        """A copy with some options changed."""
        return replace(self, **changes)

    @property
    def is_standard(self) -> bool:
        return self == WCDF

    def describe(self) -> str:
        """The options that differ from WCDF, for logs and PDN comments."""
        changed = [f.name for f in fields(self) if getattr(self, f.name) != getattr(WCDF, f.name)]
        return "WCDF" if not changed else "WCDF with " + ", ".join(
            f"{name}={getattr(self, name)}" for name in changed
        )


WCDF = Rules()
