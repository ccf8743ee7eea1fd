"""Notebook 02, append and the budget: ``append`` and ``State.trace``; ``State.used_calls`` summed across writers."""

from grader.engine.expectations import expect_list_result, expect_pure
from grader.engine.registry import task
from grader.i18n import N_, _
from grader.parts.state import strategies as gen
from grader.parts.state.checks import state_key_graph
from grader.parts.state.model import model_add, model_append

# -- state.append ---------------------------------------------------------------------------
append_task = task("state.append")


@append_task.rule(N_("append returns the items of old, then the items of new, in order"))
def append_order(check):
    @check.forall(gen.item_lists, gen.list_writes)
    def in_order(old, new):
        expect_list_result(check, "append", old, new, model_append(old, new))


@append_task.rule(N_("a bare str is one item, never split into characters"))
def append_bare_str(check):
    @check.forall(gen.item_lists, gen.bare_strs)
    def one_item(old, new):
        expect_list_result(check, "append", old, new, model_append(old, new))


@append_task.rule(N_("old may be None: nothing stored yet"))
def append_none(check):
    @check.forall(gen.writes)
    def from_none(new):
        expect_list_result(check, "append", None, new, model_append(None, new))


@append_task.rule(N_("append returns a new list and never mutates its arguments"))
def append_pure(check):
    # old=None too: a reducer handing back the write itself when nothing is stored returns an argument.
    @check.forall(gen.olds, gen.item_lists)
    def pure(old, new):
        expect_pure(check, "append", old, new)


@append_task.rule(N_("State.trace accumulates every write, sequential and parallel (parallel ones in node-name order)"))
def trace_graph(check):
    @check.forall(gen.graph_case("trace", gen.writes, gen.item_lists), examples=check.budget("graph"),
                  first=gen.small_graph("trace", ["x"], ["y"], "z"))
    def accumulates(case):
        state_key_graph(check, "State", "trace", *case, start=[], reducer=model_append,
                        why=_("every write is kept"))


# -- state.budget -------------------------------------------------------------------------------
budget = task("state.budget")


@budget.rule(N_("State.used_calls sums every write, from sequential and parallel writers alike"))
def budget_sums(check):
    @check.forall(gen.graph_case("used_calls", gen.calls_spent, gen.calls_in_input), examples=check.budget("graph"),
                  first=gen.small_graph("used_calls", 1, 2, 3))
    def sums(case):
        state_key_graph(check, "State", "used_calls", *case, start=0, reducer=model_add,
                        why=_("each writer adds the calls it spent"))


@budget.rule(N_("State.used_calls starts at 0 and counts a write of 0 as nothing spent"))
def budget_zero(check):
    @check.forall(gen.supersteps(), examples=check.budget("graph"))
    def zeros(steps):
        writes = {name: {"used_calls": 0} for step in steps for name in step}
        state_key_graph(check, "State", "used_calls", steps, writes, {}, start=0, reducer=model_add,
                        why=_("an int channel starts at 0 and 0 + 0 is 0"))
