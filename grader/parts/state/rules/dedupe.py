"""Notebook 03, dedupe: ``merge_sources`` keeps first occurrences, in linear time; ``State.sources`` uses it."""

from grader.engine.checking import Abort, Failure, no_raise
from grader.engine.expectations import expect_list_result, expect_pure
from grader.engine.registry import task
from grader.i18n import N_, _
from grader.parts.state import strategies as gen
from grader.parts.state.checks import state_key_graph
from grader.parts.state.model import model_merge

dedupe = task("state.dedupe")


@dedupe.rule(N_("merge_sources keeps the first occurrence of each item, in order"))
def dedupe_first(check):
    @check.forall(gen.item_lists, gen.list_writes)
    def first_occurrence(old, new):
        expect_list_result(check, "merge_sources", old, new, model_merge(old, new))


@dedupe.rule(N_("the result never holds a duplicate, also when old already held one"))
def dedupe_old_duplicates(check):
    @check.forall(gen.olds_with_repeats, gen.item_lists)
    def no_duplicates(old, new):
        expect_list_result(check, "merge_sources", old, new, model_merge(old, new))


@dedupe.rule(N_("old may be None, and a bare str is one item"))
def dedupe_edges(check):
    @check.forall(gen.olds, gen.items)
    def edges(old, new):
        expect_list_result(check, "merge_sources", old, new, model_merge(old, new))


@dedupe.rule(N_("merge_sources returns a new list and never mutates its arguments"))
def dedupe_pure(check):
    # old=None too: a reducer handing back the write itself when nothing is stored returns an argument.
    @check.forall(gen.olds, gen.item_lists)
    def pure(old, new):
        expect_pure(check, "merge_sources", old, new)


LINEAR_ITEMS = 50_000
LINEAR_LIMIT_S = 1.0


@dedupe.rule(N_("merge_sources runs in linear time: 50,000 items take well under a second"))
def dedupe_linear(check):
    try:
        # Wall time, past the CPU limit: a quadratic merge needs over 10 s, a linear one ~30 ms.
        seconds = check.probe("time_merge", LINEAR_ITEMS, check.seed, limit=2 * LINEAR_LIMIT_S)
    except Abort as stopped:
        if stopped.status != "timeout":
            raise
        raise Failure(_("merge_sources on {LINEAR_ITEMS:,} items did not finish in {value:.0f} s: checking `item not in "
                        "a_list` scans the list each time (quadratic); remember seen items in a set").format(
                          LINEAR_ITEMS=LINEAR_ITEMS, value=2 * LINEAR_LIMIT_S)) from None
    seconds = no_raise(seconds, f"merge_sources on {LINEAR_ITEMS:,} items")
    if seconds > LINEAR_LIMIT_S:
        raise Failure(_("merge_sources on {LINEAR_ITEMS:,} items took {seconds:.2f} s of CPU; expected under "
                        "{LINEAR_LIMIT_S:.0f} s: remember seen items in a set instead of scanning the list").format(
                          LINEAR_ITEMS=LINEAR_ITEMS, seconds=seconds, LINEAR_LIMIT_S=LINEAR_LIMIT_S))


@dedupe.rule(N_("State.sources merges every write, keeping first occurrences"))
def sources_graph(check):
    @check.forall(gen.graph_case("sources", gen.writes, gen.item_lists), examples=check.budget("graph"),
                  first=gen.small_graph("sources", ["x", "y"], ["y"], ["x", "z"]))
    def merged(case):
        state_key_graph(check, "State", "sources", *case, start=[], reducer=model_merge,
                        why=_("each source is listed once, where it first appeared"))
