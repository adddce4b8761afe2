"""``crownhead hall``: follow every board of a hall through an MQTT broker, serve the hall page."""

from __future__ import annotations

import argparse
import signal
import sys
import threading

from firmware.hall.topics import BrokerUrl, check_name
from firmware.files import default_state_dir


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "hall",
        help="a tournament hall: follow many boards through an MQTT broker, serve the hall page",
        description=(
            "Subscribe to every board of a hall on an MQTT broker and serve the hall page: "
            "each board live, results, standings and crosstable across rounds, alerts, the round as PDN and "
            "CSV, /api/boards, /api/standings. "
            "Without --broker an MQTT broker is started in this process (on --listen)."
        ),
    )
    p.add_argument("--broker", metavar="URL", help="the hall's broker (mqtt://[user:pass@]host[:port]); default: an embedded one")
    p.add_argument("--listen", metavar="[HOST:]PORT", default="127.0.0.1:1883",
                   help="where the embedded broker listens (default 127.0.0.1:1883)")
    p.add_argument("--hall", metavar="NAME", default="hall", help="the hall's name in the topics (default: hall)")
    p.add_argument("--web", metavar="[HOST:]PORT", default="127.0.0.1:8080", help="the hall page (default 127.0.0.1:8080)")
    p.add_argument("--ca", metavar="FILE", help="with mqtts://: the CA certificate file")
    p.add_argument("--state-dir", metavar="DIR",
                   help="where the hall keeps the games of its standings (hall-NAME-standings.json); "
                        "default: the board's state directory (/var/lib/crownhead, else ~/.local/state/crownhead)")
    p.set_defaults(func=run)


def _address(text: str, what: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    if not port.isascii() or not port.isdigit() or len(port) > 5 or not 0 < int(port) < 65536:
        raise ValueError(f"{what} {text!r}: give [HOST:]PORT with a port 1-65535")
    return host or "127.0.0.1", int(port)


def run(args: argparse.Namespace) -> int:
    # The hall's libraries (the hall extra), imported when a hall is run.
    from firmware.hall.broker import EmbeddedBroker
    from firmware.hall.hall import Hall, HallListener, HallServer

    try:
        check_name(args.hall, "hall")
        web_host, web_port = _address(args.web, "--web")
        broker = None
        url = args.broker
        if url is None:
            host, port = _address(args.listen, "--listen")
            broker = EmbeddedBroker(host, port)
            url = f"mqtt://{host}:{port}"
        shown = str(BrokerUrl.parse(url))  # printed without the password
    except ValueError as exc:
        print(f"crownhead hall: {exc}", file=sys.stderr)
        return 2
    hall = Hall(args.hall, str(args.state_dir or default_state_dir()))
    try:
        if broker is not None:
            broker.start()
        server = HallServer(hall, web_host, web_port)
    except (RuntimeError, OSError) as exc:
        print(f"crownhead hall: {exc}", file=sys.stderr)
        return 1
    listener = HallListener(hall, url, args.ca)
    listener.start()
    server.start()
    host, port = server.address
    print(f"crownhead hall {args.hall}: boards report to {shown}; the hall page is http://{host}:{port}/", flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        stop.wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
        listener.close()
        hall.close()
        if broker is not None:
            broker.close()
    return 0
