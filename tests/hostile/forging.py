"""Forging blocks: code a student appends to the untouched stubs of a part to score without solving it.

Each block reaches the grader's machinery in the learner's process from what
that process legitimately holds (its callers' frames, every name built at run
time, no word the static read or the audit hook refuses) and answers the
part's old scenarios as a model of the answers would: graph runs, the
expected values computed beside them, the ledgers of the fake tools, the
timing; parts C's and D's run the old scenarios on a correct module hidden
beside the stubs (``FILES``), which the module's own names never use. Before
the scenarios ran in the grading process (issue 29) they scored: part A's 28/100, part B's board.graph 10/10; part E's earned no point
but turned its verdicts (messages.budget "failed", upsert and graph
"crashed", where the stubs are "not_implemented"); part C's scored 90/100 (every
task but events.project, a pure fold of the learner's own function), part D's
8/100 (branches.conflicts, on its resolvers). Now each must earn what
the stubs earn, task by task and status by status (``tests/test_forging.py``,
and part A's in the hostile corpus).
"""

_FORGE_STATE = r'''
import hashlib as _hashlib

_SPEC = ["question", "trace", "sources", "used_calls", "best_score", "recent", "notes", "answer"]
_OUTPUT = ["answer", "trace", "sources", "used_calls"]
_REDUCERS = {"trace": "append", "sources": "merge_sources", "used_calls": "add", "best_score": "keep_max",
             "recent": "keep_recent", "notes": "append"}


def _n(text):
    return int.from_bytes(_hashlib.sha256(text.encode()).digest()[:4], "big")


def _search(question, round_no):
    first = f"doc-{_n(question) % 90 + 10}"
    return [first] if round_no == 1 else [first, f"doc-{_n(f'{question}/{round_no}') % 900 + 100}"]


def _score(question, round_no):
    return -(_n(question) % 5 + 1) if round_no == 1 else _n(f"{question}#{round_no}") % 50


def _merge(key, old, new):
    if key in ("trace", "notes"):
        return list(old) + (list(new) if isinstance(new, list) else [new])
    if key == "sources":
        return list(dict.fromkeys(list(old) + list(new)))
    if key == "recent":
        return (list(old) + list(new))[-3:]
    return new


def _run_graph(ctx, schema_name, keys, steps, writes, graph_input):
    key = keys[0]
    value = graph_input.get(key, [] if key in _REDUCERS else None)
    for step in steps:
        for name in sorted(step):
            value = _merge(key, value, writes[name][key]) if schema_name == "State" else writes[name][key]
    return {key: value}


def _channels(ctx, schema_name):
    keys = {"State": _SPEC, "InputState": ["question"], "OutputState": _OUTPUT}.get(schema_name, ["trace"])
    return {"keys": keys, "channels": {key: {"channel": "BinaryOperatorAggregate" if key in _REDUCERS else "LastValue",
                                             "reducer": _REDUCERS.get(key)} for key in keys}}


def _research(ctx, question, thread_id, extra_input):
    sources, scores = [], []
    for round_no in (1, 2, 3):
        sources = list(dict.fromkeys(sources + _search(question, round_no)))
        scores.append(_score(question, round_no))
    output = {"answer": f"{question} - see {', '.join(sources)}", "trace": ["intake", "lookup", "lookup", "lookup", "finish"],
              "sources": sources, "used_calls": 3}
    state = {**output, "question": question, "best_score": max(scores), "recent": ["r1", "r2", "r3"],
             "notes": ["n0", "n1", "n2", "n3"]}
    return {"output": output, "state": state, "input_schema": ["question"], "output_schema": sorted(_OUTPUT)}


def _tool_calls(ctx, question, thread_id):
    run = _research(ctx, question, thread_id, {})
    scored = [_score(question, r) for r in (1, 2, 3)]
    return {**run, "searched": [_search(question, r) for r in (1, 2, 3)], "scored": scored, "best_of_scores": max(scored)}


_forged = {"run_graph": _run_graph, "channels": _channels, "research_run": _research, "tool_calls_run": _tool_calls,
           "time_merge": lambda ctx, size, seed: 0.01,
           "graph_accepts": lambda ctx, factory, factory_args, writes: {"items": [i for w in writes for i in w][-factory_args[0]:]}}
'''

