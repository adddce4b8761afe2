"""The round as the hall shows it (issue 54): both games of a pair in ``/results.csv``,
``/round.pdn`` and the page's *This round* table, the pairing's names on a board that has
not reported, and no "not counted" logged for a replayed result the hall then counts.
"""

from __future__ import annotations

import csv
import io
import json
import logging
from typing import Any

from crownhead.firmware.hall.hall import Hall
from crownhead.firmware.hall.pairings import read_pairings

from helpers.hallnet import feed, game_states

PAIRINGS = "round,board,black,white\n1,table-1,Ann,Bob\n1,table-2,Cid,Dee\n"
OPENING = ["11-15", "23-19", "8-11", "22-17"]


def _with_pdn(states: list[dict[str, Any]], tag: str) -> list[dict[str, Any]]:
    """The states with a PDN of their own (a board's state carries its game's PDN)."""
    return [{**s, "pdn": f'[Event "{tag}"]\n[Black "{s["black"]}"]\n[White "{s["white"]}"]\n\n*\n'} for s in states]


def _pair_played_and_return_begun() -> Hall:
    h = Hall("club", pairings=read_pairings(PAIRINGS))
    feed(h, "table-1", _with_pdn(game_states("Ann", "Bob", OPENING, "1-0", "resign", game_id="g1"), "first"))
    # The return game begins (the colours swapped): two plies in.
    feed(h, "table-1", _with_pdn(game_states("Bob", "Ann", OPENING, game_id="g2")[:3], "return"))
    return h


def test_the_first_game_of_a_pair_stays_in_the_rounds_results_once_the_return_game_begins() -> None:
    h = _pair_played_and_return_begun()
    assert [(g.black, g.white, g.result) for g in h.standings.games()] == [("Ann", "Bob", "1-0")]
    rows = list(csv.reader(io.StringIO(h.results_csv())))
    table_1 = [r for r in rows[1:] if r[0] == "table-1"]
    assert table_1 == [
        ["table-1", "1", "Ann", "Bob", "1-0", "resign", "4", "counted"],
        ["table-1", "1", "Bob", "Ann", "", "", "2", ""],
    ]
    pdn = h.pdn()
    assert pdn.index('[Event "first"]') < pdn.index('[Event "return"]')
    # The page's table is drawn from /api/boards: the board's earlier games of the round ride along.
    board = next(b for b in h.boards() if b["name"] == "table-1")
    assert [(g["black"], g["result"], g["verdict"]) for g in board["earlier"]] == [("Ann", "1-0", "counted")]
    assert (board["black"], board["result"]) == ("Bob", None)


def test_a_paired_board_that_has_not_reported_shows_the_pairings_names() -> None:
    h = Hall("club", pairings=read_pairings(PAIRINGS))
    feed(h, "table-1", game_states("Ann", "Bob", OPENING[:2]))
    table_2 = next(b for b in h.boards() if b["name"] == "table-2")
    assert (table_2["black"], table_2["white"], table_2["round"]) == ("Cid", "Dee", "1")
    rows = list(csv.reader(io.StringIO(h.results_csv())))
    assert ["table-2", "1", "Cid", "Dee", "", "", "0", ""] in rows


def test_a_replayed_result_the_hall_counts_is_never_logged_not_counted(caplog: Any) -> None:
    # crownhead replay --mqtt sends the moves as events, then the result, then the state:
    # the hall saw the game begin (its first move) before it knew the game's id (none).
    from crownhead.firmware.hall.results import ResultRecord

    h = Hall("club", pairings=read_pairings(PAIRINGS))
    states = game_states("Ann", "Bob", OPENING, "0-1", "resign", game_id=None)
    with caplog.at_level(logging.INFO, logger="crownhead.firmware.hall"):
        for ply, move in enumerate(OPENING, 1):
            event = {"t": ply, "event": "move", "ply": ply, "move": move}
            h.receive("crownhead/club/table-1/event", json.dumps(event).encode())
        h.receive("crownhead/club/table-1/result", json.dumps(ResultRecord(None).add(states[-1]).message()).encode())
        feed(h, "table-1", states[-1:])
    assert [(g.black, g.result) for g in h.standings.games()] == [("Ann", "0-1")]
    assert h.standings.disputed() == []
    assert not [r for r in caplog.records if "not counted" in r.getMessage()]


def test_the_pages_this_round_table_lists_both_games_of_the_pair(browser: Any) -> None:
    from crownhead.firmware.hall.hall import HallServer

    server = HallServer(_pair_played_and_return_begun(), "127.0.0.1", 0)
    server.start()
    try:
        page = browser.new_page()
        page.set_default_timeout(60_000)  # a bound on a failure only
        host, port = server.address
        page.goto(f"http://{host}:{port}/")
        page.wait_for_selector("#results tbody tr:nth-child(2)")
        rows = page.eval_on_selector_all(
            "#results tbody tr",
            "rows => rows.map(r => [...r.querySelectorAll('td')].map(td => td.textContent))",
        )
        assert [r[:5] for r in rows if r[0] == "table-1"] == [
            ["table-1", "1", "Ann", "Bob", "1-0"],
            ["table-1", "1", "Bob", "Ann", ""],
        ]
        assert ["table-2", "1", "Cid", "Dee", ""] in [r[:5] for r in rows]
    finally:
        server.close()
