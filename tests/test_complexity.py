"""Issue 50: no function in the folders below (the command line and the application) is
over cyclomatic complexity 20: the one rule, counted one way (``App._handle`` was a chain
of 38, ``cli/run.py``'s ``run`` 65).

The complexity is counted with the ``ast`` module, as McCabe does: 1, plus one
for each ``if``/``elif``, ``for``, ``while``, ``except``, ``with``, boolean
operator operand beyond the first, conditional expression, comprehension
``if``, ``match`` case and ``assert``.  Nested functions are measured on their
own and do not add to the function around them.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Add a folder here (e.g. "firmware/app") to hold it to the same limit.
FOLDERS = ("firmware/cli", "firmware/app")

LIMIT = 20

_FUNCTION = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_ONE_EACH = (
    ast.If,
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.ExceptHandler,
    ast.With,
    ast.AsyncWith,
    ast.IfExp,
    ast.Assert,
    ast.match_case,
)


def complexity(function: ast.AST) -> int:
    """The cyclomatic complexity of one function, its nested functions apart."""
    count = 1
    pending = list(ast.iter_child_nodes(function))
    while pending:
        node = pending.pop()
        if isinstance(node, _FUNCTION):
            continue
        if isinstance(node, _ONE_EACH):
            count += 1
        elif isinstance(node, ast.BoolOp):
            count += len(node.values) - 1
        elif isinstance(node, ast.comprehension):
            count += len(node.ifs)
        pending.extend(ast.iter_child_nodes(node))
    return count


def functions(source: str) -> list[tuple[str, int, int]]:
    """(qualified name, line, complexity) of every def in a module's source."""
    found: list[tuple[str, int, int]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = prefix + child.name
                found.append((name, child.lineno, complexity(child)))
                visit(child, name + ".")
            elif isinstance(child, ast.ClassDef):
                visit(child, prefix + child.name + ".")
            else:
                visit(child, prefix)

    visit(ast.parse(source), "")
    return found


def test_the_measure_counts_each_kind_of_branch() -> None:
    source = (
        "def f(x, ys):\n"
        "    if x and x > 1 or x < -1:\n"
        "        pass\n"
        "    elif x:\n"
        "        pass\n"
        "    for y in ys:\n"
        "        while y:\n"
        "            y -= 1\n"
        "    try:\n"
        "        pass\n"
        "    except ValueError:\n"
        "        pass\n"
        "    with open(x):\n"
        "        pass\n"
        "    z = 1 if x else 2\n"
        "    w = [y for y in ys if y if y > 2]\n"
        "    match x:\n"
        "        case 1:\n"
        "            pass\n"
        "        case _:\n"
        "            pass\n"
        "    assert x\n"
        "    def inner():\n"
        "        if x:\n"
        "            pass\n"
    )
    # 1 + if(1) + and/or(2) + elif(1) + for(1) + while(1) + except(1)
    # + with(1) + ifexp(1) + comprehension ifs(2) + cases(2) + assert(1)
    assert dict((n, c) for n, _, c in functions(source)) == {"f": 15, "f.inner": 2}


@pytest.mark.parametrize("folder", FOLDERS)
def test_no_function_is_over_the_limit(folder: str) -> None:
    over = []
    for path in sorted((ROOT / folder).rglob("*.py")):
        for name, line, count in functions(path.read_text(encoding="utf-8")):
            if count > LIMIT:
                over.append(f"{path.relative_to(ROOT)}:{line} {name} {count}")
    assert not over, f"over complexity {LIMIT}:\n" + "\n".join(over)
