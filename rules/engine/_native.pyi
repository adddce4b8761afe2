# The native search core (rules/engine/_native.c): what Python sees of it.
from collections.abc import Callable, Iterable, Mapping, Sequence

ENTRY_BYTES: int

class Table:
    size: int
    generation: int
    bytes: int
    def __init__(self, size: int = ...) -> None: ...
    def probe(self, key: int) -> tuple[int, int, int, int, int, int] | None: ...
    def store(self, key: int, depth: int, bound: int, score: int, move_id: int) -> None: ...
    def clear(self) -> None: ...
    def new_search(self) -> None: ...
    def fill(self) -> float: ...
    def decay_history(self) -> None: ...
    def clear_history(self) -> None: ...
    def history_scores(self) -> dict[int, int]: ...
    def __len__(self) -> int: ...

class Searcher:
    nodes: int
    deadline: float | None
    def __init__(
        self,
        *,
        table: Table,
        clock: Callable[[], float],
        timeout: type[BaseException],
        path: Iterable[int],
        once: Iterable[int],
        deadline: float | None,
        max_nodes: int | None,
        egdb_value: Callable[[int, int, int, bool], int | None] | None,
        egdb_pieces: int,
        known: dict[int, int | None],
        won: int,
        table_values: int,
        compulsory: bool,
        men_backward: bool,
        reductions: bool,
        threats: bool,
        search_won: bool,
    ) -> None: ...
    def __call__(
        self,
        own: int,
        opp: int,
        kings: int,
        black: bool,
        key: int,
        depth: int,
        alpha: int,
        beta: int,
        ply: int,
        quiet: int = ...,
    ) -> int: ...

def perft(
    own: int, opp: int, kings: int, black: bool, depth: int, men_backward: bool = ..., compulsory: bool = ...
) -> int: ...
def captures(own: int, opp: int, kings: int, black: bool, men_backward: bool = ...) -> list[tuple[int, int, int]]: ...
def quiet_moves(own: int, opp: int, kings: int, black: bool) -> list[tuple[int, int, int]]: ...
def evaluate(own: int, opp: int, kings: int, black: bool, own_mobility: int) -> int: ...
def set_weights(weights: Mapping[str, int | Sequence[int]]) -> None: ...
def set_keys(man: Sequence[Sequence[int]], king: Sequence[Sequence[int]], side: int) -> None: ...
