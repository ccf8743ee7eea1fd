"""The probes every part uses, run in the learner's process: call a function, read a name, build a state's channels.

The engine asks them for any part (``Checker.call``, ``call_made``,
``call_catching``; ``attr`` to import the module and read constants;
``channels`` for a schema's merge rules); a part's own probes, in its
folder, are its scenarios. Like every probe, they report plain data and
judge nothing, and import nothing of the grading side.
"""

import copy

from grader.child.probes import Raised, probe

__all__ = ["call", "call_reducer", "attr", "call_made", "call_catching"]


@probe
def call(ctx, name, args):
    """Call ``name(*args)``; report the result, the arguments afterwards and identities."""
    return call_reducer(ctx, ctx.get(name), args)


def call_reducer(ctx, function, args):
    """``function(*args)``'s facts, or its ``Raised`` as the whole reply (``Checker.call`` reads it as ``Call.raised``)."""
    result = ctx.attempt(lambda: function(*args))
    if isinstance(result, Raised):
        return result
    return {"result": result, "args_after": list(args), "returned_an_argument": [result is arg for arg in args]}


@probe
def attr(ctx, name):
    return ctx.get(name)


@probe
def call_made(ctx, factory, factory_args, args):
    """Call the reducer ``factory(*factory_args)`` returns, like ``call`` does."""
    make = ctx.get(factory)
    reducer = ctx.attempt(lambda: make(*factory_args))
    if isinstance(reducer, Raised):
        return reducer
    return call_reducer(ctx, reducer, args)


@probe
def call_catching(ctx, name, args, attrs):
    """``name(*args)``: its result, or a ``Raised`` with the exception's attributes ``attrs``; the arguments before and after."""
    before = copy.deepcopy(args)
    # ctx.get inside the attempt: a missing name is reported as raised (Missing), as it always was here.
    result = ctx.attempt(lambda: ctx.get(name)(*args), attrs)
    return {"result": result, "args_after": args, "args_before": before}
