"""The sentences in each language: one catalogue a language, ``firmware/voice/lang/*.toml``.

A catalogue holds every phrase the board says, keyed as :class:`~crownhead.firmware.voice.utterance.Utterance`
keys are, with ``{name:spec}`` places for the arguments; the spec says how a value is
said: ``sq`` a square, ``list`` squares ("18 and 11"), ``path`` a jump's landings
("15, then 8"), ``side`` Black or White, ``word`` a code looked up as ``name.value``
(``reason.repetition``), ``moves`` a ballot's moves, ``time`` milliseconds as minutes
and seconds; no spec: the value as it is (a name, a count). A phrase may have plural
forms (a table ``one``/``few``/``many``/``other``) chosen by its ``n`` argument and the
language's rule. Every catalogue is checked against the English one when loaded: the
same keys, no place the English phrase lacks, every plural form its rule needs.

Squares are said as the players of the language say them: numbers 1-32 in most, the
algebraic names (c3) in Russian, where books write them so; the written ``text`` keeps
c3 and the ``spoken`` form spells the letter as the language names it.

>>> from crownhead.firmware.voice.utterance import Utterance
>>> en = load_catalogue("en")
>>> en.render(Utterance.of("move", "jump", side="white", start=22, end=15, captures=(18,))).text
'White jumps from 22 to 15, taking 18.'
>>> load_catalogue("de").render(Utterance.of("move", "move", side="black", start=11, end=15)).text
'Schwarz, 11 15.'
>>> s = load_catalogue("ru").render(Utterance.of("move", "move", side="black", start=11, end=15))
>>> s.text, s.spoken
('Чёрные: f6 e5.', 'Чёрные: эф 6 е 5.')
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources

from crownhead.firmware.voice.utterance import Arg, Utterance
from crownhead.rules import square_name

__all__ = ["LANGUAGES", "Catalogue", "CatalogueError", "Sentence", "load_catalogue", "language_of"]

#: The languages shipped, English first (the reference every other is checked against).
LANGUAGES: tuple[str, ...] = ("en", "de", "fr", "nl", "es", "ru")

_PLACE = re.compile(r"\{(\w+)(?::(\w+))?\}")
_SPECS = frozenset({"", "sq", "list", "path", "side", "word", "moves", "time"})

#: Plural rules: the forms each needs and how a count picks one (CLDR's cardinal rules,
#: for whole numbers).
_PLURALS: dict[str, tuple[tuple[str, ...], Callable[[int], str]]] = {
    "one-other": (("one", "other"), lambda n: "one" if n == 1 else "other"),
    "french": (("one", "other"), lambda n: "one" if n in (0, 1) else "other"),
    "slavic": (
        ("one", "few", "many"),
        lambda n: (
            "one"
            if n % 10 == 1 and n % 100 != 11
            else "few"
            if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14
            else "many"
        ),
    ),
}


class CatalogueError(ValueError):
    """A catalogue that cannot be used: the message names the language and the key."""


@dataclass(frozen=True, slots=True)
class Sentence:
    """A rendered utterance: ``text`` to show and log, ``spoken`` for the speech engine."""

    text: str
    spoken: str
    lang: str
    kind: str


Phrase = str | Mapping[str, str]


@dataclass(frozen=True)
class Catalogue:
    """One language's phrases and how it says squares, lists and counts."""

    code: str
    name: str
    voice: str
    squares: str
    letters: tuple[str, ...]
    words: Mapping[str, str]
    plural: str
    phrases: Mapping[str, Phrase] = field(repr=False)

    def square(self, square: int, spoken: bool = False) -> str:
        """A square as the language's players name it (``spoken``: as the engine should read it)."""
        if not 1 <= square <= 32:
            raise ValueError(f"no square {square}")
        if self.squares == "numbers":
            return str(square)
        name = square_name(square)
        if spoken:
            return f"{self.letters['abcdefgh'.index(name[0])]} {name[1]}"
        return name

    def join(self, items: list[str]) -> str:
        """``a, b and c`` in the language."""
        if len(items) <= 1:
            return "".join(items)
        return f"{', '.join(items[:-1])} {self.words['and']} {items[-1]}"

    def word(self, key: str) -> str:
        try:
            return self.words[key]
        except KeyError:
            raise CatalogueError(f"{self.code}: no word {key!r}") from None

    def phrase(self, key: str, n: int | None = None) -> str:
        try:
            phrase = self.phrases[key]
        except KeyError:
            raise CatalogueError(f"{self.code}: no phrase {key!r}") from None
        if isinstance(phrase, str):
            return phrase
        forms, rule = _PLURALS[self.plural]
        return phrase[rule(abs(n or 0))]

    def render(self, utterance: Utterance) -> Sentence:
        """The sentence ``utterance`` is in this language."""
        args = utterance.mapping
        count = args.get("n")
        template = self.phrase(utterance.key, count if isinstance(count, int) else None)
        text = _tidy(self._fill(template, args, spoken=False))
        spoken = _tidy(self._fill(template, args, spoken=True)) if self.squares != "numbers" else text
        return Sentence(text, spoken, self.code, utterance.kind)

    def _fill(self, template: str, args: Mapping[str, Arg], spoken: bool) -> str:
        def place(match: re.Match[str]) -> str:
            name, spec = match.group(1), match.group(2) or ""
            if name not in args:
                raise CatalogueError(f"{self.code}: the phrase needs {name!r}, not given")
            return self._say(name, spec, args[name], spoken)

        return _PLACE.sub(place, template)

    def _say(self, name: str, spec: str, value: Arg, spoken: bool) -> str:
        if spec == "sq" and isinstance(value, int):
            return self.square(value, spoken)
        if spec == "list" and isinstance(value, tuple):
            return self.join([self.square(int(s), spoken) for s in value])
        if spec == "path" and isinstance(value, tuple):
            return f"{self.words['then-sep']}".join(self.square(int(s), spoken) for s in value)
        if spec == "side" and isinstance(value, str):
            return self.word(f"side.{value}") if value else self.word("side.unknown")
        if spec == "word" and isinstance(value, str):
            return self.words.get(f"{name}.{value}") or self.word(f"{name}.other")
        if spec == "moves" and isinstance(value, tuple):
            return ", ".join(self._move_text(str(m), spoken) for m in value)
        if spec == "time" and isinstance(value, int):
            return self._time(value)
        if spec == "":
            return str(value)
        raise CatalogueError(f"{self.code}: {name!r} given as {value!r} cannot be said as {spec!r}")

    def _move_text(self, move: str, spoken: bool) -> str:
        squares = [int(s) for s in re.split(r"[-x:]", move) if s.isdigit()]
        return " ".join(self.square(s, spoken) for s in squares)

    def _time(self, ms: int) -> str:
        seconds = max(0, (ms + 999) // 1000)
        minutes, seconds = divmod(seconds, 60)
        parts = []
        if minutes:
            parts.append(self.phrase("unit.minutes", minutes).replace("{n}", str(minutes)))
        if seconds or not minutes:
            parts.append(self.phrase("unit.seconds", seconds).replace("{n}", str(seconds)))
        return self.join(parts)


def _tidy(text: str) -> str:
    """One space between words and none before a stop: an empty word leaves no gap."""
    return re.sub(r"\s+([.,;!?])", r"\1", re.sub(r"\s{2,}", " ", text)).strip()


def language_of(code: str) -> str:
    """The shipped language for a code (``de``, ``de-AT``, ``pt_BR``...); ValueError if none.

    >>> language_of("de-AT"), language_of("EN")
    ('de', 'en')
    """
    base = code.strip().lower().replace("_", "-").split("-")[0]
    if base not in LANGUAGES:
        raise ValueError(f"no catalogue for language {code!r} (there are: {', '.join(LANGUAGES)})")
    return base


def _places(phrase: Phrase) -> set[str]:
    texts = [phrase] if isinstance(phrase, str) else list(phrase.values())
    return {m.group(1) for text in texts for m in _PLACE.finditer(text)}


def _parse(code: str, text: str) -> Catalogue:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise CatalogueError(f"{code}: {exc}") from None
    lang = data.get("language", {})
    plural = lang.get("plural", "one-other")
    if plural not in _PLURALS:
        raise CatalogueError(f"{code}: language.plural {plural!r} is none of {', '.join(_PLURALS)}")
    squares = lang.get("squares", "numbers")
    if squares not in ("numbers", "algebraic"):
        raise CatalogueError(f"{code}: language.squares must be numbers or algebraic, not {squares!r}")
    letters = tuple(lang.get("letters", "a b c d e f g h".split()))
    if len(letters) != 8:
        raise CatalogueError(f"{code}: language.letters must name the eight files a-h")
    phrases: dict[str, Phrase] = {}
    needs, _rule = _PLURALS[plural]
    for key, phrase in data.get("phrases", {}).items():
        if isinstance(phrase, dict):
            missing = [f for f in needs if f not in phrase]
            if missing:
                raise CatalogueError(f"{code}: phrases.{key} lacks the plural form(s) {', '.join(missing)}")
        elif not isinstance(phrase, str):
            raise CatalogueError(f"{code}: phrases.{key} must be text or plural forms")
        for m in _PLACE.finditer(phrase if isinstance(phrase, str) else " ".join(phrase.values())):
            if (m.group(2) or "") not in _SPECS:
                raise CatalogueError(f"{code}: phrases.{key}: unknown spec {m.group(2)!r}")
        phrases[key] = phrase
    return Catalogue(
        code=code,
        name=str(lang.get("name", code)),
        voice=str(lang.get("voice", code)),
        squares=squares,
        letters=letters,
        words={str(k): str(v) for k, v in data.get("words", {}).items()},
        plural=plural,
        phrases=phrases,
    )


def check_against(catalogue: Catalogue, reference: Catalogue) -> None:
    """CatalogueError unless ``catalogue`` has every phrase and word of ``reference``,
    with no place the reference's phrase lacks."""
    code = catalogue.code
    for key, phrase in reference.phrases.items():
        if key not in catalogue.phrases:
            raise CatalogueError(f"{code}: phrases.{key} missing (English has it)")
        extra = _places(catalogue.phrases[key]) - _places(phrase)
        if extra:
            raise CatalogueError(f"{code}: phrases.{key} uses {', '.join(sorted(extra))}, which English does not")
    for key in set(catalogue.phrases) - set(reference.phrases):
        raise CatalogueError(f"{code}: phrases.{key} is not in the English catalogue")
    missing_words = sorted(set(reference.words) - set(catalogue.words))
    if missing_words:
        raise CatalogueError(f"{code}: words missing: {', '.join(missing_words)}")


def read_catalogue_text(code: str) -> str:
    return (
        resources.files("crownhead.firmware.voice")
        .joinpath("lang")
        .joinpath(f"{code}.toml")
        .read_text(encoding="utf-8")
    )


@cache
def load_catalogue(code: str) -> Catalogue:
    """The catalogue of a shipped language (see :func:`language_of`), checked against English."""
    lang = language_of(code)
    catalogue = _parse(lang, read_catalogue_text(lang))
    if lang != "en":
        check_against(catalogue, load_catalogue("en"))
    return catalogue
