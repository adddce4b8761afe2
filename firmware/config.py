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
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal, TypeVar, Union

from firmware.files import CONFIG_LIMIT, MAX_DEPTH, FileRefused, check_toml_depth, printable, read_bytes
from hal.buttons import BUTTON_NAMES
from hal.debounce import DEFAULT_DEBOUNCE_MS
from hal.lights import DEFAULT_BRIGHTNESS
from hal.neopixel_lights import PIXEL_ORDERS
from hal.pixelmap import build_pixel_map

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
    "BoardConfig",
    "SensorsConfig",
    "MatrixConfig",
    "ShiftConfig",
    "SerialConfig",
    "LightsConfig",
    "ButtonsConfig",
    "SimConfig",
    "DisplayConfig",
    "BuzzerConfig",
    "DISPLAY_DRIVERS",
    "I2C_PINS",
    "BACKENDS",
    "lights_backend",
    "buttons_backend",
    "used_pins",
    "check_pins",
]

DEFAULT_CONFIG_PATH = "/etc/crownhead/config.toml"
CONFIG_ENV = "CROWNHEAD_CONFIG"
# GPIO 0 and 1 are the HAT ID EEPROM bus; 28+ are not on the 40-pin header.
PIN_MIN, PIN_MAX = 2, 27
BACKENDS = ("sim", "gpio", "shift", "serial")
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
#: packages that read them, above this module: they are named here, not imported.)
BUILTIN_SECTIONS: Mapping[str, str] = MappingProxyType(
    {
        "board": "firmware.config:BoardConfig",
        "sensors": "firmware.config:SensorsConfig",
        "matrix": "firmware.config:MatrixConfig",
        "shift": "firmware.config:ShiftConfig",
        "serial": "firmware.config:SerialConfig",
        "lights": "firmware.config:LightsConfig",
        "buttons": "firmware.config:ButtonsConfig",
        "display": "firmware.config:DisplayConfig",
        "buzzer": "firmware.config:BuzzerConfig",
        "sim": "firmware.config:SimConfig",
        "play": "firmware.app.application:PlayConfig",
        "palette": "firmware.app.application:PaletteConfig",
        "store": "firmware.app.application:StoreConfig",
        "referee": "firmware.referee.settings:RefereeConfig",
        "link": "firmware.link.host:LinkConfig",
        "match": "firmware.app.matchplay:MatchConfig",
        "web": "firmware.web.settings:WebConfig",
        "mqtt": "firmware.hall.board:HallSettings",
    }
)
# Sections registered with config_section: the built-in ones as their modules load, and
# any a plug-in adds.
_SECTIONS: dict[str, type] = {}
_CHECKS: list[Callable[[Config], None]] = []


def _known_sections() -> dict[str, type]:
    """Every section: the built-in ones (their modules imported now) and the registered."""
    known: dict[str, type] = {}
    for name, where in BUILTIN_SECTIONS.items():
        module, _, attr = where.partition(":")
        known[name] = getattr(importlib.import_module(module), attr)
    for name, cls in _SECTIONS.items():
        known.setdefault(name, cls)
    return known


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


class Config:
    """The validated configuration: one frozen dataclass per section, by name."""

    __slots__ = ("_sections", "path")

    def __init__(self, sections_: Mapping[str, Any], path: str | None = None) -> None:
        object.__setattr__(self, "path", path)
        object.__setattr__(self, "_sections", MappingProxyType(dict(sections_)))

    def __getattr__(self, name: str) -> Any:
        try:
            return self._sections[name]
        except KeyError:
            raise AttributeError(f"no configuration section {name!r}") from None

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Config is immutable; use replace()")

    def get(self, cls: type[T]) -> T:
        """The section whose dataclass is ``cls``."""
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
        new[section] = _validated(
            dataclasses.replace(current, **converted), section, self.path, None
        )
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
        return "one of " + ", ".join(
            f'"{a}"' if isinstance(a, str) else str(a) for a in typing.get_args(tp)
        )
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
                return tuple(
                    _coerce(v, t, f"{key}[{i}]")
                    for i, (v, t) in enumerate(zip(value, args, strict=True))
                )
            raise FieldError(key, f"expected a list of {len(args)} values, got {len(value)}")
    elif origin is list:
        (item,) = typing.get_args(tp)
        if isinstance(value, list | tuple):
            return [_coerce(v, item, f"{key}[{i}]") for i, v in enumerate(value)]
    elif origin in (Mapping, dict, typing.Mapping):
        _kt, vt = typing.get_args(tp)
        if isinstance(value, dict):
            return MappingProxyType(
                {str(k): _coerce(v, vt, f"{key}.{k}") for k, v in value.items()}
            )
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
        if (
            current == section
            and first is not None
            and re.match(rf"^\s*\"?{re.escape(first)}\"?\s*=", line)
        ):
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
            raise ConfigError(
                exc.message, path=path, key=key, line=_locate(text, name, exc.key)
            ) from None
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
            raise ConfigError(
                f"unknown key{hint}", path=path, key=f"{name}.{key}", line=_locate(text, name, key)
            )
        try:
            values[key] = _coerce(value, hints[key], key)
        except FieldError as exc:
            raise ConfigError(
                exc.message, path=path, key=f"{name}.{exc.key}", line=_locate(text, name, exc.key)
            ) from None
    return _validated(cls(**values), name, path, text)


