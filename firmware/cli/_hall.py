"""The ``--mqtt URL --hall NAME --board NAME`` options of ``run`` and ``replay``."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from firmware.events import Event
from firmware.hall.board import BoardPublisher, HallSettings, replay_state

__all__ = ["add_hall_arguments", "hall_from_args", "publish_replay"]


def add_hall_arguments(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("tournament hall (MQTT)")
    g.add_argument("--mqtt", metavar="URL", help="report to the MQTT broker at URL (mqtt://[user:pass@]host[:port] or mqtts://...)")
    g.add_argument("--hall", metavar="NAME", default="hall", help="the hall's name in the topics (default: hall)")
    g.add_argument("--board", metavar="NAME", default="board", help="this board's name in the topics (default: board)")
    g.add_argument("--mqtt-ca", metavar="FILE", help="with mqtts://: the CA certificate file")


def hall_from_args(args: argparse.Namespace) -> HallSettings | None:
    """The hall settings the options give (None without ``--mqtt``); ValueError if bad."""
    if not args.mqtt:
        return None
    settings = HallSettings(args.mqtt, args.hall, args.board, args.mqtt_ca)
    settings.validate()
    return settings


def publish_replay(settings: HallSettings, events: list[Event], fen: str | None, rules: Any, timeout_s: float = 30.0) -> int:
    """Publish a replay's events and its final state; 0 when the broker took them all."""
    state = replay_state(events, fen, rules)
    publisher = BoardPublisher(settings, lambda: state)
    for event in events:
        publisher.sink(event)
    publisher.poll(0)
    sent = publisher.flush(timeout_s)
    publisher.close(flush_s=0)
    if not sent:
        print(f"crownhead replay: {settings.url}: the broker did not take every event within {timeout_s:.0f} s",
              file=sys.stderr)
        return 1
    return 0
