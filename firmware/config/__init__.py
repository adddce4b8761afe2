"""Configuration: one TOML file, validated completely before anything starts.

The file is ``/etc/crownhead/config.toml`` unless ``--config PATH`` (or the
``CROWNHEAD_CONFIG`` environment variable) names another. With no file at the default
path the built-in defaults apply, and they select the simulator, so a development
machine needs no configuration at all. A path given explicitly must exist.

Every problem is a :class:`ConfigError` whose message names the file, the line when it
can be found, and the key as ``section.key`` (``lights.brightnes: unknown key``).
Unknown sections and keys, wrong types, bad values, a GPIO pin outside the Pi header
(BCM 2-27) or used twice, a LED map of the wrong length: each stops the load, so
nothing ever starts half-configured.

Adding a section
----------------
A section is a frozen dataclass whose fields all have defaults, registered under its
TOML table name::

    @config_section("tracker")
    @dataclass(frozen=True)
    class TrackerConfig:
        settle_ms: int = 400
        mode: Literal["strict", "relaxed"] = "strict"

        def validate(self) -> None:          # optional
            if self.settle_ms < 0:
                raise FieldError("settle_ms", "must be >= 0")

Field types may be ``bool``, ``int``, ``float`` (an integer is accepted), ``str``,
``Literal[...]``, unions of these (``str | tuple[int, ...]``; ``X | None`` for a default
of None that the file can only replace with an X), ``tuple[T, ...]``, ``tuple[A, B]`` or
``list[T]`` (TOML arrays) and ``Mapping[str, T]`` (a TOML table); the loader checks and
converts them, and names the offending key and element in its error. Checks that
span sections are functions registered with :func:`register_check`; they raise
:class:`FieldError` with a ``section.key`` key. The module defining a section must be
named in :data:`BUILTIN_SECTIONS` (a plug-in's own section is registered when its module
is imported). Read a section as ``config.tracker`` or, typed, ``config.get(TrackerConfig)``.
"""

from __future__ import annotations

import dataclasses
import difflib
import importlib
import os
import re
import tomllib
import types
import typing
from collections.abc import Callable, Iterator, Mapping
from types import MappingProxyType
from typing import Any, Literal, TypeVar, Union

from crownhead.firmware.files import CONFIG_LIMIT, MAX_DEPTH, FileRefused, check_toml_depth, printable, read_bytes

__all__ = [
    "DEFAULT_CONFIG_PATH",
    "CONFIG_ENV",
    "PIN_MIN",
    "PIN_MAX",
    "ConfigError",
    "FieldError",
    "Config",
    "config_section",
    "register_check",
    "sections",
    "BUILTIN_SECTIONS",
    "load_config",
    "parse_config",
    "parse_config_text",
    "MAX_STRING",
    "MAX_INT",
    "default_config",
]

DEFAULT_CONFIG_PATH = "/etc/crownhead/config.toml"
CONFIG_ENV = "CROWNHEAD_CONFIG"
# GPIO 0 and 1 are the HAT ID EEPROM bus; 28+ are not on the 40-pin header.
PIN_MIN, PIN_MAX = 2, 27
#: The longest string any setting may be, in characters.
MAX_STRING = 1024
#: The largest integer any setting may be (far beyond every range a section allows).
MAX_INT = 10**12

T = TypeVar("T")


# -- errors ------------------------------------------------------------------------


class ConfigError(Exception):
    """A configuration that cannot be used. ``str()`` is the complete message."""

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        key: str | None = None,
        line: int | None = None,
    ):
        self.message = message
        self.path = path
        self.key = key
        self.line = line
        where = ""
        if path:
            where = f"{path}:{line}: " if line else f"{path}: "
        super().__init__(f"{where}{key}: {message}" if key else f"{where}{message}")