def parse_config(
    data: Mapping[str, Any], *, path: str | None = None, text: str | None = None
) -> Config:
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
            hint = (
                f" (did you mean [{close[0]}]?)"
                if close
                else f" (known sections: {', '.join(sorted(known))})"
            )
            raise ConfigError(
                f"unknown section [{name}]{hint}", path=path, line=_locate(text, name, None)
            )
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
    """The built-in configuration: the simulated board."""
    return parse_config({})


def load_config(
    path: str | os.PathLike[str] | None = None, *, default_path: str | None = None
) -> Config:
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
    firmware.config.ConfigError: config.toml:1: starts with a UTF-8 byte-order mark (BOM), which TOML does not allow: save the file as UTF-8 without BOM
    """
    if raw.startswith(b"\xef\xbb\xbf"):
        raise ConfigError(
            "starts with a UTF-8 byte-order mark (BOM), which TOML does not allow: "
            "save the file as UTF-8 without BOM",
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
        raise ConfigError(
            f"not valid TOML: {exc}", path=name, line=int(where.group(1)) if where else None
        ) from None
    except (ValueError, RecursionError) as exc:
        # tomllib turns a number of thousands of digits into a ValueError of int().
        raise ConfigError(f"not valid TOML: {str(exc)[:120]}", path=name) from None
    return parse_config(data, path=name, text=text)


# -- the hardware sections ----------------------------------------------------------------


def _check_pin(key: str, pin: int) -> None:
    if not PIN_MIN <= pin <= PIN_MAX:
        raise FieldError(
            key,
            f"GPIO{pin} is not on the Raspberry Pi 40-pin header "
            f"(use BCM numbers {PIN_MIN}-{PIN_MAX})",
        )


def _check_range(key: str, value: float, lo: float, hi: float) -> None:
    if not lo <= value <= hi:
        raise FieldError(key, f"must be between {lo} and {hi}, got {value}")


@config_section("board")
@dataclass(frozen=True)
class BoardConfig:
    """Which switch hardware the board has."""

    backend: Literal["sim", "gpio", "shift", "serial"] = "sim"


@config_section("sensors")
@dataclass(frozen=True)
class SensorsConfig:
    """Settings shared by every switch backend."""

    debounce_ms: int = DEFAULT_DEBOUNCE_MS

    def validate(self) -> None:
        _check_range("debounce_ms", self.debounce_ms, 0, 1000)


@config_section("matrix")
@dataclass(frozen=True)
class MatrixConfig:
    """8 x 4 diode matrix on GPIO (``board.backend = "gpio"``)."""

    rows: tuple[int, ...] = (4, 17, 27, 22, 5, 6, 13, 19)
    cols: tuple[int, ...] = (23, 24, 25, 12)
    scan_hz: float = 250.0
    settle_us: int = 10

    def validate(self) -> None:
        if len(self.rows) != 8:
            raise FieldError("rows", f"needs 8 pins (one per rank), got {len(self.rows)}")
        if len(self.cols) != 4:
            raise FieldError(
                "cols", f"needs 4 pins (one per dark square of a rank), got {len(self.cols)}"
            )
        for key, pins in (("rows", self.rows), ("cols", self.cols)):
            for i, pin in enumerate(pins):
                _check_pin(f"{key}[{i}]", pin)
        _no_duplicates("matrix", {"rows": self.rows, "cols": self.cols})
        _check_range("scan_hz", self.scan_hz, 0, 5000)
        _check_range("settle_us", self.settle_us, 0, 1000)


@config_section("shift")
@dataclass(frozen=True)
class ShiftConfig:
    """Four chained 74HC165 (``board.backend = "shift"``)."""

    load_pin: int = 4
    clock_pin: int = 17
    data_pin: int = 27
    squares: tuple[int, ...] = ()  # chain order; empty = bit n is square n + 1
    active_low: bool = True
    check_bits: int = 8
    scan_hz: float = 250.0
    settle_us: int = 1

    def validate(self) -> None:
        pins = {"load_pin": self.load_pin, "clock_pin": self.clock_pin, "data_pin": self.data_pin}
        for key, pin in pins.items():
            _check_pin(key, pin)
        _no_duplicates("shift", pins)
        if self.squares:
            if len(self.squares) != 32:
                raise FieldError(
                    "squares", f"needs 32 entries (one per register input), got {len(self.squares)}"
                )
            if sorted(self.squares) != list(range(1, 33)):
                raise FieldError("squares", "must list every square 1-32 exactly once")
        _check_range("check_bits", self.check_bits, 0, 64)
        _check_range("scan_hz", self.scan_hz, 0, 5000)
        _check_range("settle_us", self.settle_us, 0, 1000)


@config_section("serial")
@dataclass(frozen=True)
class SerialConfig:
    """A board with its own microcontroller on USB serial (``board.backend = "serial"``)."""

    port: str = "/dev/ttyACM0"
    baudrate: int = 115200
    reconnect_ms: int = 1000
    silence_ms: int = 3000

    def validate(self) -> None:
        if not self.port.strip():
            raise FieldError("port", "must name a serial device, e.g. /dev/ttyACM0")
        if self.baudrate not in (
            9600,
            19200,
            38400,
            57600,
            115200,
            230400,
            460800,
            921600,
            1000000,
            2000000,
        ):
            raise FieldError("baudrate", f"{self.baudrate} is not a standard rate (e.g. 115200)")
        _check_range("reconnect_ms", self.reconnect_ms, 50, 60000)
        _check_range("silence_ms", self.silence_ms, 1500, 60000)


@config_section("lights")
@dataclass(frozen=True)
class LightsConfig:
    """The LEDs under the squares."""

    backend: Literal["auto", "neopixel", "serial", "none"] = "auto"
    data_pin: int = 10  # SPI MOSI: no root needed on a Pi 1-4, any pin works on a Pi 5
    pixels: int = 32
    map: str | tuple[int | str, ...] = "row-major"
    origin: Literal["a8", "h8", "a1", "h1"] = "a8"
    pixel_order: str = "GRB"
    brightness: float = DEFAULT_BRIGHTNESS
    max_fps: float = 30.0

    def validate(self) -> None:
        _check_pin("data_pin", self.data_pin)
        if self.pixels not in (32, 64):
            raise FieldError(
                "pixels", f"must be 32 (dark squares) or 64 (every square), got {self.pixels}"
            )
        if isinstance(self.map, str) and self.map not in ("row-major", "serpentine"):
            raise FieldError(
                "map", f'must be "row-major", "serpentine" or a list of squares, got "{self.map}"'
            )
        try:
            build_pixel_map(self.pixels, self.map, self.origin)
        except ValueError as exc:
            raise FieldError("map", str(exc)) from None
        if self.pixel_order not in PIXEL_ORDERS:
            raise FieldError(
                "pixel_order", f'must be one of {", ".join(PIXEL_ORDERS)}, got "{self.pixel_order}"'
            )
        if not 0.0 < self.brightness <= 1.0:
            raise FieldError(
                "brightness", f"must be greater than 0 and at most 1.0, got {self.brightness}"
            )
        _check_range("max_fps", self.max_fps, 1, 120)


@config_section("buttons")
@dataclass(frozen=True)
class ButtonsConfig:
    """Push buttons: name -> GPIO (each button between its pin and ground)."""

    backend: Literal["auto", "gpio", "serial", "none"] = "auto"
    pins: Mapping[str, int] = field(
        default_factory=lambda: MappingProxyType(
            {"new": 16, "hint": 20, "takeback": 21, "claim": 26, "black": 14, "white": 15}
        )
    )
    bounce_ms: int = 50
    #: A press of resign or of a side's own button held this long is a long press.
    hold_ms: int = 1500

    def validate(self) -> None:
        for name, pin in self.pins.items():
            if name not in BUTTON_NAMES:
                close = difflib.get_close_matches(name, BUTTON_NAMES, n=1)
                hint = f"did you mean {close[0]}?" if close else f"known: {', '.join(BUTTON_NAMES)}"
                raise FieldError(f"pins.{name}", f"unknown button ({hint})")
            _check_pin(f"pins.{name}", pin)
        _no_duplicates("buttons", {f"pins.{n}": p for n, p in self.pins.items()})
        _check_range("bounce_ms", self.bounce_ms, 0, 1000)
        _check_range("hold_ms", self.hold_ms, 300, 10000)


#: The display drivers: luma.oled device classes for 128x64 I2C OLEDs.
DISPLAY_DRIVERS = ("none", "ssd1306", "sh1106")
#: The addresses these controllers answer on (set by a jumper or solder bridge).
DISPLAY_ADDRESSES = (0x3C, 0x3D)
#: I2C bus -> its (SDA, SCL) GPIO pins on the 40-pin header.
I2C_PINS = {1: (2, 3)}


@config_section("display")
@dataclass(frozen=True)
class DisplayConfig:
    """A small OLED beside the board (I2C): clocks, whose move, messages, the result."""

    driver: str = "none"
    port: int = 1
    address: int = 0x3C
    width: int = 128
    height: int = 64
    rotate: int = 0
    #: Frames per second at most (redrawn only on change).
    max_fps: float = 4.0
    #: How often an absent display is looked for again.
    retry_ms: int = 5000

    def validate(self) -> None:
        if self.driver not in DISPLAY_DRIVERS:
            close = difflib.get_close_matches(self.driver, DISPLAY_DRIVERS, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise FieldError(
                "driver", f'unknown display driver "{self.driver}"{hint}: one of {", ".join(DISPLAY_DRIVERS)}'
            )
        if self.port not in I2C_PINS:
            raise FieldError("port", f"I2C bus {self.port} is not on the header pins; use 1 (GPIO2/3)")
        if self.address not in DISPLAY_ADDRESSES:
            raise FieldError(
                "address",
                f"0x{self.address:02X} is not an address an SSD1306 or SH1106 answers on "
                "(0x3C, or 0x3D with its address jumper moved; `i2cdetect -y 1` shows it)",
            )
        if (self.width, self.height) != (128, 64):
            raise FieldError("width", f"only 128x64 displays are supported, got {self.width}x{self.height}")
        if self.rotate not in (0, 1, 2, 3):
            raise FieldError("rotate", f"must be 0-3 (quarter turns), got {self.rotate}")
        _check_range("max_fps", self.max_fps, 0.5, 30)
        _check_range("retry_ms", self.retry_ms, 100, 600000)


@config_section("buzzer")
@dataclass(frozen=True)
class BuzzerConfig:
    """An optional buzzer: "passive" (a piezo driven with tones) or "active" (on/off)."""

    kind: str = "none"
    pin: int = 18
    #: 0 (silent) - 1; an active buzzer is only on or off (any volume above 0 is on).
    volume: float = 0.5

    def validate(self) -> None:
        if self.kind not in ("none", "passive", "active"):
            raise FieldError("kind", f'must be "none", "passive" or "active", got "{self.kind}"')
        _check_pin("pin", self.pin)
        _check_range("volume", self.volume, 0.0, 1.0)


@config_section("sim")
@dataclass(frozen=True)
class SimConfig:
    """The simulated board (``board.backend = "sim"``), including injected faults."""

    position: Literal["start", "empty"] = "start"
    stuck_closed: tuple[int, ...] = ()
    stuck_open: tuple[int, ...] = ()
    swap: tuple[tuple[int, ...], ...] = ()
    dead_leds: tuple[int, ...] = ()
    hand_bounces: int = 2
    #: The simulated buzzer rings the terminal's bell (it is silent unless asked).
    sound: bool = False

    def validate(self) -> None:
        for key in ("stuck_closed", "stuck_open", "dead_leds"):
            for sq in getattr(self, key):
                if not 1 <= sq <= 32:
                    raise FieldError(key, f"square must be 1-32, got {sq}")
        both = set(self.stuck_closed) & set(self.stuck_open)
        if both:
            raise FieldError(
                "stuck_open", f"square {min(both)} cannot be stuck both closed and open"
            )
        seen: set[int] = set()
        for pair in self.swap:
            if len(pair) != 2 or pair[0] == pair[1]:
                raise FieldError(
                    "swap",
                    f"each entry is a pair of two different squares, like [5, 6]; got {list(pair)}",
                )
            for sq in pair:
                if not 1 <= sq <= 32:
                    raise FieldError("swap", f"square must be 1-32, got {sq}")
                if sq in seen:
                    raise FieldError("swap", f"square {sq} appears in two swaps")
                seen.add(sq)
        _check_range("hand_bounces", self.hand_bounces, 0, 10)


def _no_duplicates(section: str, groups: Mapping[str, int | tuple[int, ...]]) -> None:
    """Refuse a GPIO claimed twice within ``[section]``; a list's entries by index."""
    owner: dict[int, str] = {}
    for key, value in groups.items():
        entries = (
            [(f"{key}[{i}]", pin) for i, pin in enumerate(value)]
            if isinstance(value, tuple)
            else [(key, value)]
        )
        for name, pin in entries:
            if pin in owner:
                if owner[pin].split("[")[0] == key:
                    raise FieldError(
                        name, f"GPIO{pin} is listed twice (also {section}.{owner[pin]})"
                    )
                raise FieldError(name, f"GPIO{pin} is also used by {section}.{owner[pin]}")
            owner[pin] = name


