"""Notebook 05, windows: ``keep_recent`` and the factory ``windowed(n)``; ``State.recent`` keeps the last WINDOW items."""

from grader.engine.checking import Counterexample, Failure, Raised
from grader.engine.expectations import expect_list_result, expect_pure
from grader.engine.registry import task
from grader.engine.showing import show
from grader.i18n import N_, _
from grader.parts.state import strategies as gen
from grader.parts.state.checks import learner_window, state_key_graph
from grader.parts.state.model import model_fold, model_window

window = task("state.window")
window.draws_ahead_with(WINDOW=3)  # the spec's: its examples are drawn before the learner is asked (grader.engine.predraw)


@window.rule(N_("keep_recent keeps the last WINDOW items of old + new, in order"))
def recent_last(check):
    size = learner_window(check)

    @check.forall(gen.olds, gen.writes)
    def last_items(old, new):
        expect_list_result(check, "keep_recent", old, new, model_window(size)(old, new))


@window.rule(N_("keep_recent returns a new list and never mutates its arguments"))
def recent_pure(check):
    # old=None too: a reducer handing back the write itself when nothing is stored returns an argument.
    @check.forall(gen.olds, gen.item_lists)
    def pure(old, new):
        expect_pure(check, "keep_recent", old, new)


@window.rule(N_("windowed(n) returns a reducer keeping the last n items, for any n >= 1"))
def windowed_last(check):
    @check.forall(gen.window_sizes, gen.olds, gen.writes)
    def last_n(n, old, new):
        expect_list_result(check, "windowed", old, new, model_window(n)(old, new), factory_args=[n])
        expect_pure(check, "windowed", old, new, factory_args=[n])


@window.rule(N_("windowed(WINDOW) behaves as keep_recent"))
def windowed_is_recent(check):
    size = learner_window(check)

    @check.forall(gen.olds, gen.writes)
    def same(old, new):
        recent = check.value("keep_recent", old, new).result
        expect_list_result(check, "windowed", old, new, recent, factory_args=[size])


@window.rule(N_("LangGraph accepts windowed(n) in Annotated[...]: the reducer takes exactly (old, new)"))
def windowed_in_graph(check):
    @check.forall(gen.graph_window_sizes, gen.graph_writes, examples=check.budget("graph"))
    def accepted(n, writes):
        got = check.probe("graph_accepts", "windowed", [n], writes)
        expected = model_fold(model_window(n), [], writes)
        if isinstance(got, Raised):
            # Failed, not error: LangGraph refusing the reducer is this rule's wrong answer, not a crash.
            raise Failure(_("a graph with Annotated[list[str], windowed({n})] raised {sentence}; LangGraph needs a reducer with "
                            "exactly two positional parameters (use a closure)").format(n=n, sentence=got.sentence()),
                          Counterexample("windowed", [n], expected, got.type), status="failed")
        if got.get("items") != expected:
            raise Failure(_("a graph with Annotated[list[str], windowed({n})] and writes {writes} ended with {get}; expected "
                            "{expected}").format(n=n, writes=show(writes), get=show(got.get('items')), expected=show(expected)))


@window.rule(N_("windowed(n) raises ValueError at once when n is not an int >= 1"))
def windowed_rejects(check):
    @check.forall(gen.bad_window_sizes)
    def rejects(n):
        call = check.call("windowed", n)
        if call.raised is None:
            raise Failure(_("windowed({n}) returned {result}; expected ValueError at once, not a reducer that fails later inside "
                            "a run").format(n=repr(n), result=show(call.result)), call.counterexample("ValueError"))
        if not call.raised.is_a("ValueError"):
            raise Failure(_("windowed({n}) raised {sentence}; expected a ValueError").format(n=repr(n), sentence=call.raised.sentence()),
                          call.counterexample("ValueError", call.raised.type))


@window.rule(N_("State.recent keeps the last WINDOW items written, sequential and parallel"))
def recent_graph(check):
    size = learner_window(check)

    @check.forall(gen.graph_case("recent", gen.writes, gen.item_lists), examples=check.budget("graph"),
                  first=gen.small_graph("recent", ["p", "q"], ["r", "s"], ["t"]))
    def recent(case):
        state_key_graph(check, "State", "recent", *case, start=[], reducer=model_window(size),
                        why=_("only the last WINDOW={size} items stay").format(size=size))