class FieldError(ValueError):
    """Raised by validators: ``key`` is relative to the section (or ``section.key``)."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(message)
        self.key = key
        self.message = message


# -- registry ----------------------------------------------------------------------

#: Every built-in section, by TOML table name: where its dataclass is defined. This is the
#: one list of sections. Loading a file imports what it names first, so a valid file never
#: depends on which modules happen to have been imported. (Most sections belong to the
#: packages that read them, above this module, each in the package's light ``settings``
#: module: they are named here, not imported, and :func:`default_config` imports each only
#: when its section is first read.)
BUILTIN_SECTIONS: Mapping[str, str] = MappingProxyType(
    {
        "board": "crownhead.firmware.config.hardware:BoardConfig",
        "sensors": "crownhead.firmware.config.hardware:SensorsConfig",
        "matrix": "crownhead.firmware.config.hardware:MatrixConfig",
        "shift": "crownhead.firmware.config.hardware:ShiftConfig",
        "serial": "crownhead.firmware.config.hardware:SerialConfig",
        "lights": "crownhead.firmware.config.hardware:LightsConfig",
        "buttons": "crownhead.firmware.config.hardware:ButtonsConfig",
        "display": "crownhead.firmware.config.hardware:DisplayConfig",
        "buzzer": "crownhead.firmware.config.hardware:BuzzerConfig",
        "sim": "crownhead.firmware.config.hardware:SimConfig",
        "play": "crownhead.firmware.app.settings:PlayConfig",
        "palette": "crownhead.firmware.app.settings:PaletteConfig",
        "store": "crownhead.firmware.app.settings:StoreConfig",
        "referee": "crownhead.firmware.referee.settings:RefereeConfig",
        "link": "crownhead.firmware.link.settings:LinkConfig",
        "match": "crownhead.firmware.app.settings:MatchConfig",
        "web": "crownhead.firmware.web.settings:WebConfig",
        "mqtt": "crownhead.firmware.hall.settings:HallSettings",
        "voice": "crownhead.firmware.voice.settings:VoiceConfig",
        "remote": "crownhead.firmware.remote.settings:RemoteConfig",
    }
)
# Sections registered with config_section: the built-in ones as their modules load, and
# any a plug-in adds.
_SECTIONS: dict[str, type] = {}
_CHECKS: list[Callable[[Config], None]] = []


def _known_sections() -> dict[str, type]:
    """Every section: the built-in ones (their modules imported now) and the registered."""
    return {name: _section_class(name) for name in _section_names()}


def _section_names() -> list[str]:
    """The name of every section, importing nothing."""
    return [*BUILTIN_SECTIONS, *(name for name in _SECTIONS if name not in BUILTIN_SECTIONS)]


def _section_class(name: str) -> type:
    """The dataclass of section ``name`` (a built-in one's module imported now)."""
    where = BUILTIN_SECTIONS.get(name)
    if where is None:
        return _SECTIONS[name]
    module, _, attr = where.partition(":")
    cls: type = getattr(importlib.import_module(module), attr)
    return cls


def config_section(name: str) -> Callable[[type[T]], type[T]]:
    """Register a frozen dataclass as the ``[name]`` section."""

    def register(cls: type[T]) -> type[T]:
        if not dataclasses.is_dataclass(cls) or not getattr(cls, "__dataclass_params__").frozen:
            raise TypeError(f"config section {name!r} must be a frozen dataclass")
        for f in dataclasses.fields(cls):
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise TypeError(f"config section {name!r}: field {f.name!r} needs a default")
        if name in _SECTIONS and _SECTIONS[name] is not cls:
            raise ValueError(f"config section {name!r} is already registered")
        _SECTIONS[name] = cls
        return cls

    return register


def register_check(func: Callable[[Config], None]) -> Callable[[Config], None]:
    """Register a whole-configuration check (raises :class:`FieldError`)."""
    _CHECKS.append(func)
    return func


def sections() -> dict[str, type]:
    """Every section, name -> dataclass (see :data:`BUILTIN_SECTIONS`)."""
    return _known_sections()


# -- the configuration object ---------------------------------------------------------


class _Defaults(Mapping[str, Any]):
    """Every section at its defaults, each made (and its module imported) when first read.

    The defaults are valid by construction (``tests/test_config.py`` loads them eagerly,
    every check run), so nothing is lost by not making them all at once; what is won is
    that reading the board's sections never imports the application, the link or an
    MQTT client only because their sections exist.
    """

    def __init__(self) -> None:
        self._names = _section_names()
        self._made: dict[str, Any] = {}

    def __getitem__(self, name: str) -> Any:
        try:
            return self._made[name]
        except KeyError:
            if name not in self._names:
                raise
        section = self._made[name] = _build_section(name, _section_class(name), {}, None, None)
        return section

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)


