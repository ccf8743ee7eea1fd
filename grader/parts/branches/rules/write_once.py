"""Notebook 23, branches.write_once: ``write_once`` sets a value once; an equal write keeps it, a different one raises."""

from grader.engine.checking import Failure, Raised
from grader.engine.expectations import expect_value
from grader.engine.registry import task
from grader.engine.showing import show
from grader.i18n import N_, _
from grader.parts.branches.checks import expect_raises
from grader.parts.branches.strategies import decision_steps, once_values

write_once_task = task("branches.write_once")


@write_once_task.rule(N_("write_once(None, new) takes the new value"))
def once_from_none(check):
    @check.forall(once_values)
    def takes(new):
        expect_value(check, "write_once", (None, new), new)


@write_once_task.rule(N_("an equal value keeps the stored one (a redelivered write is harmless)"))
def once_equal(check):
    @check.forall(once_values)
    def keeps(value):
        expect_value(check, "write_once", (value, value), value)


@write_once_task.rule(N_("a different value raises WriteOnceViolation carrying old and new"))
def once_different(check):
    @check.forall(once_values, once_values, first=("approved", "rejected"))
    def raises(old, new):
        if old == new:  # equal (0 == False too): kept, another rule's case
            return
        expect_raises(check, "write_once", [old, new], "WriteOnceViolation", {"old": old, "new": new},
                      _("a write-once value never changes"))


@write_once_task.rule(N_("in a graph, writers of one value agree, a different value raises, a redelivered write changes nothing"))
def once_in_graph(check):
    @check.forall(decision_steps, examples=check.budget("graph"), first=([["approved"], ["approved", "approved"]],))
    def folds(steps):
        final = check.probe("write_once_graph", steps)["value"]  # the key's last value, or what the run raised
        values = {value for step in steps for value in step}
        described = "; ".join(f"step {n}: {', '.join(map(repr, step))}" for n, step in enumerate(steps, 1))
        gave = final.type if isinstance(final, Raised) else show(final)
        if len(values) == 1:
            if final != steps[0][0]:
                raise Failure(_("a graph with Annotated[str | None, write_once] and writes {described} gave {gave}; expected "
                                "{steps}: every writer agreed").format(described=described, gave=gave, steps=repr(steps[0][0])))
        elif not (isinstance(final, Raised) and final.is_a("WriteOnceViolation")):
            raise Failure(_("a graph with Annotated[str | None, write_once] and writes {described} gave {gave}; expected "
                            "WriteOnceViolation: the writers disagree").format(described=described, gave=gave))
