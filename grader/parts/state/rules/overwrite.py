"""Notebook 01, the overwrite: ``NaiveState.trace`` has no merge rule, and the rules show what follows."""

from grader.engine.checking import Failure, Raised, no_raise
from grader.engine.registry import task
from grader.engine.showing import show
from grader.i18n import N_, _
from grader.parts.state import strategies as gen
from grader.parts.state.checks import describe_graph, require_keys

overwrite = task("state.overwrite")


@overwrite.rule(N_("NaiveState.trace has no merge rule: LangGraph gives it a LastValue channel"))
def naive_has_no_reducer(check):
    info = require_keys(check, "NaiveState")
    if "trace" not in info["channels"]:
        raise Failure(_("NaiveState has keys {keys}; expected a key 'trace'").format(keys=info['keys']))
    channel = info["channels"]["trace"]
    if channel["channel"] != "LastValue":
        raise Failure(_("NaiveState.trace has the merge rule {value}; expected none (a plain list[str]), so the notebook can "
                        "show the overwrite").format(value=channel['reducer'] or channel['channel']))


@overwrite.rule(N_("sequential nodes writing NaiveState.trace overwrite each other: only the last write stays"))
def naive_overwrites(check):
    require_keys(check, "NaiveState")

    @check.forall(gen.supersteps(max_width=1, max_steps=5), examples=check.budget("graph"))
    def sequential_overwrites(steps):
        writes = {step[0]: {"trace": [step[0]]} for step in steps}
        graph = describe_graph(steps, writes, "trace", {})  # the writes only, not the input trace ["start"]
        got = no_raise(check.probe("run_graph", "NaiveState", ["trace"], steps, writes, {"trace": ["start"]}), graph)
        expected = [steps[-1][0]]
        if got.get("trace") != expected:
            raise Failure(_("{graph} ended with trace = {get}; expected {expected}: without a reducer the last write wins").format(
                              graph=graph, get=show(got.get('trace')), expected=show(expected)))


@overwrite.rule(N_("two nodes writing NaiveState.trace in the same step raise InvalidUpdateError"))
def naive_parallel_error(check):
    require_keys(check, "NaiveState")

    @check.forall(gen.supersteps(min_width=2, max_width=3, max_steps=1), examples=check.budget("graph"))
    def parallel_raises(steps):
        writes = {name: {"trace": [name]} for name in steps[0]}
        got = check.probe("run_graph", "NaiveState", ["trace"], steps, writes, {})
        if not (isinstance(got, Raised) and got.is_a("InvalidUpdateError")):
            did = _("raised {sentence}").format(sentence=got.sentence()) if isinstance(got, Raised) \
                else _("returned {got}").format(got=show(got))
            raise Failure(_("{describe_graph} {did}; expected InvalidUpdateError: a key without a reducer takes one value per "
                            "step").format(describe_graph=describe_graph(steps, writes, 'trace', {}), did=did))
