"""Part E's calls: ``trim_removals`` and ``summarize_removals``, one call each in the learner's process.

A conversation crosses as plain dicts (``grader.parts.messages.plain``): each
call builds LangChain's messages from them here, calls the learner's function
once and sends back what it returned, and whether it changed the messages it
was given. The reducer's steps, ChatState's channels, the budget graph and
the chat graph with its scripted model are composed in the grading process
(``grader.parts.messages.scenarios``).
"""

from grader.child.probes import Raised, probe
from grader.parts.messages.plain import message, plain, plains, stable

__all__ = ["trim", "summarize"]


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
