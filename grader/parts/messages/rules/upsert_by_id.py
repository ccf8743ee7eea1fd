"""Notebook 28, messages.upsert: ``budgeted(n)`` merges by id as ``add_messages`` does, and mutates nothing."""

from grader.engine.checking import Counterexample, Failure, no_raise
from grader.engine.expectations import expect_value_error
from grader.engine.registry import task
from grader.i18n import N_, _, ngettext
from grader.parts.messages import strategies as gen
from grader.parts.messages.checks import briefs, expect_messages
from grader.parts.messages.model import model_reduce

upsert = task("messages.upsert")


def reduced(check, writes, budget=gen.BIG):
    """Each write through ``budgeted(budget)`` from None, judged step by step against the model, arguments untouched."""
    got = no_raise(check.probe("reduce", budget, writes), f"budgeted({budget})")
    held = None
    for number, (write, step) in enumerate(zip(writes, got["steps"]), 1):
        expected = model_reduce(held, write, budget)
        what = f"budgeted({budget})({briefs(held) if held is not None else None}, {briefs(write)})"
        example = Counterexample(f"budgeted({budget})", [held, write], expected, step["result"])
        expect_messages(what, step["result"], expected, example)
        expect_untouched(what, step, held, write, example)
        held = expected
        yield number, write, step
    if got["raised"] is not None:
        no_raise(got["raised"], f"budgeted({budget}) on write {len(got['steps']) + 1}, {briefs(writes[len(got['steps'])])}")


def _fields(message: dict) -> tuple:
    return (message.get("type"), message.get("id"), message.get("content", ""), message.get("tool_calls"),
            message.get("tool_call_id"))


def _ids_written(before: list, after) -> list[int] | None:
    """The positions where only an id was written into a message that had none; None when anything else changed."""
    if not isinstance(after, list) or len(after) != len(before):
        return None
    written = []
    for position, (was, now) in enumerate(zip(before, after)):
        if _fields(was) == _fields(now):
            continue
        if was.get("id") is not None or _fields({**now, "id": None}) != _fields(was):
            return None
        written.append(position)
    return written


def expect_untouched(what: str, step: dict, old: list | None, write: list, example) -> None:
    """The reducer left old and new as they were, and returned a list of its own."""
    changed_new = [_fields(m) for m in step["new_after"]] != [_fields(m) for m in write]
    changed_old = step["old_now"] is not None
    if changed_old or changed_new:
        which = " and ".join(name for name, changed in (("old", changed_old), ("new", changed_new)) if changed)
        old_ids = _ids_written(old or [], step["old_now"]) if changed_old else []
        new_ids = _ids_written(write, step["new_after"]) if changed_new else []
        if old_ids is None or new_ids is None:  # something else than an id changed
            now = briefs(step["old_now"] if changed_old else step["new_after"])
            said = _("{what} changed its arguments old and new (now {now}); a reducer never mutates its arguments") \
                if changed_old and changed_new else \
                _("{what} changed its argument {which} (now {now}); a reducer never mutates its arguments")
            raise Failure(said.format(what=what, which=which, now=now), example)
        places = [ngettext("{name}'s message {at}", "{name}'s messages {at}", len(at)).format(name=name, at=", ".join(map(str, at)))
                  for name, at in (("old", old_ids), ("new", new_ids)) if at]
        where = _("{first} and {second}").format(first=places[0], second=places[1]) if len(places) == 2 else places[0]
        said = _("{what} changed its arguments old and new: add_messages wrote an id into {where}, which had none. "
                 "A reducer never mutates its arguments: add_messages writes ids into the id-less messages of both "
                 "lists it is given, so hand it copies of every message, old's and new's (message.model_copy())") \
            if changed_old and changed_new else \
            _("{what} changed its argument {which}: add_messages wrote an id into {where}, which had none. "
              "A reducer never mutates its arguments: add_messages writes ids into the id-less messages of both "
              "lists it is given, so hand it copies of every message, old's and new's (message.model_copy())")
        raise Failure(said.format(what=what, which=which, where=where), example)
    if step["returned_old"]:
        raise Failure(_("{what} returned its argument old itself; return a new list").format(what=what), example)


