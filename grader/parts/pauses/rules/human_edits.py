"""Notebook 34, pauses.edits: ``edit_update`` makes a key hold what the person meant, whatever its reducer.

The scenario ``edit_run`` calls the learner's ``edit_update`` and applies
the update it returns with ``update_state`` (without ``as_node``) to a
thread of the grader's own ``ReviewState`` graph, paused at its ``review``
node, then resumes it with the person's answer.
"""

from grader.engine.checking import Counterexample, Failure, no_raise
from grader.engine.registry import task
from grader.engine.showing import show
from grader.i18n import N_, _
from grader.parts.pauses import strategies as gen
from grader.parts.pauses.checks import case_rule, written, written_update
from grader.parts.pauses.model import REDUCED, meant, misfit

edits = task("pauses.edits")

STATE = {"draft": "first draft", "notes": ["paid", "checked"], "tags": ["vip", "late"]}
FIXED = [(STATE, ("notes", ("replace", ["edited"]))), (STATE, ("tags", ("remove", 0))),
         (STATE, ("draft", ("replace", "second draft"))), (STATE, ("notes", ("correct", 1, "double-checked"))),
         (STATE, ("tags", ("replace", ["vip", "vip"])))]
REPEATED = {"draft": "", "notes": ["ok", "late", "ok"], "tags": ["vip"]}  # a remove by value takes the first "ok"
FIXED += [(REPEATED, ("notes", ("remove", 2))), (REPEATED, ("notes", ("correct", 2, "fine")))]
BAD = [(STATE, ("notes", ("remove", 2))), (STATE, ("notes", ("remove", -1))), (STATE, ("tags", ("correct", -2, "x"))),
       (STATE, ("draft", ("correct", 0, "x"))), (STATE, ("summary", ("replace", "x"))),
       (STATE, ("notes", ("correct", 0, 7))), (STATE, ("tags", ("replace", ["ok", 3]))),
       # the shape: an index that is not an int, a part too many, a part missing
       (STATE, ("notes", ("remove", True))), (STATE, ("tags", ("correct", 0.0, "x"))),
       (STATE, ("notes", ("remove", 0, "and more"))), (STATE, ("tags", ("correct", 0))), (STATE, ("draft", ("replace",))),
       # a sequence that is not a list, where the key holds a list
       (STATE, ("tags", ("replace", ("vip", "late")))), (STATE, ("notes", ("replace", ("edited",))))]


def _call_words(state, key, edit) -> str:
    return f"edit_update({key!r}, {show(state.get(key))}, {show(edit)})"


def edited(check, state, case):
    """The run of a valid edit: (words, record, what key must hold, counterexample)."""
    key, edit = case
    call = _call_words(state, key, edit)
    what = _("update_state(config, {call}) on a thread paused with {state}").format(call=call, state=show(state))
    got = no_raise(check.probe("edit_run", state, key, edit), what)
    fits, wanted = meant(key, state[key], edit)
    example = Counterexample("edit_update", [key, state[key], edit], wanted, got.get("after", {}).get(key))
    no_raise(got["raised"], call, example=example)
    return what, got, wanted, example


def _valid_rule(sentence: str, judge):
    def edit_case(check, state, case):
        judge(*edited(check, state, case), state, case)

    return case_rule(edits, sentence, edit_case, FIXED, gen.edit_cases, "sequence", "edit_case")


def _holds(what, got, wanted, example, state, case):
    key = case[0]
    no_raise(got["applied"], f"{what}: update_state", example=example)
    if got["after"].get(key) != wanted:
        plain_list = key in REDUCED and "value" in (got["update"].get(key) or {})
        raise Failure(_("{what}: {key} then holds {written}; expected {wanted}, what the person meant{value}").format(
                          what=what, key=key, written=show(written(got['after'].get(key))), wanted=show(wanted),
                          value=_(" (a plain list goes through the key's reducer)") if plain_list else ''), example)
    changed = [other for other in state if other != key and got["after"].get(other) != state[other]]
    if changed:
        raise Failure(_("{what}: {changed} changed to {written}; an edit of {key} leaves every other key as it was ({state})").format(
                          what=what, changed=changed[0], written=show(written(got['after'].get(changed[0]))), key=key,
                          state=show(state[changed[0]])), example)


