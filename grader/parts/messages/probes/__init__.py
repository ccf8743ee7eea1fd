"""Part E's calls: ``budgeted``'s fold, ``trim_removals`` and ``summarize_removals``, in the learner's process.

A conversation crosses as plain dicts (``grader.parts.messages.plain``): each
call builds LangChain's messages from them here, calls the learner's function
once and sends back what it returned, and whether it changed the messages it
was given. The reducer's steps, ChatState's channels, the budget graph and
the chat graph with its scripted model are composed in the grading process
(``grader.parts.messages.scenarios``).
"""

from grader.child.probes import Raised, probe
from grader.parts.messages.plain import message, plain, plains, stable

__all__ = ["reduce", "trim", "summarize"]


@probe
def reduce(ctx, budget, writes, old=None):
    """``budgeted(budget)`` applied write after write from ``old``: each step's result, and what it did to its arguments.

    A fold of the learner's own reducer over the grader's writes, each step's
    input the step before's output: composed here, in one round trip, it is the
    same question composed in the grading process would ask, with nothing of
    the grader's between the steps.
    """
    reducer = ctx.attempt(lambda: ctx.get("budgeted")(budget))
    if isinstance(reducer, Raised):
        return reducer
    state, steps = None if old is None else [message(spec) for spec in old], []
    for write in writes:
        new = [message(spec) for spec in write]
        held_before = plains(state) if state is not None else None
        result = ctx.attempt(lambda: reducer(state, new))  # noqa: B023 (called at once)
        if isinstance(result, Raised):
            return stable({"steps": steps, "raised": result})
        held_after = plains(state) if state is not None else None
        steps.append({"result": plains(result), "old_now": held_after if held_after != held_before else None,
                      "new_after": [plain(m) for m in new], "returned_old": result is state and state is not None})
        state = result
    return stable({"steps": steps, "raised": None})


@probe
def trim(ctx, history, budget):
    messages = [message(spec) for spec in history]
    given = list(messages)
    removals = ctx.attempt(lambda: ctx.get("trim_removals")(messages, budget))
    if isinstance(removals, Raised):
        return removals
    return stable({"removals": plains(removals),
                    "unchanged": messages == given and [plain(m) for m in messages] == history})


@probe
def summarize(ctx, history, keep_last):
    messages = [message(spec) for spec in history]
    answer = ctx.attempt(lambda: ctx.get("summarize_removals")(messages, keep_last))
    if isinstance(answer, Raised):
        return answer
    if not isinstance(answer, tuple) or len(answer) != 2:
        return {"shape": type(answer).__name__}
    summary, removals = answer
    return stable({"shape": "pair", "summary": summary if isinstance(summary, str) else {"not a str": type(summary).__name__},
                    "removals": plains(removals), "unchanged": [plain(m) for m in messages] == history})
