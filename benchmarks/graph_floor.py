"""What one LangGraph run costs on this machine: the floor under every graph rule's case.

    .venv/bin/python benchmarks/graph_floor.py [--runs 300]

A two-branch graph (START fans out to two nodes that append to one
``operator.add`` key), the smallest graph the lab's graph rules run: compiled,
invoked without a checkpointer, with ``InMemorySaver`` (a checkpoint per step,
as the refund and board graphs run) and with ``durability="exit"`` (one at the
end). Each figure is the median of five rounds, in milliseconds per run, in
this process: no sandbox, no child, no grader. The graph rules' cases can cost
no less than these times the graph runs they need.
"""

import argparse
import operator
import statistics
import time
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph


class Trace(TypedDict):
    trace: Annotated[list, operator.add]


def build(checkpointer=None):
    graph = StateGraph(Trace)
    for name in ("left", "right"):
        graph.add_node(name, lambda state, name=name: {"trace": [name]})
        graph.add_edge(START, name)
        graph.add_edge(name, END)
    return graph.compile(checkpointer=checkpointer)


def per_run(action, runs: int) -> float:
    """Milliseconds per call of ``action(i)``: the median of five rounds of ``runs`` calls."""
    rounds = []
    for _ in range(5):
        started = time.perf_counter()
        for i in range(runs):
            action(i)
        rounds.append((time.perf_counter() - started) / runs * 1e3)
    return statistics.median(rounds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=300)
    runs = parser.parse_args().runs
    plain, saved = build(), build(InMemorySaver())
    figures = {
        "compile": per_run(lambda i: build(), runs),
        "invoke": per_run(lambda i: plain.invoke({"trace": []}), runs),
        "invoke, InMemorySaver": per_run(lambda i: saved.invoke({"trace": []}, {"configurable": {"thread_id": f"a{i}"}}),
                                         runs),
        "invoke, InMemorySaver, durability=exit": per_run(
            lambda i: saved.invoke({"trace": []}, {"configurable": {"thread_id": f"b{i}"}}, durability="exit"), runs),
    }
    for what, ms in figures.items():
        print(f"{what:<42}{ms:6.2f} ms")
    print(f"repeat: .venv/bin/python benchmarks/graph_floor.py --runs {runs}")


if __name__ == "__main__":
    main()
