"""Times py-draughts's perft; run by bench/perft.py inside py-draughts's own virtual
environment (py-draughts and pydraughts share the import name ``draughts``).

Prints one JSON object: the py-draughts version and, per run, depth, leaves and seconds.
Leaves are counted in bulk at the last ply (the length of the move list), as our perft
and the pydraughts timing in bench/perft.py count them, so every program does the same
work per leaf.

``--rules wcdf``: captures compulsory, the rules of the published perft numbers. py-draughts's
American board offers captures as optional, so this asks its move-generation core (the
same code its board uses) for the moves with captures compulsory.
``--rules american``: py-draughts's public ``AmericanBoard.legal_moves`` as it is.
"""

from __future__ import annotations

from crownhead.rules import WCDF

import argparse
import json
import sys
import time
from importlib.metadata import version


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, required=True)
    parser.add_argument("--rules", choices=("wcdf", "american"), required=True)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    from draughts import AmericanBoard
    from draughts.boards._core import CORE_AMERICAN

    if args.rules == "wcdf":

        def moves(board):  # type: ignore[no-untyped-def]
            return board._legal_moves_from_core(CORE_AMERICAN, max_capture=False, captures_optional=False)
    else:

        def moves(board):  # type: ignore[no-untyped-def]
            return board.legal_moves

    def perft(board, depth: int) -> int:  # type: ignore[no-untyped-def]
        found = moves(board)
        if depth == 1:
            return len(found)
        total = 0
        for move in found:
            board.push(move)
            total += perft(board, depth - 1, WCDF)
            board.pop()
        return total

    runs = []
    for _ in range(args.repeat):
        board = AmericanBoard()
        started = time.perf_counter()
        leaves = perft(board, args.depth, WCDF)
        runs.append({"depth": args.depth, "leaves": leaves, "seconds": time.perf_counter() - started})
    json.dump({"version": version("py-draughts"), "runs": runs}, sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
