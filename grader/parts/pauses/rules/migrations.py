"""Notebook 36, pauses.migrate: ``upgrade`` and ``migrate`` carry every value of an old state to the current release.

Pure functions, called once each with plain data (the generic ``call``
probe); what they must return is ``grader.parts.pauses.model``'s, written
from docs/reference/part-f.md, and each rule compares one part of it.
"""

from grader.engine.checking import Failure
from grader.engine.registry import task
from grader.engine.showing import show
from grader.i18n import N_, _
from grader.parts.pauses import strategies as gen
from grader.parts.pauses.checks import case_rule, same
from grader.parts.pauses.model import CURRENT, model_migrate, model_upgrade

migrate = task("pauses.migrate")

# Checked on every seed; the first total is not its count of items, so a total recomputed from them shows on every seed.
FIXED = [(1, {"version": 1, "items": ["a", "b"], "total": 5, "note": "gift"}),
         (2, {"version": 2, "lines": ["a"], "total": 7}),
         (3, {"version": 3, "lines": [{"text": "a", "qty": 2}], "total": 2, "currency": "USD", "archive": {"note": 1}})]


def _upgraded(check, version, values):
    """(the learner's upgrade of ``values``, the model's) for a state of release 1 or 2; None for release 3."""
    if version == CURRENT:
        return None
    call, wanted = check.value("upgrade", values, version), model_upgrade(values, version)
    if not isinstance(call.result, dict):
        raise Failure(_("{text} returned {result}; expected a dict, the state of release {value}").format(
                          text=call.text(), result=show(call.result), value=version + 1),
                      call.counterexample(wanted))
    return call, wanted


def _rule(sentence: str, judge):
    return case_rule(migrate, sentence, judge, FIXED, gen.release_cases, "call", "release_case")


def _release(check, version, values):
    pair = _upgraded(check, version, values)
    if pair is None:
        return
    call, wanted = pair
    got = call.result
    if not isinstance(got, dict) or set(got) != set(wanted) or not same(got.get("version"), version + 1):
        raise Failure(_("{text} returned {got}; expected a state of release {value} with the keys {wanted} and version "
                        "{value}").format(text=call.text(), got=show(got), value=version + 1, wanted=sorted(wanted)),
                      call.counterexample(wanted))


def _lines(check, version, values):
    pair = _upgraded(check, version, values)
    if pair is None:
        return
    call, wanted = pair
    if not same(call.result.get("lines"), wanted["lines"]):
        said = _("{text} gave the lines {get}; expected {lines}: every old item, in order, each a {{'text': s, 'qty': 1}}") \
            if version == 2 else _("{text} gave the lines {get}; expected {lines}: every old item, in order")
        raise Failure(said.format(text=call.text(), get=show(call.result.get('lines')), lines=show(wanted['lines'])),
                      call.counterexample(wanted))


def _kept(check, version, values):
    pair = _upgraded(check, version, values)
    if pair is None:
        return
    call, wanted = pair
    for key in sorted(set(wanted) - {"version", "lines"}, key=str):
        if not same(call.result.get(key), wanted[key]):
            why = {"total": _("total is kept as it was, not recomputed"), "currency": _("release 3's currency is 'EUR'"),
                   "archive": _("a key no release has lands in archive under its name")}.get(
                key, _("a key no release has is carried unchanged to release 2"))
            raise Failure(_("{text} gave {key}={get}; expected {wanted}: {why}").format(
                              text=call.text(), key=key, get=show(call.result.get(key)), wanted=show(wanted[key]), why=why),
                          call.counterexample(wanted))


def _composes(check, version, values):
    call = check.value("migrate", values, version)
    wanted = model_migrate(values, version)
    if not same(call.result, wanted):
        why = _("equal to values on a current state") if version == CURRENT else _("upgrade applied release by release")
        raise Failure(_("{text} returned {result}; expected {wanted}: {why}").format(
                          text=call.text(), result=show(call.result), wanted=show(wanted), why=why),
                      call.counterexample(wanted))


def _pure(check, version, values):
    for name in ("upgrade", "migrate") if version < CURRENT else ("migrate",):
        # Equal arguments, its keys in another order: another call, never the first one's answer again.
        first, again = check.value(name, values, version), check.call(name, dict(reversed(values.items())), version)
        target = version + 1 if name == "upgrade" else CURRENT
        if not isinstance(first.result, dict) or first.result.get("version") != target:  # purity of a real upgrade
            raise Failure(_("{text} returned {result}; expected a state of release {target}").format(
                              text=first.text(), result=show(first.result), target=target),
                          first.counterexample(target))
        if first.args_after and not same(first.args_after[0], values):
            raise Failure(_("{text} changed its argument to {args_after}; the arguments are not modified").format(
                              text=first.text(), args_after=show(first.args_after[0])), first.counterexample(first.result))
        if again.raised is None and not same(again.result, first.result):
            raise Failure(_("{text} returned {result}, then {result2}; the same arguments give equal results").format(
                              text=first.text(), result=show(first.result), result2=show(again.result)),
                          first.counterexample(first.result, again.result))


release = _rule(N_("upgrade(values, version) is the state of release version + 1, with version set to it"), _release)
lines = _rule(N_("nothing is lost: every item of an old list is in the new list, in order, converted as the table says"),
              _lines)
kept = _rule(N_("total is kept as it was; a key no release has is carried unchanged to release 2 and lands in archive "
             "under its key in release 3; currency is 'EUR'"), _kept)
composes = _rule(N_("migrate is upgrade applied release by release up to CURRENT_VERSION, and equal to values on a "
                 "current state"), _composes)
pure = _rule(N_("pure: the arguments are not modified, and the same arguments give equal results"), _pure)


@migrate.rule(N_("upgrade with a version outside 1..CURRENT_VERSION - 1, and migrate with one outside 1..CURRENT_VERSION, "
              "raise ValueError"))
def out_of_range(check):
    values = {"version": 1, "items": ["a"], "total": 1}
    check.value("upgrade", values, 1), check.value("migrate", values, 1)  # in range: no raise (raising always is no rule)
    for name, version in (("upgrade", 0), ("upgrade", CURRENT), ("upgrade", -1), ("migrate", 0), ("migrate", CURRENT + 1)):
        call = check.call(name, values, version)
        if call.raised is None or not call.raised.is_a("ValueError"):
            did = _("raised {type}").format(type=call.raised.type) if call.raised is not None else _("returned {result}").format(
                                                                                   result=show(call.result))
            raise Failure(_("{text} {did}; expected ValueError: there is no release {version} to go from").format(
                              text=call.text(), did=did, version=version),
                          call.counterexample("raises ValueError", did))

