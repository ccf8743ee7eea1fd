"""The probes every part uses, run in the learner's process: call a function, read a name, call a held object's method.

The engine asks them for any part (``Checker.call``, ``call_made``,
``call_catching``; ``attr`` to import the module and read constants); a
scenario asks the operations at the end (``Remote.method``, ``attribute``,
``lend_locks``, ``lend_clock``, ``lend_log``): a method of one of the learner's objects,
one of its attributes, plain data held for the grading side, a folder of
this process's /tmp, and the grading side's locks, clock and log lent. Each is
one call of the learner's code, or none. Like every probe, they report plain
data and judge nothing, and import nothing of the grading side.
"""

import copy
import os
import shutil
import tempfile

from grader.child import lent
from grader.child.lent import Held
from grader.child.probes import Raised, operation, probe

__all__ = ["call", "call_reducer", "attr", "call_made", "call_catching", "attribute", "call_method", "tamper", "hold",
           "scratch", "unscratch", "lend_locks", "lend_clock", "lend_log"]


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


# -- operations a scenario composes, the learner's objects named by handle -----------------------------------
@operation
def attribute(ctx, target, name):
    """``target.<name>``: a held object's attribute (a property's value is what the learner's code returns)."""
    return getattr(target, str(name))


@operation
def call_method(ctx, target, name, args, attrs=(), by_handle=False, as_data=False):
    """``target.<name>(*args)`` (``target`` None: the module's function ``name``): ``{"result": ...}``, or ``{"raised":
    Raised}`` with the exception's ``attrs`` (``StaleVersion.expected``); a stub's NotImplementedError goes through, the
    task's verdict. ``by_handle``: the result sent as a handle. ``as_data``: the result, and the arguments when the call
    changed them (``args_after``), as data, a model as its own ``model_dump(mode="json")`` gives it."""
    function = ctx.get(name) if target is None else getattr(target, str(name))
    before = _as_data(args) if as_data else None
    outcome = ctx.attempt(lambda: function(*args), attrs)
    if isinstance(outcome, Raised):
        return {"raised": outcome}
    if not as_data:
        return {"result": Held(outcome) if by_handle else outcome}
    after = _as_data(args)
    return {"result": _as_data(outcome), **({"args_after": after} if after != before else {})}


def _as_data(value):
    """``value`` as data: a list's items and a model (``model_dump``) turned into data, anything else as it is."""
    if type(value) is list:
        return [_as_data(item) for item in value]
    dump = getattr(value, "model_dump", None)
    return dump(mode="json") if callable(dump) else value


@operation
def tamper(ctx, target):
    """Mark every dict of ``target`` (a held list, or a held dict itself) ``"tampered": True``: what the grading
    side sent or was given, changed after the call, to see whether the learner's object kept a copy."""
    for item in target if type(target) is list else [target]:
        if type(item) is dict:
            item["tampered"] = True


@operation
def hold(ctx, value):
    """``value`` (plain data the grading side sent), kept here: the grading side passes its handle to a call, then
    changes it (``tamper``)."""
    return Held(value)


@operation
def scratch(ctx):
    """Housekeeping: a fresh folder in this process's temporary directory (a store on a file lives there)."""
    return tempfile.mkdtemp(prefix=_SCRATCH)


@operation
def unscratch(ctx, folder):
    """Housekeeping: remove a folder ``scratch`` made (and only such a folder), what the learner's code left in it too."""
    if isinstance(folder, str) and os.path.dirname(folder) == tempfile.gettempdir() and \
            os.path.basename(folder).startswith(_SCRATCH):
        shutil.rmtree(folder, ignore_errors=True)


_SCRATCH = "agstate-scratch-"


@operation
def lend_locks(ctx, factory):
    """``threading.Lock()``/``RLock()`` make the grading side's locks (``factory(reentrant)``) until ``take_back``."""
    lent.lend_locks(ctx, factory)


@operation
def lend_clock(ctx, clock):
    """The learner's module reads the grading side's ``clock()`` for ``time.time()`` until ``take_back``."""
    lent.lend_clock(ctx, clock)


@operation
def lend_log(ctx, name, heard):
    """Each warning logged on logger ``name`` is the grading side's ``heard(message)`` until ``take_back``."""
    lent.lend_log(ctx, str(name), heard)
