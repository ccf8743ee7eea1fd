"""Notebook 06, schemas: State, InputState and OutputState, the research graph built on them, and DECISIONS."""

from grader.checking import Abort, Counterexample, Failure, show
from grader.parts.state import strategies as gen
from grader.parts.state.checks import expect_keys, research_run
from grader.parts.state.model import OUTPUT_KEYS, SPEC_STATE_KEYS, model_trace
from grader.tasks import task

# -- state.schemas ----------------------------------------------------------------------------------
schemas = task("state.schemas")


@schemas.rule("State has exactly the spec's keys, and question and answer overwrite (no reducer)")
def state_keys(check):
    info = expect_keys(check, "State", SPEC_STATE_KEYS)
    for key in ("question", "answer"):
        if info["channels"][key]["channel"] != "LastValue":
            raise Failure(f"State.{key} has the merge rule {info['channels'][key]['reducer']}; expected none: one value, overwritten")


@schemas.rule("InputState has exactly the key question")
def input_keys(check):
    expect_keys(check, "InputState", ["question"])


@schemas.rule("OutputState has exactly answer, trace, sources and used_calls")
def output_keys(check):
    expect_keys(check, "OutputState", OUTPUT_KEYS)


@schemas.rule("build_graph's invoke returns exactly the OutputState keys: internal keys never leave the graph")
def graph_output(check):
    # Named as graph_run's test: the two rules judge the same runs (one run per question).
    @check.forall(gen.questions, examples=check.budget("run"))
    def research_runs(question):
        run = research_run(check, question)
        keys = sorted(run["output"]) if isinstance(run["output"], dict) else run["output"]
        if keys != sorted(OUTPUT_KEYS):
            raise Failure(f"invoke({{'question': {question!r}}}) returned the keys {show(keys)}; expected exactly "
                          f"{sorted(OUTPUT_KEYS)} (pass output_schema=OutputState)",
                          Counterexample("build_graph", [question], sorted(OUTPUT_KEYS), keys))
        if run["input_schema"] != ["question"] or run["output_schema"] != sorted(OUTPUT_KEYS):
            raise Failure(f"the graph's JSON schemas list input {run['input_schema']} and output {run['output_schema']}; "
                          f"expected ['question'] and {sorted(OUTPUT_KEYS)}")


@schemas.rule("trace lists every node run in order, sources have no duplicates, used_calls equals LOOKUP_ROUNDS")
def graph_run(check):
    rounds = check.probe("attr", "LOOKUP_ROUNDS")
    if type(rounds) is not int or rounds < 2:
        raise Failure(f"LOOKUP_ROUNDS is {show(rounds)}; expected an int >= 2")
    expected_trace = model_trace(rounds)

    @check.forall(gen.questions, examples=check.budget("run"))
    def research_runs(question):
        out = research_run(check, question)["output"]
        if out.get("trace") != expected_trace:
            raise Failure(f"invoke({{'question': {question!r}}}) gave trace {show(out.get('trace'))}; expected {expected_trace}")
        sources = out.get("sources")
        if type(sources) is not list or len(sources) != len(set(sources)) or not sources:
            raise Failure(f"invoke({{'question': {question!r}}}) gave sources {show(sources)}; expected the cited documents, each once")
        if out.get("used_calls") != rounds:
            raise Failure(f"invoke({{'question': {question!r}}}) gave used_calls {show(out.get('used_calls'))}; "
                          f"expected {rounds}, one per lookup")


@schemas.rule("with a checkpointer the internal keys stay in the checkpoint, and input cannot set them")
def graph_checkpoint(check):
    @check.forall(gen.questions, examples=check.budget("run"))
    def internal(question):
        injected = {"notes": ["INJECTED NOTE"], "best_score": 10**9}
        state = research_run(check, question, injected)["state"]
        missing = [key for key in ("notes", "best_score") if key not in state]
        if missing:
            raise Failure(f"after a run the checkpoint has keys {sorted(state)}; expected the internal keys {missing} too")
        if "INJECTED NOTE" in (state.get("notes") or []) or state.get("best_score") == 10**9:
            raise Failure(f"invoke({{'question': {question!r}, 'notes': ['INJECTED NOTE'], 'best_score': 10**9}}) "
                          "let the caller set internal keys; InputState must hold only question")


# -- state.decisions ----------------------------------------------------------------------------------
decisions = task("state.decisions")


@decisions.rule("DECISIONS has exactly the keys of State")
def decision_keys(check):
    table = check.probe("attr", "DECISIONS")
    if type(table) is not dict:
        raise Failure(f"DECISIONS is {show(table)}; expected a dict from each State key to a sentence")
    if not table:
        raise Abort("not_implemented", "DECISIONS is empty: write one sentence per State key")
    keys = sorted(map(str, table))
    if keys != sorted(SPEC_STATE_KEYS):
        missing = sorted(set(SPEC_STATE_KEYS) - set(keys))
        extra = sorted(set(keys) - set(SPEC_STATE_KEYS))
        raise Failure(f"DECISIONS has keys {keys}; expected exactly the State keys (missing {missing}, extra {extra})",
                      Counterexample("DECISIONS", [], sorted(SPEC_STATE_KEYS), keys))


@decisions.rule("each decision is a sentence: the merge rule, visible or internal, and why")
def decision_sentences(check):
    table = check.probe("attr", "DECISIONS")
    if type(table) is not dict or not table:
        raise Abort("not_implemented", "DECISIONS is empty: write one sentence per State key")
    for key, text in table.items():
        if type(text) is not str or len(text.split()) < 4:
            raise Failure(f"DECISIONS[{key!r}] is {show(text)}; expected a sentence of a few words: "
                          "overwrite or which merge, visible or internal, and why")