@upsert.rule(N_("budgeted(n) appends a message with a new id and replaces a message whose id is stored, in place"))
def upserts(check):
    @check.forall(gen.write_sequences(), examples=check.budget("sequence"))  # each a sequence of writes
    def merged(writes):
        for _step in reduced(check, [w for w in writes if not any(m["type"] == "remove" for m in w)]):
            pass


@upsert.rule(N_("budgeted(n) removes the messages named by RemoveMessage; RemoveMessage(id=REMOVE_ALL_MESSAGES) clears the history"))
def removes(check):
    @check.forall(gen.write_sequences(), examples=check.budget("sequence"))  # each a sequence of writes
    def merged(writes):
        for _step in reduced(check, writes):
            pass


@upsert.rule(N_("removing an id the history does not hold raises ValueError, as add_messages does"))
def unknown_removal(check):
    @check.forall(gen.conversations())
    def raises(history):
        writes = [history, [{"type": "remove", "id": "not-held"}]]
        got = no_raise(check.probe("reduce", gen.BIG, writes), f"budgeted({gen.BIG})")
        what = f"budgeted({gen.BIG})({briefs(history)}, [RemoveMessage(id='not-held')])"
        if got["raised"] is None or not got["raised"].is_a("ValueError"):
            did = _("returned") if got["raised"] is None else _("raised {sentence}; it").format(sentence=got['raised'].sentence())
            raise Failure(_("{what} {did} without ValueError: a removal of an id not held is a mistake to report, as "
                            "add_messages reports it").format(what=what, did=did),
                          Counterexample(f"budgeted({gen.BIG})", writes, "ValueError", None))


@upsert.rule(N_("a re-sent write (the same messages, the same ids) changes nothing"))
def resent(check):
    @check.forall(gen.conversations(), examples=check.budget("sequence"))  # three writes each
    def twice(history):
        for _step in reduced(check, [history, history, history[-1:]]):
            pass


@upsert.rule(N_("budgeted(n) never mutates its arguments: a message without an id gets one in the result only"))
def pure(check):
    @check.forall(gen.conversations())
    def untouched(history):
        old = [{**history[0], "id": None}, *history[1:]]  # a message stored without an id: its id is not written in
        write = [{"type": "human", "id": None, "content": "and now?"}]
        what = f"budgeted({gen.BIG})({briefs(old)}, {briefs(write)})"
        got = no_raise(check.probe("reduce", gen.BIG, [write], old), f"budgeted({gen.BIG})")
        no_raise(got["raised"] or None, what)
        step = got["steps"][0]
        example = Counterexample(f"budgeted({gen.BIG})", [old, write], "old and new unchanged", step["new_after"])
        expect_untouched(what, step, old, write, example)
        result = step["result"]
        fresh = [m.get("id") for m in result] if isinstance(result, list) else []
        if len(fresh) != len(old) + 1 or not all(isinstance(i, str) and i for i in fresh):
            raise Failure(_("{what} returned {briefs}; expected the history and then the write, every message with an id").format(
                              what=what, briefs=briefs(result)), example)


@upsert.rule(N_("old may be None: nothing stored yet"))
def from_none(check):
    # The re-send rule's question (same name, same examples: the child answers it once); its first write is from None.
    @check.forall(gen.conversations(), examples=check.budget("sequence"))
    def twice(history):
        got = no_raise(check.probe("reduce", gen.BIG, [history, history, history[-1:]]), f"budgeted({gen.BIG})")
        what = f"budgeted({gen.BIG})(None, {briefs(history)})"
        if not got["steps"]:
            no_raise(got["raised"], what)
        example = Counterexample(f"budgeted({gen.BIG})", [None, history], history, got["steps"][0]["result"])
        expect_messages(what, got["steps"][0]["result"], model_reduce(None, history, gen.BIG), example)


@upsert.rule(N_("budgeted(n) raises ValueError at once when n is not an int >= 4"))
def bad_budget(check):
    @check.forall(gen.bad_budgets)
    def rejects(n):
        expect_value_error(check, "budgeted", [n])