def _names(what, got, wanted, example, state, case):
    key = case[0]
    expected = {key: {"Overwrite": wanted} if key in REDUCED else {"value": wanted}}
    if got["update"] != expected:
        how = _("Overwrite, as its key has a reducer") if key in REDUCED else _("the value itself, as its key has no reducer")
        raise Failure(_("{what}: the update was {written_update}; expected {written_update2} ({how}) and no other key").format(
                          what=what, written_update=show(written_update(got['update'])),
                          written_update2=show(written_update(expected)), how=how), example)


def _paused(what, got, wanted, example, state, case):
    if got["next_after"] != ["review"]:
        raise Failure(_("{what}: after the update the thread's next is {next_after}; expected ['review'], still paused where "
                        "it was (update_state without as_node)").format(what=what, next_after=show(got['next_after'])), example)
    no_raise(got["resumed"], f"{what}: invoke(Command(resume='looks good'), config)", example=example)
    if got["heard"] != ["looks good"] or got["next_final"]:
        raise Failure(_("{what}: resuming gave the pause the answers {heard} and stopped before {next_final}; expected the "
                        "answer 'looks good' and a completed run").format(
                          what=what, heard=show(got['heard']), next_final=show(got['next_final'])), example)


def _unchanged(what, got, wanted, example, state, case):
    if got["current_after"] != state[case[0]]:
        raise Failure(_("{what}: current became {current_after}; edit_update must not modify current ({state})").format(
                          what=what, current_after=show(got['current_after']), state=show(state[case[0]])), example)


holds = _valid_rule(N_("after the update, key holds exactly what was meant, whatever its reducer, and every other key is "
                    "unchanged"), _holds)
names = _valid_rule(N_("the update names key only: the value itself for draft, Overwrite(value) for notes and tags"), _names)
paused = _valid_rule(N_("a paused thread stays paused at the same node after the edit, and the answer resumes it there"),
                     _paused)
unchanged = _valid_rule(N_("current is not modified"), _unchanged)


@edits.rule(N_("an edit that does not fit raises ValueError naming the key, and nothing is applied"))
def refused(check):
    state, (key, edit) = FIXED[0]  # first, an edit that fits: refusing everything refuses nothing in particular
    fits = check.probe("edit_run", state, key, edit)
    if isinstance(fits, dict) and fits.get("raised") is not None:
        raise Failure(_("{call_words} raised {sentence}; only an edit that does not fit raises").format(
                          call_words=_call_words(state, key, edit), sentence=fits['raised'].sentence()),
                      Counterexample("edit_update", [key, state[key], edit], "an update", "raised"))

    def bad_case(state, case):
        key, edit = case
        call = _call_words(state, key, edit)
        got = no_raise(check.probe("edit_run", state, key, edit), call)
        raised = got["raised"]
        example = Counterexample("edit_update", [key, state.get(key), edit], "raises ValueError",
                                 raised.sentence() if raised is not None else got.get("update"))
        if raised is None:
            raise Failure(_("{call} returned {written_update}; expected ValueError naming {key}: the edit does not fit ({misfit})").format(
                              call=call, written_update=show(written_update(got['update'])), key=repr(key),
                              misfit=misfit(key, state.get(key), edit)), example)
        if not raised.is_a("ValueError") or key not in raised.message:
            raise Failure(_("{call} raised {type}: {message}; expected ValueError whose message names {key}").format(
                              call=call, type=raised.type, message=raised.message, key=repr(key)), example)

    def bad_pair(pair):
        bad_case(*pair)

    check.each(BAD)(bad_case)
    check.forall(gen.bad_edit_cases, examples=check.budget("sequence"))(bad_pair)
