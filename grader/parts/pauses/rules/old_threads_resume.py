"""Notebook 37, pauses.upgrade: a thread paused under an old release resumes under the new one with all it held.

The scenario ``upgrade_run`` starts a thread with the grader's own graph of
release 1 or 2 (release 3: the learner's ``build_order_graph``), paused at
``wait``; it reads the thread's saved keys from its checkpointer, calls the
learner's ``upgrade_update`` on them, applies the update through the
learner's release 3 graph (once on one thread, twice on another), and
confirms.
"""

from grader.engine.checking import Counterexample, Failure, no_raise
from grader.engine.registry import task
from grader.engine.showing import show
from grader.i18n import N_, _
from grader.parts.pauses import strategies as gen
from grader.parts.pauses.checks import case_rule, interrupt_hint, same, written, written_update
from grader.parts.pauses.model import CURRENT, VERSIONS, model_migrate, new_line, total_of

upgrade = task("pauses.upgrade")

FIXED = [(1, {"version": 1, "items": ["a", "b"], "total": 2}), (2, {"version": 2, "lines": ["a"], "total": 1}),
         (3, {"version": 3, "lines": [{"text": "a", "qty": 2}], "total": 2, "currency": "USD", "archive": {"note": "gift"}})]


def expected(version: int, values: dict) -> tuple[dict, dict]:
    """(the update that is meant, the state the resumed run completes with)."""
    migrated = model_migrate(values, version)
    update = {key: {"Overwrite": migrated.get(key)} if rule == "append" else {"value": migrated.get(key)}
              for key, rule in VERSIONS[CURRENT].items()}
    lines = [*migrated["lines"], new_line(CURRENT)]
    return update, {**migrated, "lines": lines, "total": total_of(lines, CURRENT)}


def resumed(check, version, values, thread="once", resuming=True):
    """The run of one thread; ``resuming``: a raise on the confirmation fails the rule (the paused rule reads the
    thread before it)."""
    if thread == "twice":
        what = _("a thread paused at wait under release {version} with {values}, updated through "
                 "build_order_graph(...) with upgrade_update(saved, {version}) twice, then confirmed").format(
                   version=version, values=show(values))
    else:
        what = _("a thread paused at wait under release {version} with {values}, updated through "
                 "build_order_graph(...) with upgrade_update(saved, {version}), then confirmed").format(
                   version=version, values=show(values))
    got = no_raise(check.probe("upgrade_run", version, values, limit=4 * check.call_limit), what)
    update, final = expected(version, values)
    example = Counterexample("upgrade_update", [got.get("once", {}).get("saved", values), version], update,
                             got.get("once", {}).get("update"))
    no_raise(got["built"], "build_order_graph(checkpointer)", example=example)
    run = got[thread]
    if run.get("starting"):
        no_raise(run["raised"], _("{what}: starting the thread with your release 3 graph").format(what=what), example=example,
                 hint=interrupt_hint(run["raised"]))
        raise Failure(_("{what}: starting the thread with your release 3 graph saved no checkpoint").format(what=what), example)
    if run.get("update") is None:
        no_raise(run["raised"], f"upgrade_update({show(run.get('saved'))}, {version})", example=example)
    if run.get("applying"):
        no_raise(run["raised"], f"{what}: update_state(config, update)", example=example)
    if resuming:
        no_raise(run["raised"], f"{what}: invoke(Command(resume=True), config)", example=example,
                 hint=_("after the update the thread held {written}").format(written=show(written(run.get('after')))))
    return what, run, update, final, example


def _rule(sentence: str, judge):
    return case_rule(upgrade, sentence, judge, FIXED, gen.thread_cases, "sequence", "thread_case")


def _completes(check, version, values):
    what, run, _skip, final, example = resumed(check, version, values)
    if run["next_final"] or not same(run["final"], final):
        if run["next_final"]:
            said = _("{what}: the run ended with {final}, stopped before {next}; expected {final2}: every line it held, "
                     "migrated, plus the new one, and their total").format(
                       what=what, final=show(run['final']), next=show(run['next_final']), final2=show(final))
        else:
            said = _("{what}: the run ended with {final}; expected {final2}: every line it held, migrated, plus the new one, "
                     "and their total").format(what=what, final=show(run['final']), final2=show(final))
        raise Failure(said,
                      Counterexample("upgrade_update", [run["saved"], version], final, run["final"]))


def _sets(check, version, values):
    what, run, _skip, _skip, example = resumed(check, version, values)
    # Judged on what upgrade_update was given: the thread's saved keys (a release 3 graph that never paused saved more).
    saved = run.get("saved") if isinstance(run.get("saved"), dict) else values
    update, _skip = expected(version, saved)
    if not same(run["update"], update):
        got, wanted = show(written_update(run["update"])), show(written_update(update))
        raise Failure(_("{what}: upgrade_update returned {got}; expected {wanted}: every key of release 3, Overwrite for "
                        "lines (a key with a reducer), the value for the others").format(what=what, got=got, wanted=wanted), example)


def _twice(check, version, values):
    what, once, _skip, _skip, example = resumed(check, version, values)
    _skip, twice, _skip, _skip, _skip = resumed(check, version, values, "twice")
    names = sorted(once["update"]) if isinstance(once.get("update"), dict) else once.get("update")
    if names != sorted(VERSIONS[CURRENT]):  # an update that names nothing (or little) is idempotent for nothing
        raise Failure(_("{what}: upgrade_update returned {written_update}; this rule is judged on an update that names every "
                        "key of release 3 ({join})").format(
                          what=what, written_update=show(written_update(once.get('update'))), join=', '.join(VERSIONS[CURRENT])), example)
    if not same(twice["after"], once["after"]):
        raise Failure(_("{what}: applied twice, the thread holds {written}; once, {written2}: applying the update twice "
                        "gives the same state as once").format(
                          what=what, written=show(written(twice['after'])), written2=show(written(once['after']))), example)


def _paused(check, version, values):
    what, run, _skip, _skip, example = resumed(check, version, values, resuming=False)
    if version == CURRENT and run["shown"] != ["confirm"]:
        raise Failure(_("{what}: your release 3 graph paused with the interrupts {shown}; expected one, 'confirm', from its "
                        "wait node").format(what=what, shown=show(run['shown'])), example)
    if run["next_after"] != ["wait"]:
        raise Failure(_("{what}: after the update the thread's next is {next_after}; expected ['wait']: still paused there "
                        "(update_state without as_node), the confirmation resumes it").format(
                          what=what, next_after=show(run['next_after'])), example)
    if same(run["after"], model_migrate(values, version)):  # a thread the update left unmigrated is the update's rule
        no_raise(run["raised"], f"{what}: invoke(Command(resume=True), config)", example=example,
                 hint=_("after the update the thread held {written}").format(written=show(written(run.get('after')))))


# The update's own rule first: a wrong update is named as such, and the rules about pausing and applying it twice,
# judged apart from its values, keep their points where they hold.
sets = _rule(N_("the update sets every key of release 3, with Overwrite for lines and the value for the others"), _sets)
completes = _rule(N_("a thread paused under any release, upgraded with upgrade_update and resumed by build_order_graph, "
                  "completes with every line it held (migrated) plus the new one, and the total they make"), _completes)
paused = _rule(N_("release 3's wait pauses with 'confirm'; the thread stays paused at wait after the update, and the "
               "confirmation resumes it there"), _paused)
twice = _rule(N_("applying the update twice gives the same state as once"), _twice)
