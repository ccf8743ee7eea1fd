"""Checks of one call of a learner function, for every part's rules: the right value, a new list, arguments untouched.

Each calls the learner's function through a ``Checker`` (``check.value``: a
learner exception is the rule's error) and raises ``Failure`` with the call
in the learner's words and both answers.
"""

from grader.engine.checking import Abort, Checker, Counterexample, Failure
from grader.engine.showing import contrast, show
from grader.i18n import _
from grader.wire import Opaque

__all__ = ["expect_decision_keys", "expect_value_error", "expect_list_result", "expect_pure", "expect_value"]


def _reducer_call(check: Checker, name: str, old, new, factory_args):
    """``name(old, new)``, or the reducer ``name(*factory_args)`` returns called so; a learner exception fails the rule."""
    return check.value(name, old, new) if factory_args is None else check.value_made(name, factory_args, old, new)


def expect_list_result(check: Checker, name: str, old, new, expected, factory_args=None):
    """One reducer call: the right items, exactly a new ``list``, arguments untouched."""
    call = _reducer_call(check, name, old, new, factory_args)
    got = call.result
    if type(got) is not list or got != expected:
        # An Opaque value's text already names its type.
        kind = "" if type(got) is list or isinstance(got, Opaque) else _(" (a {type})").format(type=type(got).__name__)
        kind += "" if type(got) is list else ", not a list"
        shown_got, shown_expected = contrast(got, expected)
        raise Failure(_("{text} returned {shown_got}{kind}; expected {shown_expected}").format(
                          text=call.text(), shown_got=shown_got, kind=kind, shown_expected=shown_expected), call.counterexample(expected))
    return call


def expect_pure(check: Checker, name: str, old, new, factory_args=None, params=("old", "new")):
    """The reducer returns a new list and leaves both arguments as they were; ``params``: its parameters' names."""
    call = _reducer_call(check, name, old, new, factory_args)
    for label, before, after, same in zip(params, (old, new), call.args_after, call.returned_an_argument):
        if after != before or type(after) is not type(before):
            raise Failure(_("{text} changed its argument {label} to {after}; a reducer never mutates its arguments").format(
                              text=call.text(), label=label, after=show(after)),
                          call.counterexample(before, after))
        if same:
            raise Failure(_("{text} returned its argument {label} itself; return a new list").format(text=call.text(), label=label),
                          call.counterexample("a new list", "the argument itself"))
    if type(call.result) is not list:
        raise Failure(_("{text} returned {result}; expected exactly a list").format(text=call.text(), result=show(call.result)),
                      call.counterexample("a list"))


def expect_value(check, name, args, expected):
    """``name(*args)`` returns ``expected``, of its very type (``True`` is no ``1``)."""
    call = check.value(name, *args)
    if call.result != expected or type(call.result) is not type(expected):
        shown_got, shown_expected = contrast(call.result, expected)
        raise Failure(_("{text} returned {shown_got}; expected {shown_expected}").format(
                          text=call.text(), shown_got=shown_got, shown_expected=shown_expected), call.counterexample(expected))
    return call.result


def expect_decision_keys(check, schema: str, keys: list[str]) -> dict:
    """The module's ``DECISIONS``: a dict with exactly ``schema``'s ``keys`` (empty: not written yet)."""
    table = check.probe("attr", "DECISIONS")
    if type(table) is not dict:
        raise Failure(_("DECISIONS is {table}; expected a dict from each {schema} key to a sentence").format(
                          table=show(table), schema=schema))
    if not table:
        raise Abort("not_implemented", _("DECISIONS is empty: write one sentence per {schema} key").format(schema=schema))
    got = sorted(map(str, table))
    if got != sorted(keys):
        missing, extra = sorted(set(keys) - set(got)), sorted(set(got) - set(keys))
        raise Failure(_("DECISIONS has keys {got}; expected exactly the {schema} keys (missing {missing}, extra {extra})").format(
                          got=got, schema=schema, missing=missing, extra=extra),
                      Counterexample("DECISIONS", [], sorted(keys), got))
    return table


def expect_value_error(check, name: str, args: list) -> None:
    """``name(*args)`` raises ValueError at the call (not a function that fails later, inside a run)."""
    call = check.call(name, *args)
    text = f"{name}({', '.join(map(repr, args))})"
    if call.raised is None:
        raise Failure(_("{text} returned {result}; expected ValueError at once").format(text=text, result=show(call.result)),
                      call.counterexample("ValueError"))
    if not call.raised.is_a("ValueError"):
        raise Failure(_("{text} raised {sentence}; expected a ValueError").format(text=text, sentence=call.raised.sentence()),
                      call.counterexample("ValueError", call.raised.type))


# -- one state key through a graph ------------------------------------------------------------
