"""The ``--mqtt URL --hall NAME --board NAME`` options of ``run`` and ``replay``."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from typing import Any

from crownhead.firmware.config import FieldError
from crownhead.firmware.events import Event
from crownhead.firmware.hall.board import BoardPublisher, replay_state
from crownhead.firmware.hall.settings import HallSettings
from crownhead.firmware.hall.topics import redact_url
from crownhead.firmware.referee.settings import RefereeSettings

__all__ = ["add_hall_arguments", "hall_from_args", "publish_replay"]


def add_hall_arguments(p: argparse.ArgumentParser, *, commands: bool = False) -> None:
    g = p.add_argument_group("tournament hall (MQTT)")
    g.add_argument(
        "--mqtt", metavar="URL", help="report to the MQTT broker at URL (mqtt://[user:pass@]host[:port] or mqtts://...)"
    )
    g.add_argument("--hall", metavar="NAME", help="the hall's name in the topics (default: [mqtt] hall, else hall)")
    g.add_argument(
        "--board", metavar="NAME", help="this board's name in the topics (default: [mqtt] board, else board)"
    )
    g.add_argument("--mqtt-ca", metavar="FILE", help="with mqtts://: the CA certificate file")
    if commands:
        g.add_argument(
            "--mqtt-commands",
            action="store_true",
            help="take the host link's commands from the hall (needs a broker account; see docs/hall.md)",
        )


def hall_from_args(args: argparse.Namespace, config: Any = None) -> HallSettings | None:
    """The ``[mqtt]`` section of ``config`` (a :class:`~crownhead.firmware.config.Config`) with the
    options applied; None when neither names a broker. ValueError naming the problem."""
    settings = config.get(HallSettings) if config is not None else HallSettings()
    changes: dict[str, Any] = {}
    if args.mqtt:
        changes["url"] = args.mqtt
    if args.hall is not None:
        changes["hall"] = args.hall
    if args.board is not None:
        changes["board"] = args.board
    if args.mqtt_ca:
        changes["cafile"] = args.mqtt_ca
    if getattr(args, "mqtt_commands", False):
        changes["commands"] = True
    settings = replace(settings, **changes)
    if not settings.url:
        if changes:
            raise ValueError("--hall, --board and --mqtt-ca need a broker: --mqtt URL or [mqtt] url")
        return None
    try:
        settings.validate()
    except FieldError as exc:
        raise ValueError(f"mqtt.{exc.key}: {exc.message}") from None
    return settings


def publish_replay(
    settings: HallSettings,
    events: list[Event],
    fen: str | None,
    rules: Any,
    timeout_s: float = 30.0,
    referee: RefereeSettings | None = None,
) -> int:
    """Publish a replay's events and its final state; 0 when the broker took them all.
    ``referee``: the replay's referee settings, whose names, event and round the state reports."""
    named: dict[str, Any] = {}
    if referee is not None:
        for key, value in (
            ("black", referee.black),
            ("white", referee.white),
            ("event", referee.event),
            ("round", referee.round),
        ):
            if value not in ("", "?"):
                named[key] = value
    state = replay_state(events, fen, rules, **named)
    publisher = BoardPublisher(settings, lambda: state)
    for event in events:
        publisher.sink(event)
    publisher.poll(0)
    sent = publisher.flush(timeout_s)
    publisher.close(flush_s=0)
    if not sent:
        print(
            f"crownhead replay: {redact_url(settings.url)}: the broker did not take every event within {timeout_s:.0f} s",
            file=sys.stderr,
        )
        return 1
    return 0
