"""Notebook 06, schemas: State, InputState and OutputState, the research graph built on them, and DECISIONS."""

from grader.engine.checking import Abort, Counterexample, Failure, no_raise
from grader.engine.expectations import expect_decision_keys
from grader.engine.registry import task
from grader.engine.showing import show
from grader.i18n import N_, _
from grader.parts.state import strategies as gen
from grader.parts.state.checks import expect_keys, lookup_rounds, research_run, state_key_graph
from grader.parts.state.model import OUTPUT_KEYS, SPEC_STATE_KEYS, model_append, model_trace

# -- state.schemas ----------------------------------------------------------------------------------
schemas = task("state.schemas")


@schemas.rule(N_("State has exactly the spec's keys, and question and answer overwrite (no reducer)"))
def state_keys(check):
    info = expect_keys(check, "State", SPEC_STATE_KEYS)
    for key in ("question", "answer"):
        if info["channels"][key]["channel"] != "LastValue":
            raise Failure(_("State.{key} has the merge rule {reducer}; expected none: one value, overwritten").format(
                              key=key, reducer=info['channels'][key]['reducer']))


@schemas.rule(N_("State.notes appends every write, sequential and parallel (parallel ones in node-name order)"))
def notes_graph(check):
    # List writes only: a bare str or a tuple write is append's own rule (state.append), not this key's.
    @check.forall(gen.graph_case("notes", gen.item_lists), examples=check.budget("graph"),
                  first=gen.small_graph("notes", ["x"], ["y"], ["z"]))
    def notes_accumulate(case):
        state_key_graph(check, "State", "notes", *case, start=[], reducer=model_append,
                        why=_("every scratch note is kept, as with append"))


@schemas.rule(N_("InputState has exactly the key question"))
def input_keys(check):
    expect_keys(check, "InputState", ["question"])


@schemas.rule(N_("OutputState has exactly answer, trace, sources and used_calls"))
def output_keys(check):
    expect_keys(check, "OutputState", OUTPUT_KEYS)


@schemas.rule(N_("build_graph's invoke returns exactly the OutputState keys: internal keys never leave the graph"))
def graph_output(check):
    # Named as graph_run's test: the two rules judge the same runs (one run per question).
    @check.forall(gen.questions, examples=check.budget("run"))
    def research_runs(question):
        run = research_run(check, question)
        keys = sorted(run["output"]) if isinstance(run["output"], dict) else run["output"]
        if keys != sorted(OUTPUT_KEYS):
            raise Failure(_("invoke({{'question': {question}}}) returned the keys {keys}; expected exactly {OUTPUT_KEYS} (pass "
                            "output_schema=OutputState)").format(question=repr(question), keys=show(keys), OUTPUT_KEYS=sorted(OUTPUT_KEYS)),
                          Counterexample("build_graph", [question], sorted(OUTPUT_KEYS), keys))
        if run["input_schema"] != ["question"] or run["output_schema"] != sorted(OUTPUT_KEYS):
            raise Failure(_("the graph's JSON schemas list input {input_schema} and output {output_schema}; expected "
                            "['question'] and {OUTPUT_KEYS}").format(input_schema=run['input_schema'], output_schema=run['output_schema'],
                              OUTPUT_KEYS=sorted(OUTPUT_KEYS)))


@schemas.rule(N_("trace lists every node run in order, sources have no duplicates, used_calls equals LOOKUP_ROUNDS"))
def graph_run(check):
    rounds = lookup_rounds(check)
    expected_trace = model_trace(rounds)

    @check.forall(gen.questions, examples=check.budget("run"))
    def research_runs(question):
        out = research_run(check, question)["output"]
        if out.get("trace") != expected_trace:
            raise Failure(_("invoke({{'question': {question}}}) gave trace {get}; expected {expected_trace}").format(
                              question=repr(question), get=show(out.get('trace')), expected_trace=expected_trace))
        sources = out.get("sources")
        if type(sources) is not list or len(sources) != len(set(sources)) or not sources:
            raise Failure(_("invoke({{'question': {question}}}) gave sources {sources}; expected the cited documents, each once").format(
                              question=repr(question), sources=show(sources)))
        if out.get("used_calls") != rounds:
            raise Failure(_("invoke({{'question': {question}}}) gave used_calls {get}; expected {rounds}, one per lookup").format(
                              question=repr(question), get=show(out.get('used_calls')), rounds=rounds))