class Config:
    """The validated configuration: one frozen dataclass per section, by name."""

    __slots__ = ("_sections", "path")

    def __init__(self, sections_: Mapping[str, Any], path: str | None = None) -> None:
        object.__setattr__(self, "path", path)
        if not isinstance(sections_, _Defaults):
            sections_ = MappingProxyType(dict(sections_))
        object.__setattr__(self, "_sections", sections_)

    def __getattr__(self, name: str) -> Any:
        try:
            return self._sections[name]
        except KeyError:
            raise AttributeError(f"no configuration section {name!r}") from None

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Config is immutable; use replace()")

    def get(self, cls: type[T]) -> T:
        """The section whose dataclass is ``cls``."""
        for name, registered in _SECTIONS.items():  # its module is imported: it is registered
            if registered is cls and name in self._sections:
                section = self._sections[name]
                if type(section) is cls:
                    return section
        for value in self._sections.values():
            if type(value) is cls:
                return value
        raise KeyError(f"{cls.__name__} is not a registered configuration section")

    @property
    def sections(self) -> Mapping[str, Any]:
        return self._sections

    def replace(self, section: str, **changes: Any) -> Config:
        """A copy with some fields of one section changed, validated like a file."""
        new = dict(self._sections)
        try:
            current = new[section]
        except KeyError:
            raise ConfigError(f"unknown section [{section}]") from None
        cls = type(current)
        hints = typing.get_type_hints(cls)
        converted = {}
        for key, value in changes.items():
            if key not in hints:
                raise ConfigError("unknown key", key=f"{section}.{key}")
            try:
                converted[key] = _coerce(value, hints[key], key)
            except FieldError as exc:
                raise ConfigError(exc.message, key=f"{section}.{exc.key}", path=self.path) from None
        new[section] = _validated(dataclasses.replace(current, **converted), section, self.path, None)
        config = Config(new, self.path)
        _run_checks(config, None)
        return config

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Config) and dict(self._sections) == dict(other._sections)

    def __hash__(self) -> int:
        return hash(tuple(sorted(self._sections)))

    def __repr__(self) -> str:
        return f"Config(path={self.path!r}, sections={sorted(self._sections)})"


# -- type checking -----------------------------------------------------------------


def _describe(tp: Any) -> str:
    origin = typing.get_origin(tp)
    if tp is bool:
        return "true or false"
    if tp is int:
        return "an integer"
    if tp is float:
        return "a number"
    if tp is str:
        return "a string"
    if origin is Literal:
        return "one of " + ", ".join(f'"{a}"' if isinstance(a, str) else str(a) for a in typing.get_args(tp))
    if origin in (Union, types.UnionType):
        return " or ".join(_describe(a) for a in typing.get_args(tp))
    if tp is type(None):
        return "nothing"
    if origin is tuple:
        args = typing.get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            return f"a list of {_plural(args[0])}"
        return f"a list of {len(args)} values"
    if origin is list:
        return f"a list of {_plural(typing.get_args(tp)[0])}"
    if origin in (Mapping, dict, typing.Mapping):
        return f"a table of {_plural(typing.get_args(tp)[1])}"
    return getattr(tp, "__name__", str(tp))


def _plural(tp: Any) -> str:
    text = _describe(tp)
    for article in ("an ", "a "):
        if text.startswith(article):
            return text[len(article) :] + "s"
    return f"({text})"