# -- backend resolution and whole-board pin checks ---------------------------------------


def lights_backend(config: Config, backend: str | None = None) -> str:
    """The LED backend in effect: "sim", "neopixel", "serial" or "none".

    The simulator is a whole board: with it (``board.backend = "sim"`` or ``--hal
    sim``) the LEDs are always the simulator's, whatever ``lights.backend`` says for
    the real board. Otherwise ``--hal sim`` on a Pi's configuration would drive the
    real strip, or no LEDs at all, behind simulated switches.
    """
    board = backend or config.board.backend
    chosen = config.lights.backend
    if board == "sim":
        return "sim"
    if chosen == "auto":
        return {"gpio": "neopixel", "shift": "neopixel", "serial": "serial"}[board]
    if chosen == "serial" and board != "serial":
        raise FieldError(
            "lights.backend", f'"serial" needs board.backend = "serial" (it is "{board}")'
        )
    return chosen


def buttons_backend(config: Config, backend: str | None = None) -> str:
    """The button backend in effect: "sim", "gpio", "serial" or "none".

    As for the LEDs, the simulator always brings its own buttons.
    """
    board = backend or config.board.backend
    chosen = config.buttons.backend
    if board == "sim":
        return "sim"
    if chosen == "auto":
        if board == "serial":
            return "serial"
        return "gpio" if config.buttons.pins else "none"
    if chosen == "serial" and board != "serial":
        raise FieldError(
            "buttons.backend", f'"serial" needs board.backend = "serial" (it is "{board}")'
        )
    return chosen