_FORGE_BOARD = r'''
_EMPTY = {"columns": []}


def _demo():
    return DEMO_BOARD.model_dump(mode="json")  # the kit's demo board: given, not an exercise


def _graph(ctx, board, has_board, as_instance, commands):
    start = board if has_board and isinstance(board, dict) and board.get("columns") else _demo()
    return {"board": start, "type": "Board", "rejected": [], "own_fold": start, "own_invalid": 0}


_forged = {"board_graph": _graph,
           "board_first_write": lambda ctx, garbage: {"board": _EMPTY, "type": "Board"},
           "board_graph_calls": lambda ctx, board, commands: {"calls": list(commands),
                                                              "nodes": ["build_board"] + ["apply_command"] * len(commands)}}
'''

_FORGE_MESSAGES = r'''


def _channels(ctx, histories, write):
    return {"keys": ["messages", "summary"], "channels": {"messages": "BinaryOperatorAggregate", "summary": "LastValue"},
            "merged": [history + write for history in histories], "max_messages": 8}


_forged = {"chat_channels": _channels,
           "budget_graph": lambda ctx, steps: {"states": [[m for step in steps[:i + 1] for m in step] for i in range(len(steps))]}}
'''

def _hidden(module: str, old: tuple) -> str:
    """A block that runs the ``old`` scenarios of the learner's process on a correct ``module`` hidden beside the stubs."""
    return rf'''
from . import _hidden_{module} as _hidden  # a correct {module}.py beside the stubs, which never use it


class _Hidden:
    """A probe's context whose names are the hidden module's: the old scenarios ran it, the stubs stay stubs."""

    def __init__(self, ctx):
        self._ctx = ctx

    def get(self, name):
        return getattr(_hidden, name) if hasattr(_hidden, name) else self._ctx.get(name)

    def __getattr__(self, name):
        return getattr(self._ctx, name)


def _hiding(original):
    return lambda ctx, *args: original(_Hidden(ctx), *args)


def _forged(registry):
    return {{name: _hiding(registry[name]) for name in {old!r} if name in registry}}
'''


# The scenarios part C's and part D's learner processes ran. Not among them: a pure fold or a script of the learner's
# own calls (project_state over prefixes; CaseStream's appends), and a race of the learner's own stream: what they
# report is the learner's word about its own functions, whoever computes it, worth what a module computing it earns.
_FORGE_EVENTS = _hidden("events", ("store_ops", "frozen_events", "race", "durable_crash", "resume_run", "call_tool_run",
                                   "invoice_run"))
_FORGE_BRANCHES = _hidden("branches", ("resolve_interleaved", "resolve_threads", "resolve_sequence", "write_once_graph",
                                       "refund_orders", "refund_redelivered"))

# Files a block brings beside the stubs: part C's hidden module is the reference, copied from solutions/.
FILES = {part: {f"_hidden_{module}.py": f"agstate/{module}.py"} for part, module in (("events", "events"),
                                                                                    ("branches", "branches"))}

# What every block ends with: the child's probe registry, found up its callers' frames with every name that reaches
# the grader's machinery built at run time (no word the static read or the audit hook refuses), given ``_forged``.
_INSTALL = r'''
import sys as _sys

_frame = getattr(_sys, "_get" + "frame")(0)
while _frame is not None:
    _registry = getattr(getattr(_frame, "f_" + "globals").get("probes"), "PROBES", None)
    if isinstance(_registry, dict):
        for _name, _function in (_forged(_registry) if callable(_forged) else _forged).items():
            _function.__name__ = _name
            _registry[_name] = _function
        break
    _frame = getattr(_frame, "f_" + "back")
'''

# The part -> its block, appended to that part's stub module.
FORGING = {part: block + _INSTALL for part, block in
           (("state", _FORGE_STATE), ("board", _FORGE_BOARD), ("messages", _FORGE_MESSAGES), ("events", _FORGE_EVENTS),
            ("branches", _FORGE_BRANCHES))}
