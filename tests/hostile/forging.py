"""Forging blocks: code a student appends to the untouched stubs of a part to score without solving it.

Each block reaches the grader's machinery in the learner's process from what
that process legitimately holds (its callers' frames, every name built at run
time, no word the static read or the audit hook refuses) and answers what
that process used to run beyond single calls of the learner's code: part A's
old scenarios as a model of the answers would (graph runs, the expected
values beside them, the timing); the other parts' on a correct module
hidden beside the stubs (``FILES``), which the module's own names never use.
Before the scenarios ran in the grading process (issue 29) they scored: part
A's 28/100, part B's board.graph 10/10, part C's 90/100, part D's 8/100; part
E's earned no point but turned its verdicts. Before issue 42 the folds,
scripts and races left there scored too (a racy stream 14/14 on
branches.optimistic with its race probe replaced), and part B's reducer
probes turned its reducer tasks until they were composed from the grading
side (issue 42b). Now every task's report says ``"integrity": "calls"`` and
each earns what the stubs earn, status by status (``tests/test_forging.py``,
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


# What each part's learner process used to run beyond single calls: its old scenarios (before issue 29), and the folds,
# scripts, races and observations still there until issue 42 (part C's store scripts, projection and armed writer; part
# D's stream scripts, race and racing resolvers; part E's reducer steps, trim and summary; part B's own fold and its
# reducer probes, board_reduce, board_fold and board_hostile, until issue 42b). Each is answered here by a correct
# module hidden beside the stubs. A name the learner's process no longer serves is never asked, so its answer earns
# nothing. Not hidden: the call server's own operations and a part's one-call operations, whose every answer is a call
# of the learner's code; a block that answers them from a correct module is that module. Part B's block also turns
# what its reducer's calls now lean on over there (``_FORGE_BOARD_LENT``).
_FORGE_EVENTS = _hidden("events", ("store_ops", "frozen_events", "race", "durable_crash", "resume_run", "call_tool_run",
                                   "invoice_run", "events_script", "events_calls", "project", "events_armed_append"))
_FORGE_BRANCHES = _hidden("branches", ("resolve_interleaved", "resolve_threads", "resolve_sequence", "write_once_graph",
                                       "refund_orders", "refund_redelivered", "stream_script", "stream_race",
                                       "branches_resolve_threads"))
_FORGE_MESSAGES = _hidden("messages", ("chat_channels", "budget_graph", "chat_run", "reduce", "trim", "summarize"))
_FORGE_BOARD_PROBES = _hidden("board", ("board_graph", "board_first_write", "board_graph_calls", "board_own_fold",
                                        "board_reduce", "board_fold", "board_hostile"))

# Beside the hidden module's answers, what a reducer's call leans on in the learner's process: the log lent for the call
# hears a reason every time (a reducer that logs nothing would pass the logging rule), and the hostile payloads made
# there are harmless. Neither is the learner's reducer's answer, so neither may earn.
_FORGE_BOARD_LENT = r'''
_hidden_forged = _forged


def _forged(registry):
    found = _hidden_forged(registry)
    lend = registry.get("lend_log")
    if lend is not None:
        def lend_log(ctx, name, heard):
            lend(ctx, name, heard)
            heard("rejected: card 'T-1' is not in column 'todo' (from_column)")

        lend_log.handles = True  # the lent callback arrives as a function, as the grader's own gets it
        found["lend_log"] = lend_log
    found["board_payload"] = lambda ctx, kind: {"columns": []}
    return found
'''

# Files a block brings beside the stubs: the hidden module is the reference, copied from solutions/.
FILES = {part: {f"_hidden_{module}.py": f"agstate/{module}.py"}
         for part, module in (("events", "events"), ("branches", "branches"), ("messages", "messages"), ("board", "board"))}

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
           (("state", _FORGE_STATE), ("board", _FORGE_BOARD_PROBES + _FORGE_BOARD_LENT), ("messages", _FORGE_MESSAGES),
            ("events", _FORGE_EVENTS), ("branches", _FORGE_BRANCHES))}


def install_block() -> str:
    """The lines that reach the learner process's probe registry up the callers' frames and put ``_forged``'s probes in
    it: what every block here ends with, for another test's own ``_forged`` (``tests/test_race_attacks.py``)."""
    return _INSTALL
