"""Part A's shared checks: the judging several of its rules and tasks do alike.

Each calls the learner's code through a ``Checker``, compares what came back
with ``grader.parts.state.model`` and raises ``Failure`` with the learner's
call and both answers: one state key through a random graph
(``state_key_graph``), a schema's keys (``require_keys``, ``expect_keys``)
and one run of the research graph (``research_run``). Checks of one call
of a learner function are every part's: ``grader.engine.expectations``.
"""

from grader.engine.checking import Abort, Checker, Counterexample, Failure, Raised, no_raise
from grader.engine.showing import contrast, show
from grader.i18n import _
from grader.parts.state.model import MISSING, model_graph

__all__ = ["lookup_rounds", "state_key_graph", "describe_graph", "show_missing",
           "require_keys", "expect_keys", "learner_window", "research_run"]


def state_key_graph(check: Checker, schema: str, key: str, steps, writes, graph_input, start, reducer, why: str):
    """Run a random graph writing ``key`` of the learner's schema; compare with the model."""
    # Only this key's channel is built (run_graph uses a one-key sub-schema): a broken annotation on
    # another key (e.g. builtin max for best_score) fails that key's task, not this one.
    require_keys(check, schema, whole_schema=False)
    expected = model_graph(steps, writes, key, graph_input, start, reducer)
    run = check.probe("run_graph", schema, [key], steps, writes, graph_input)
    # Raised outside the learner's file: LangGraph calling the key's merge rule, e.g. operator.add on a tuple write.
    hint = "" if not isinstance(run, Raised) or run.where else \
        _("the error is in {schema}.{key}'s merge rule: its Annotated[...] reducer must take each of these writes").format(
            schema=schema, key=key)
    got = no_raise(run, describe_graph(steps, writes, key, graph_input), hint=hint,
                   example=Counterexample("graph", [steps, writes, graph_input], None if expected is MISSING else expected, None))
    got_value = got.get(key, MISSING)
    if got_value != expected or (got_value is not MISSING and type(got_value) is not type(expected)):
        shown_got, shown_expected = (show_missing(got_value), show_missing(expected)) if MISSING is got_value or MISSING is expected \
            else contrast(got_value, expected)
        raise Failure(  # ``why``: the caller's reason, already in the learner's language
            _("{graph} ended with {key} = {got}; expected {expected} ({why})").format(
                graph=describe_graph(steps, writes, key, graph_input), key=key, got=shown_got, expected=shown_expected, why=why),
            Counterexample("graph", [steps, writes, graph_input], None if expected is MISSING else expected,
                           None if got_value is MISSING else got_value),
        )


def describe_graph(steps, writes, key, graph_input) -> str:
    """The graph in the learner's words: its input, then who writes what in each step."""
    parts = [_("input {key}={value}").format(key=key, value=show(graph_input[key]))] if key in graph_input else []
    for number, step in enumerate(steps, 1):
        each = ", ".join(_("{name} writes {value}").format(name=repr(name), value=show(writes[name][key])) for name in step)
        said = _("step {number} (parallel): {writes}") if len(step) > 1 else _("step {number}: {writes}")
        parts.append(said.format(number=number, writes=each))
    return _("a graph with {steps}").format(steps="; ".join(parts))


def show_missing(value) -> str:
    return _("no value") if value is MISSING else show(value)


# -- schemas ------------------------------------------------------------------------------------
def require_keys(check: Checker, schema: str, whole_schema: bool = True) -> dict | None:
    """The channels LangGraph builds for ``schema``; an empty TypedDict is the untouched stub.

    ``whole_schema=False``: the caller judges one key on its own, so ``StateGraph(schema)`` raising
    (because of some key's annotation) is not this rule's failure; returns None then.
    """
    info = check.probe("channels", schema)  # asked once per task: answers are kept
    if isinstance(info, Raised) and not whole_schema:
        return None
    info = no_raise(info, f"StateGraph({schema})")
    if not info["keys"]:
        raise Abort("not_implemented", _("{schema} has no keys yet: declare them as its docstring in agstate/state.py says")
                    .format(schema=schema))
    return info


def expect_keys(check, schema, expected):
    """``schema`` declares exactly the keys ``expected``; the extra and the missing ones are named."""
    info = require_keys(check, schema)
    if sorted(info["keys"]) != sorted(expected):
        extra = sorted(set(info["keys"]) - set(expected))
        missing = sorted(set(expected) - set(info["keys"]))
        detail = "; ".join(filter(None, [_("extra {keys}").format(keys=extra) if extra else "",
                                         _("missing {keys}").format(keys=missing) if missing else ""]))
        raise Failure(_("{schema} has keys {keys}; expected exactly {expected} ({detail})").format(
            schema=schema, keys=info["keys"], expected=expected, detail=detail),
                      Counterexample(schema, [], expected, info["keys"]))
    return info


# -- the learner's settings and the research graph ----------------------------------------------
def learner_window(check) -> int:
    """The learner's ``WINDOW``: the window rules are judged against it, once it is an int >= 1."""
    size = check.probe("attr", "WINDOW")
    if type(size) is not int or size < 1:
        raise Failure(_("WINDOW is {value}; expected an int >= 1 (the spec sets 3)").format(value=show(size)))
    return size


def lookup_rounds(check) -> int:
    """The learner's ``LOOKUP_ROUNDS``: an int of at least 2, or the rule fails saying so."""
    rounds = check.probe("attr", "LOOKUP_ROUNDS")
    if type(rounds) is not int or rounds < 2:
        raise Failure(_("LOOKUP_ROUNDS is {value}; expected an int >= 2").format(value=show(rounds)))
    return rounds


def research_run(check, question, extra_input=None):
    """One run of the learner's ``build_graph`` on a checkpointer: its output, checkpoint and JSON schemas."""
    run = check.probe("research_run", question, f"thread-{check.seed}", extra_input or {})
    return no_raise(run, f"build_graph(checkpointer=InMemorySaver()).invoke({{'question': {question!r}}})",
                    example=Counterexample("build_graph", [question], None, None))