def used_pins(config: Config, backend: str | None = None) -> list[tuple[str, int]]:
    """(key, GPIO) for every pin the chosen backends will claim."""
    board = backend or config.board.backend
    pins: list[tuple[str, int]] = []
    if board == "gpio":
        pins += [(f"matrix.rows[{i}]", p) for i, p in enumerate(config.matrix.rows)]
        pins += [(f"matrix.cols[{i}]", p) for i, p in enumerate(config.matrix.cols)]
    elif board == "shift":
        s = config.shift
        pins += [
            ("shift.load_pin", s.load_pin),
            ("shift.clock_pin", s.clock_pin),
            ("shift.data_pin", s.data_pin),
        ]
    if lights_backend(config, board) == "neopixel":
        pins.append(("lights.data_pin", config.lights.data_pin))
    if buttons_backend(config, board) == "gpio":
        pins += [(f"buttons.pins.{n}", p) for n, p in config.buttons.pins.items()]
    if board != "sim":
        if config.display.driver != "none":
            sda, scl = I2C_PINS[config.display.port]
            pins += [("display.port", sda), ("display.port", scl)]
        if config.buzzer.kind != "none":
            pins.append(("buzzer.pin", config.buzzer.pin))
    return pins


def check_pins(config: Config, backend: str | None = None) -> None:
    """Raise :class:`FieldError` if two parts of the board would claim one GPIO."""
    owner: dict[int, str] = {}
    for key, pin in used_pins(config, backend):
        if pin in owner:
            raise FieldError(key.split("[")[0], f"GPIO{pin} is also used by {owner[pin]}")
        owner[pin] = key


@register_check
def _check_board(config: Config) -> None:
    check_pins(config)
