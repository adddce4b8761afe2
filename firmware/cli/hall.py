"""``crownhead hall``: follow every board of a hall through an MQTT broker, serve the hall page."""

from __future__ import annotations

import argparse
import signal
import sys
import threading

from crownhead.firmware.hall.accounts import ARBITER, HALL, RESERVED, Accounts, accounts_file
from crownhead.firmware.hall.topics import BrokerUrl, check_name
from crownhead.firmware.files import default_state_dir

#: Boards a hall may know at most (``--boards``).
MAX_KNOWN_BOARDS = 1000


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
    p.add_argument(
        "--pairings",
        metavar="FILE",
        help="the arbiter's pairings, a CSV file with the columns round, board, black, white (read again "
        "when it changes); a result counts only for a paired game the hall saw begin in the "
        "current round (the file's last)",
    )
    p.add_argument(
        "--broker",
        metavar="URL",
        help="the hall's broker (mqtts://hall:PASSWORD@host[:port]); default: an embedded one, with an "
        "account for the hall, the arbiter and each board, made at its first start and printed",
    )
    p.add_argument(
        "--listen",
        metavar="[HOST:]PORT",
        default="127.0.0.1:1883",
        help="where the embedded broker listens (default 127.0.0.1:1883)",
    )
    p.add_argument("--hall", metavar="NAME", default="hall", help="the hall's name in the topics (default: hall)")
    p.add_argument(
        "--boards",
        metavar="NAMES",
        help="the hall's boards: names separated by commas (table-1,table-2), or a number N for "
        "table-1 ... table-N; the embedded broker gives each an account. Boards not known are "
        "shown apart and not counted",
    )
    p.add_argument(
        "--web", metavar="[HOST:]PORT", default="127.0.0.1:8080", help="the hall page (default 127.0.0.1:8080)"
    )
    p.add_argument("--ca", metavar="FILE", help="with mqtts://: the CA certificate file")
    p.add_argument(
        "--state-dir",
        metavar="DIR",
        help="where the hall keeps the games of its standings (hall-NAME-standings.json); "
        "default: the board's state directory (/var/lib/crownhead, else ~/.local/state/crownhead)",
    )
    p.set_defaults(func=run)


def _address(text: str, what: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    if not port.isascii() or not port.isdigit() or len(port) > 5 or not 0 < int(port) < 65536:
        raise ValueError(f"{what} {text!r}: give [HOST:]PORT with a port 1-65535")
    return host or "127.0.0.1", int(port)


def known_boards(text: str | None) -> list[str]:
    """The boards ``--boards`` names: ``table-1,table-2``, or ``N`` for ``table-1`` ... ``table-N``.

    >>> known_boards("3"), known_boards("t1, t2"), known_boards(None)
    (['table-1', 'table-2', 'table-3'], ['t1', 't2'], [])
    """
    if text is None:
        return []
    text = text.strip()
    if text.isascii() and text.isdigit():
        if not 0 < int(text) <= MAX_KNOWN_BOARDS:
            raise ValueError(f"--boards {text}: give 1-{MAX_KNOWN_BOARDS} boards")
        return [f"table-{i}" for i in range(1, int(text) + 1)]
    names = [check_name(name.strip(), "board") for name in text.split(",") if name.strip()]
    if len(names) > MAX_KNOWN_BOARDS:
        raise ValueError(f"--boards: at most {MAX_KNOWN_BOARDS} boards")
    for name in names:
        if name in RESERVED:
            raise ValueError(f"--boards: {name!r} is an account of its own ({', '.join(RESERVED)}), not a board's name")
    return list(dict.fromkeys(names))


def run(args: argparse.Namespace) -> int:
    # The hall's libraries (the hall extra), imported when a hall is run.
    from crownhead.firmware.hall.hall import Hall, HallListener, HallServer

    state_dir = str(args.state_dir or default_state_dir())
    try:
        check_name(args.hall, "hall")
        boards = known_boards(args.boards)
        pairings = None
        if args.pairings is not None:
            from crownhead.firmware.hall.pairings import PairingsFile

            pairings = PairingsFile(args.pairings)
            boards += sorted(pairings.pairings.boards() - set(boards))
        web_host, web_port = _address(args.web, "--web")
        url = args.broker
        if url is None:
            host, port = _address(args.listen, "--listen")
            accounts, made = Accounts.open(accounts_file(state_dir, args.hall), boards)
            url = accounts.url(HALL, host, port)
        shown = str(BrokerUrl.parse(url))  # printed without the password
    except ValueError as exc:
        print(f"crownhead hall: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(
            f"crownhead hall: cannot keep the broker's accounts in {state_dir}: {exc.strerror or exc}", file=sys.stderr
        )
        return 1
    hall = Hall(args.hall, state_dir, boards=boards, pairings=pairings)
    broker = None
    try:
        if args.broker is None:
            from crownhead.firmware.hall.broker import EmbeddedBroker  # amqtt only for a hall with a broker of its own

            broker = EmbeddedBroker(host, port, accounts=accounts)
            broker.start()
        server = HallServer(hall, web_host, web_port)
    except (RuntimeError, OSError) as exc:
        print(f"crownhead hall: {exc}", file=sys.stderr)
        if broker is not None:
            broker.close()
        return 1
    listener = HallListener(hall, url, args.ca)
    listener.start()
    server.start()
    web = server.address
    print(
        f"crownhead hall {args.hall}: boards report to {shown}; the hall page is http://{web[0]}:{web[1]}/", flush=True
    )
    if args.broker is None:
        _tell_accounts(args.hall, accounts, made, host, port)
    if not boards:
        print(
            f"crownhead hall {args.hall}: no boards are the hall's yet (--boards, --pairings): "
            "every board that reports is listed apart and nothing is counted",
            flush=True,
        )
    elif pairings is None:
        print(
            f"crownhead hall {args.hall}: no pairings (--pairings): the boards are shown, no result is counted",
            flush=True,
        )
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


def _tell_accounts(hall: str, accounts: Accounts, made: list[str], host: str, port: int) -> None:
    """Where the arbiter finds the broker's accounts; the new ones, in full, the one time
    they are made (they are kept in the file, readable by its owner only)."""
    where = "HOST" if host in ("0.0.0.0", "::", "") else (f"[{host}]" if ":" in host else host)
    print(
        f"crownhead hall {hall}: the broker's accounts are in {accounts.path} (readable by its owner only)", flush=True
    )
    for name in made:
        password = accounts.passwords[name]
        if name == HALL:
            use = "the hall's own"
        elif name == ARBITER:
            use = f"commands: mosquitto_pub -h {where} -p {port} -u {ARBITER} -P {password} -t crownhead/{hall}/BOARD/cmd -m 'names Ann;Bob'"
        else:
            use = f"crownhead run --mqtt mqtt://{name}:{password}@{where}:{port} --hall {hall} --board {name}"
        print(f"  new account {name} {password}: {use}", flush=True)
