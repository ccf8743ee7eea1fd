"""Part E's single functions, run from the grading process: ``budgeted``'s reducer step by step, ``trim_removals``,
``summarize_removals``.

A conversation is built here as LangChain's messages (``grader.parts.messages.plain``)
and crosses to the learner's process as messages; each call there is one
call of the learner's function, and what it returned and did to its
arguments comes back (``Remote.call_facts``). A reducer's steps are calls
made from here, each on the result the step before returned. The replies
keep the shape the rules read: plain dicts, random ids renamed (``stable``).
"""

from grader.engine.handles import Handle, Raised
from grader.engine.remote import Remote, scenario
from grader.parts.messages.plain import message, plain, plains, stable

__all__ = ["reduce", "trim", "summarize"]


def _here(value):
    """What the learner's call returned, as the plain-data helpers read it: an object kept over there (a Handle) stands
    in as an object of its class's name, so ``plain`` says what it is ("not a message: Board")."""
    if isinstance(value, Handle):
        return type(value.type_name.rsplit(".", 1)[-1], (), {})()
    if isinstance(value, list):
        return [_here(item) for item in value]
    return value


def _facts(remote: Remote, target, *args):
    """``target(*args)`` over there: its facts, or the ``Raised`` of what it raised (a stub's goes on)."""
    return remote.attempt(lambda: remote.call_facts(target, *args))


@scenario
def reduce(remote: Remote, budget, writes, old=None):
    """``budgeted(budget)`` applied write after write from ``old``: each step's result, and what it did to its arguments."""
    reducer = remote.attempt(lambda: remote.call("budgeted", budget))
    if isinstance(reducer, Raised):
        return reducer
    state, steps = None if old is None else [message(spec) for spec in old], []
    for write in writes:
        new = [message(spec) for spec in write]
        facts = _facts(remote, reducer, state, new)
        if isinstance(facts, Raised):
            return stable({"steps": steps, "raised": facts})
        state_after, new_after = (_here(arg) for arg in facts["args_after"])
        held_before, held_after = (plains(held) if held is not None else None for held in (state, state_after))
        steps.append({"result": plains(_here(facts["result"])), "old_now": held_after if held_after != held_before else None,
                      "new_after": plains(new_after), "returned_old": facts["returned_an_argument"][0] is True and state is not None})
        state = facts["result"]
    return stable({"steps": steps, "raised": None})


@scenario
def trim(remote: Remote, history, budget):
    facts = _facts(remote, "trim_removals", [message(spec) for spec in history], budget)
    if isinstance(facts, Raised):
        return facts
    after = _here(facts["args_after"][0])
    return stable({"removals": plains(_here(facts["result"])),
                   "unchanged": type(after) is list and [plain(m) for m in after] == history})


@scenario
def summarize(remote: Remote, history, keep_last):
    facts = _facts(remote, "summarize_removals", [message(spec) for spec in history], keep_last)
    if isinstance(facts, Raised):
        return facts
    answer = _here(facts["result"])
    if not isinstance(answer, tuple) or len(answer) != 2:
        return {"shape": type(answer).__name__}
    summary, removals = answer
    after = _here(facts["args_after"][0])
    return stable({"shape": "pair", "summary": summary if isinstance(summary, str) else {"not a str": type(summary).__name__},
                   "removals": plains(_here(removals)), "unchanged": type(after) is list and [plain(m) for m in after] == history})