def _coerce(value: Any, tp: Any, key: str) -> Any:
    """Check ``value`` (from TOML) against annotation ``tp``; return it converted."""
    origin = typing.get_origin(tp)
    if tp is bool:
        if isinstance(value, bool):
            return value
    elif tp is int:
        if isinstance(value, int) and not isinstance(value, bool):
            if abs(value) > MAX_INT:
                raise FieldError(key, f"{str(value)[:20]}... is beyond any setting (at most {MAX_INT})")
            return value
    elif tp is float:
        if isinstance(value, int | float) and not isinstance(value, bool):
            if isinstance(value, int) and abs(value) > MAX_INT:
                raise FieldError(key, f"{str(value)[:20]}... is beyond any setting (at most {MAX_INT})")
            return float(value)
    elif tp is str:
        if isinstance(value, str):
            # One rule for every string: a name, an event or a port with a newline or an
            # ESC would break the PDN, the log or the terminal that shows it later.
            if len(value) > MAX_STRING:
                raise FieldError(key, f"is longer than {MAX_STRING} characters")
            if not printable(value):
                bad = next(ch for ch in value if not printable(ch))
                raise FieldError(key, f"has a control character (U+{ord(bad):04X}); give one line of printable text")
            return value
    elif origin is Literal:
        if value in typing.get_args(tp) and type(value) in {type(a) for a in typing.get_args(tp)}:
            return value
    elif origin in (Union, types.UnionType):
        for option in typing.get_args(tp):
            try:
                return _coerce(value, option, key)
            except FieldError:
                continue
    elif tp is type(None):
        pass  # TOML has no null: a field typed "X | None" can only be given as X
    elif origin is tuple:
        args = typing.get_args(tp)
        if isinstance(value, list | tuple):
            if len(args) == 2 and args[1] is Ellipsis:
                return tuple(_coerce(v, args[0], f"{key}[{i}]") for i, v in enumerate(value))
            if len(value) == len(args):
                return tuple(_coerce(v, t, f"{key}[{i}]") for i, (v, t) in enumerate(zip(value, args, strict=True)))
            raise FieldError(key, f"expected a list of {len(args)} values, got {len(value)}")
    elif origin is list:
        (item,) = typing.get_args(tp)
        if isinstance(value, list | tuple):
            return [_coerce(v, item, f"{key}[{i}]") for i, v in enumerate(value)]
    elif origin in (Mapping, dict, typing.Mapping):
        _kt, vt = typing.get_args(tp)
        if isinstance(value, dict):
            return MappingProxyType({str(k): _coerce(v, vt, f"{key}.{k}") for k, v in value.items()})
    else:  # pragma: no cover - a section declared a type this loader does not know
        raise TypeError(f"unsupported config field type {tp!r} for {key}")
    raise FieldError(key, f"expected {_describe(tp)}, got {_show(value)}")


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "a list"
    return repr(value)


# -- locating keys in the text, for line numbers ---------------------------------------

_HEADER = re.compile(r"^\s*\[\s*([A-Za-z0-9_.\-\" ]+?)\s*\]\s*(#.*)?$")


def _locate(text: str | None, section: str, key: str | None) -> int | None:
    """Best-effort line number of ``key`` in ``[section]`` (or of the header).

    A dotted key such as ``pins.new`` is looked for as ``pins = ...`` in ``[section]``
    and as ``new = ...`` in ``[section.pins]``.
    """
    if not text:
        return None
    if key:
        parts = key.split("[")[0].split(".")
        for i in range(len(parts)):
            line = _locate_one(text, ".".join([section, *parts[:i]]), parts[i])
            if line is not None:
                return line
        return None
    return _locate_one(text, section, None)


def _locate_one(text: str, section: str, first: str | None) -> int | None:
    current = None
    for number, line in enumerate(text.splitlines(), start=1):
        m = _HEADER.match(line)
        if m:
            current = m.group(1).strip().strip('"')
            if first is None and current == section:
                return number
            continue
        if current == section and first is not None and re.match(rf"^\s*\"?{re.escape(first)}\"?\s*=", line):
            return number
    return None


# -- loading -----------------------------------------------------------------------


def _validated(obj: Any, name: str, path: str | None, text: str | None) -> Any:
    validate = getattr(obj, "validate", None)
    if validate is not None:
        try:
            validate()
        except FieldError as exc:
            key = f"{name}.{exc.key}"
            raise ConfigError(exc.message, path=path, key=key, line=_locate(text, name, exc.key)) from None
    return obj


def _run_checks(config: Config, text: str | None) -> None:
    for check in _CHECKS:
        try:
            check(config)
        except FieldError as exc:
            section, _, rest = exc.key.partition(".")
            raise ConfigError(
                exc.message,
                path=config.path,
                key=exc.key,
                line=_locate(text, section, rest or None),
            ) from None


def _build_section(name: str, cls: type, table: Any, path: str | None, text: str | None) -> Any:
    if not isinstance(table, dict):
        raise ConfigError(
            f"must be a table (a [{name}] section), not a single value",
            path=path,
            key=name,
            line=_locate(text, name, None) or _locate_top(text, name),
        )
    hints = typing.get_type_hints(cls)
    names = [f.name for f in dataclasses.fields(cls)]
    values = {}
    for key, value in table.items():
        if key not in names:
            close = difflib.get_close_matches(key, names, n=1)
            hint = f" (did you mean {close[0]}?)" if close else f" (known keys: {', '.join(names)})"
            raise ConfigError(f"unknown key{hint}", path=path, key=f"{name}.{key}", line=_locate(text, name, key))
        try:
            values[key] = _coerce(value, hints[key], key)
        except FieldError as exc:
            raise ConfigError(
                exc.message, path=path, key=f"{name}.{exc.key}", line=_locate(text, name, exc.key)
            ) from None
    return _validated(cls(**values), name, path, text)


