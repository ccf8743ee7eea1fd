"""Part C's probes of agent runs: a plan run, crashed and resumed, against a ledger of side effects; the invoice graph."""

import os
import sqlite3

from grader.child.probes import probe
from grader.parts.events.probes.common import dump, scratch
from grader.parts.events.probes.fakes import Ledger, TrustedStore, fake_tool, killing_store
from grader.parts.events.probes.processes import forked
from grader.parts.events.tools import INVOICE_TOOLS

__all__ = ["resume_run", "call_tool_run", "invoice_run"]


def _phase_one(ctx, ledger, path, crash, run, here=False):
    """Run ``run(store)`` as phase 1: in a forked process for a kill, here for a raised error (or when ``here``).

    Here: what ``run`` returned, or the ``Raised`` of what it raised. Forked:
    ``{"killed": <by a signal>, "exit": <its exit status, or None>}``.
    """
    ledger.phase = 1
    if here or (crash and crash[0] == "raise"):
        return ctx.attempt(lambda: run(TrustedStore(ctx, path)))

    def body():
        store = TrustedStore(ctx, path)
        run(killing_store(ctx, store, crash[1]) if crash and crash[0] == "kill_after_append" else store)

    pid = forked(body)
    status = os.waitpid(pid, 0)[1]
    return {"killed": os.WIFSIGNALED(status), "exit": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None}


@probe
@scratch
def resume_run(ctx, folder, task_id, plan, answers, keyed, crash):
    """``run_task`` with a crash in phase 1, resumed in phase 2, and called once more in phase 3.

    ``answers``: "tool/n" -> the tool's result; ``keyed``: tools taking idempotency_key.
    """
    path = os.path.join(folder, "events.db")
    ledger = Ledger(folder)
    names = sorted({step["tool"] for step in plan})
    tools = {name: fake_tool(ledger, name, ["n", "idempotency_key=None"] if name in keyed else ["n"],
                              lambda kwargs, name=name: answers[f"{name}/{kwargs['n']}"], crash) for name in names}
    run_task = ctx.get("run_task")

    def run(store):
        return run_task(store, task_id, {"plan": len(plan)}, plan, tools)

    first = _phase_one(ctx, ledger, path, crash, run)
    log_after_crash = dump(TrustedStore(ctx, path).list(task_id))
    ledger.phase = 2
    second = ctx.attempt(lambda: run(TrustedStore(ctx, path)))
    ledger.phase = 3
    third = ctx.attempt(lambda: run(TrustedStore(ctx, path)))
    return {"first": first, "log_after_crash": log_after_crash, "second": second, "third": third,
            "ledger": ledger.read(), "log": dump(TrustedStore(ctx, path).list(task_id))}


@probe
@scratch
def call_tool_run(ctx, folder, task_id, calls, answers, keyed):
    """``call_tool`` for each ``[call_id, tool, n]`` on one log; the results, the side effects and the log."""
    store = TrustedStore(ctx, os.path.join(folder, "events.db"))
    ledger = Ledger(folder)
    names = sorted({tool for _, tool, _ in calls})
    tools = {name: fake_tool(ledger, name, ["n", "idempotency_key=None"] if name in keyed else ["n"],
                              lambda kwargs, name=name: answers[f"{name}/{kwargs['n']}"], None) for name in names}
    call_tool = ctx.get("call_tool")
    results = [ctx.attempt(lambda c=c: call_tool(store, task_id, c[0], tools[c[1]], {"n": c[2]})) for c in calls]
    return {"results": results, "ledger": ledger.read(), "log": dump(store.list(task_id))}


@probe
@scratch
def invoice_run(ctx, folder, task_id, customer, amount, crash):
    """``build_invoice_graph`` with a SqliteSaver on a file: crash in phase 1, ``invoke(None, config)`` in phase 2."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    path, checkpoints = os.path.join(folder, "events.db"), os.path.join(folder, "checkpoints.db")
    ledger = Ledger(folder)
    tools = {name: fake_tool(ledger, name, params, answer, crash) for name, (params, answer) in INVOICE_TOOLS.items()}
    build = ctx.get("build_invoice_graph")
    config = {"configurable": {"thread_id": task_id}, "recursion_limit": 20}

    def run(store, graph_input):  # durability="sync": each step's checkpoint is on disk before the next step starts
        saver = SqliteSaver(sqlite3.connect(checkpoints, check_same_thread=False))
        return dict(build(store, tools, checkpointer=saver).invoke(graph_input, config, durability="sync"))

    # A clean run runs here, not forked: what it raises is named with the learner's line.
    first = _phase_one(ctx, ledger, path, crash, lambda store: run(store, {"task_id": task_id, "customer": customer,
                                                                          "amount": amount}), here=crash is None)
    log_after_crash = dump(TrustedStore(ctx, path).list(task_id))
    ledger.phase = 2
    second = ctx.attempt(lambda: run(TrustedStore(ctx, path), None))
    return {"first": first, "log_after_crash": log_after_crash, "second": second, "ledger": ledger.read(),
            "log": dump(TrustedStore(ctx, path).list(task_id))}