@schemas.rule(N_("lookup cites what search_docs finds, scores with relevance and adds a note, every round"))
def graph_tools(check):
    rounds = lookup_rounds(check)

    @check.forall(gen.questions, examples=check.budget("run"))
    def research_tools(question):
        said = f"invoke({{'question': {question!r}}})"
        run = no_raise(check.probe("tool_calls_run", question, f"thread-{check.seed}"),
                       f"build_graph(checkpointer=InMemorySaver()).invoke({{'question': {question!r}}})",
                       example=Counterexample("build_graph", [question], None, None))
        searched, scored, state = run["searched"], run["scored"], run["state"]
        if len(searched) < rounds or len(scored) < rounds:
            raise Failure(_("{said} called search_docs {count} and relevance {count2} times; expected each lookup round to call "
                            "both from agstate.tools ({rounds} rounds)").format(
                              said=said, count=len(searched), count2=len(scored), rounds=rounds))
        # Compared as sets: their order and duplicates are merge_sources' (state.dedupe) and graph_run's.
        found = sorted({doc for docs in searched if isinstance(docs, list) for doc in docs})
        sources = run["output"].get("sources")
        cited = sorted(set(sources)) if isinstance(sources, (list, tuple)) else sources
        if cited != found:
            raise Failure(_("{said} cited the sources {cited}; expected every document its search_docs calls found: {found}").format(
                              said=said, cited=show(cited), found=found))
        # Folded by State.best_score's own reducer, in the child: lookup's writes are judged here, keep_max in state.keep_max.
        best = run["best_of_scores"]
        if state.get("best_score") != best:
            raise Failure(_("after {said} the checkpoint has best_score {get}; expected {best}, the best of the scores relevance "
                            "gave: {scored}").format(said=said, get=show(state.get('best_score')), best=show(best), scored=scored))
        notes = state.get("notes")
        if type(notes) is not list or len(notes) < rounds:
            raise Failure(_("after {said} the checkpoint has notes {notes}; expected a note from each of the {rounds} lookup "
                            "rounds").format(said=said, notes=show(notes), rounds=rounds))


@schemas.rule(N_("with a checkpointer the internal keys stay in the checkpoint, and input cannot set them"))
def graph_checkpoint(check):
    @check.forall(gen.questions, examples=check.budget("run"))
    def internal(question):
        injected = {"notes": ["INJECTED NOTE"], "best_score": 10**9}
        state = research_run(check, question, injected)["state"]
        missing = [key for key in ("notes", "best_score") if key not in state]
        if missing:
            raise Failure(_("after a run the checkpoint has keys {state}; expected the internal keys {missing} too").format(
                              state=sorted(state), missing=missing))
        if "INJECTED NOTE" in (state.get("notes") or []) or state.get("best_score") == 10**9:
            raise Failure(_("invoke({{'question': {question}, 'notes': ['INJECTED NOTE'], 'best_score': 10**9}}) let the caller "
                            "set internal keys; InputState must hold only question").format(question=repr(question)))


# -- state.decisions ----------------------------------------------------------------------------------
decisions = task("state.decisions")


@decisions.rule(N_("DECISIONS has exactly the keys of State"))
def decision_keys(check):
    expect_decision_keys(check, "State", SPEC_STATE_KEYS)


@decisions.rule(N_("each decision is a sentence: the merge rule, visible or internal, and why"))
def decision_sentences(check):
    table = check.probe("attr", "DECISIONS")
    if type(table) is not dict or not table:
        raise Abort("not_implemented", _("DECISIONS is empty: write one sentence per State key"))
    for key, text in table.items():
        if type(text) is not str or len(text.split()) < 4:
            raise Failure(_("DECISIONS[{key}] is {text}; expected a sentence of a few words: overwrite or which merge, visible "
                            "or internal, and why").format(key=repr(key), text=show(text)))
