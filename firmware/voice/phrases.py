"""Utterances put into the listener's language, and only those the settings let through.

>>> from crownhead.firmware.voice.utterance import Utterance
>>> book = Phrasebook("en", white_language="de", speak="all")
>>> [s.text for s in book.sentences([Utterance.of("move", "move", side="white", start=22, end=18),
...                                  Utterance.of("move", "move", side="black", start=11, end=15)])]
['Weiß, 22 18.', 'Black, 11 15.']
>>> Phrasebook("en", speak="moves").sentence(Utterance.of("warning", "warning.put-back", squares=(14,))) is None
True
"""

from __future__ import annotations

from collections.abc import Iterable

from crownhead.firmware.voice.catalogue import Sentence, language_of, load_catalogue
from crownhead.firmware.voice.utterance import Utterance, spoken_kinds

__all__ = ["Phrasebook"]


class Phrasebook:
    """Renders utterances in ``language`` (a side's own for what is about that side);
    ``speak`` (``all``, ``moves``, ``warnings``, ``off``) says which kinds are spoken.
    ValueError naming the problem for a language without a catalogue or a bad ``speak``."""

    def __init__(
        self, language: str = "en", black_language: str = "", white_language: str = "", speak: str = "all"
    ) -> None:
        self.language = language_of(language)
        self.sides = {
            "black": language_of(black_language) if black_language else self.language,
            "white": language_of(white_language) if white_language else self.language,
        }
        self.kinds = spoken_kinds(speak)
        for lang in {self.language, *self.sides.values()}:
            load_catalogue(lang)  # a broken catalogue is found now, not at the first move

    def sentence(self, utterance: Utterance) -> Sentence | None:
        """``utterance`` in words, or None when the settings keep it quiet."""
        if utterance.kind not in self.kinds:
            return None
        lang = self.sides.get(utterance.side, self.language)
        if utterance.key == "notice":
            lang = "en"  # free text from the board is English; said in an English voice
        return load_catalogue(lang).render(utterance)

    def sentences(self, utterances: Iterable[Utterance]) -> list[Sentence]:
        return [s for u in utterances if (s := self.sentence(u)) is not None]