def parse_config(data: Mapping[str, Any], *, path: str | None = None, text: str | None = None) -> Config:
    """Validate parsed TOML (a dict) into a :class:`Config`. Raises :class:`ConfigError`."""
    known = _known_sections()
    for name, table in data.items():
        if name not in known:
            if not isinstance(table, dict):
                raise ConfigError(
                    f"top-level key {name!r}: settings belong in a section such as [board]",
                    path=path,
                    line=_locate_top(text, name),
                )
            close = difflib.get_close_matches(name, list(known), n=1)
            hint = f" (did you mean [{close[0]}]?)" if close else f" (known sections: {', '.join(sorted(known))})"
            raise ConfigError(f"unknown section [{name}]{hint}", path=path, line=_locate(text, name, None))
    built = {}
    for name, cls in known.items():
        built[name] = _build_section(name, cls, data.get(name, {}), path, text)
    config = Config(built, path)
    _run_checks(config, text)
    return config


def _locate_top(text: str | None, key: str) -> int | None:
    if not text:
        return None
    for number, line in enumerate(text.splitlines(), start=1):
        if _HEADER.match(line):
            return None
        if re.match(rf"^\s*{re.escape(key)}\s*=", line):
            return number
    return None


def default_config() -> Config:
    """The built-in configuration: the simulated board.

    Each section is made when first read, so that a command reading only the board's
    sections imports nothing of the packages above the configuration (see
    :class:`_Defaults`); it equals ``parse_config({})``.
    """
    return Config(_Defaults())


def load_config(path: str | os.PathLike[str] | None = None, *, default_path: str | None = None) -> Config:
    """Load and validate the configuration.

    ``path`` given: that file, which must exist. Otherwise ``$CROWNHEAD_CONFIG`` or
    ``default_path`` (normally :data:`DEFAULT_CONFIG_PATH`) if it exists, else the
    built-in defaults.
    """
    if path is None:
        env = os.environ.get(CONFIG_ENV)
        if env:
            path = env
        else:
            candidate = default_path or DEFAULT_CONFIG_PATH
            if not os.path.exists(candidate):
                return default_config()
            path = candidate
    name = os.fspath(path)
    try:
        # A regular file of at most CONFIG_LIMIT bytes: a FIFO or /dev/zero never ends.
        raw = read_bytes(name, CONFIG_LIMIT)
    except FileNotFoundError:
        raise ConfigError("no such file", path=name) from None
    except FileRefused as exc:
        if exc.problem.startswith("is a directory"):
            raise ConfigError("is a directory, not a configuration file", path=name) from None
        raise ConfigError(exc.problem, path=name) from None
    return parse_config_text(raw, name)


def parse_config_text(raw: bytes, name: str = "<config>") -> Config:
    """Validate the bytes of a configuration file (what :func:`load_config` reads).

    Raises :class:`ConfigError` naming the file and the line, never anything else.

    >>> parse_config_text(b"[board]\\nbackend = 'sim'\\n").board.backend
    'sim'
    >>> parse_config_text(b"\\xef\\xbb\\xbf[board]\\n", "config.toml")
    Traceback (most recent call last):
    ...
    crownhead.firmware.config.ConfigError: config.toml:1: starts with a UTF-8 byte-order mark (BOM), which TOML does not allow: save the file as UTF-8 without BOM
    """
    if raw.startswith(b"\xef\xbb\xbf"):
        raise ConfigError(
            "starts with a UTF-8 byte-order mark (BOM), which TOML does not allow: save the file as UTF-8 without BOM",
            path=name,
            line=1,
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"not UTF-8 text (byte {exc.start})", path=name) from None
    try:
        check_toml_depth(text, MAX_DEPTH)
    except ValueError as exc:
        line_text, _, problem = str(exc).partition(": ")
        raise ConfigError(problem, path=name, line=int(line_text.split()[1])) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        where = re.search(r"\(at line ([0-9]{1,9}), column [0-9]+\)", str(exc))
        raise ConfigError(f"not valid TOML: {exc}", path=name, line=int(where.group(1)) if where else None) from None
    except (ValueError, RecursionError) as exc:
        # tomllib turns a number of thousands of digits into a ValueError of int().
        raise ConfigError(f"not valid TOML: {str(exc)[:120]}", path=name) from None
    return parse_config(data, path=name, text=text)
