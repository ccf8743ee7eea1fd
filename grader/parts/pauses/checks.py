"""Part F's judging shared by its rules: each run's words, and the judges of an approval run's ledger."""

from grader.engine.checking import Counterexample, Failure, no_raise
from grader.engine.showing import counted, show
from grader.i18n import N_, _

__all__ = ["case_rule", "same", "written", "written_update", "interrupt_hint", "approval_words", "approval", "judge_pauses", "judge_asked",
           "judge_paid_after", "judge_outcome", "judge_completes", "raised_in_run"]

_ORDINALS = {1: N_("first"), 2: N_("second"), 3: N_("third")}  # "the first call of inbox.send": translated where said


def same(got, wanted) -> bool:
    """Equal, and of the same types all the way down: a state holds ``True`` where it should hold ``1`` only by mistake
    (Python's ``==`` says they are equal, as ``3.0`` and ``3``)."""
    if type(got) is not type(wanted):
        return False
    if isinstance(wanted, dict):
        return got.keys() == wanted.keys() and all(same(got[key], wanted[key]) for key in wanted)
    if isinstance(wanted, (list, tuple)):
        return len(got) == len(wanted) and all(same(item, expected) for item, expected in zip(got, wanted))
    return got == wanted


class _Overwrite:
    """An ``Overwrite`` in feedback, written as the learner's code writes one."""

    def __init__(self, value):
        self.value = value

    def shown_as(self, show_inner) -> str:  # grader.engine.showing.show
        return f"Overwrite({show_inner(self.value)})"

    def __repr__(self) -> str:
        return f"Overwrite({self.value!r})"


def written(value):
    """A value of a run as the learner's code wrote it, for ``show``: the scenarios' ``{"Overwrite": v}`` (an Overwrite
    stored as such, ``scenarios_data.plain``) made ``Overwrite(v)`` again."""
    if isinstance(value, dict):
        if set(value) == {"Overwrite"}:
            return _Overwrite(written(value["Overwrite"]))
        return {key: written(item) for key, item in value.items()}
    if isinstance(value, list):
        return [written(item) for item in value]
    return value


def written_update(update):
    """An update as the learner's function returned it, for ``show``: ``scenarios_threads.described`` marks each key's
    value as ``{"value": v}`` or ``{"Overwrite": v}`` (and anything but a dict as ``{"not a dict": v}``)."""
    if set(update) == {"not a dict"}:
        return written(update["not a dict"])
    return {key: _Overwrite(written(marked["Overwrite"])) if "Overwrite" in marked else written(marked["value"])
            for key, marked in update.items()}


def case_rule(task, sentence: str, judge, fixed: list, cases, budget: str, name: str):
    """A rule of ``task`` judging ``judge(check, *case)`` on the hand-picked ``fixed`` cases, then on tuples drawn from
    ``cases``; the rules of a task made with one ``name`` share their drawn examples (each answered once)."""

    @task.rule(sentence)
    def rule(check):
        def hand_picked(*case):
            judge(check, *case)

        def drawn(case):
            judge(check, *case)

        drawn.__name__ = name  # the name of the examples' bank (Checker.bank_key)
        check.each(fixed)(hand_picked)
        check.forall(cases, examples=check.budget(budget))(drawn)

    return rule


def approval_words(request: dict, answer: bool, crash: dict | None) -> str:
    """The run in the learner's words: every rule's feedback starts with it."""
    words = (_("build_approval_graph(inbox, payments, checkpointer) asked about {request} and answered "
               "Command(resume={answer})").format(request=show(request), answer=answer))
    if crash:
        fake = "inbox.send" if crash["fake"] == "send" else "payments.pay"
        said = _(", your process killed inside the {ordinal} call of {fake}, before it took effect") \
            if crash["when"] == "before" else _(", your process killed inside the {ordinal} call of {fake}, after it took effect")
        words += said.format(ordinal=_(_ORDINALS[crash["nth"]]), fake=fake)
    return words


def interrupt_hint(raised) -> str:
    """Words for LangGraph's own interrupt() called where the grader could not lend its own: imported in a function."""
    if getattr(raised, "message", None) and "outside of a runnable context" in raised.message:
        return (_("import interrupt at the top of agstate/pauses.py (from langgraph.types import interrupt): the "
                  "grader lends its own in that name; one imported inside a function is LangGraph's, which cannot "
                  "reach the run"))
    return ""


def raised_in_run(got: dict, what: str, example: Counterexample) -> None:
    """A run whose invoke raised fails with the learner's line, naming which invoke it was."""
    if got.get("raised") is None:
        return
    sent = got["invokes"][-1]["sent"] if got.get("invokes") else "build"
    words = {"start": "invoke(input, config)", "resume": "invoke(Command(resume=...), config)",
             "continue": _("invoke(None, config) after the crash"), "build": _("building the graph")}[sent]
    no_raise(got["raised"], f"{what}: {words}", example=example, hint=interrupt_hint(got["raised"]))


def approval(check, request: dict, answer: bool, crash: dict | None):
    """The run's record, once it ran without raising: (words, record, counterexample)."""
    what = approval_words(request, answer, crash)
    got = no_raise(check.probe("approval_run", request, answer, crash, limit=4 * check.call_limit), what)
    example = Counterexample("build_approval_graph", [request, answer, crash], None, _ledger(got))
    raised_in_run(got, what, example)
    return what, got, example


def _ledger(got: dict) -> list:
    """The fakes' calls for the counterexample, each key named by its order of appearance (``key 1``, ``key 2``): a
    key made from a clock is not the same on two runs, and a report must be (the feedback says what differs)."""
    named = _key_names(got.get("calls") or [])
    return [{field: named[call[field]] if field == "key" else call[field]
             for field in ("fake", "key", "message", "payee", "amount", "effect", "crashed") if field in call}
            for call in got.get("calls") or []]


def _key_names(calls: list) -> dict:
    return {key: f"key {number}" for number, key in enumerate(dict.fromkeys(call["key"] for call in calls), 1)}


def _several_keys(fake: str, calls: list) -> str:
    """Why a fake got several keys, in words that repeat: which calls got a new one, never the keys themselves."""
    named = _key_names(calls)
    order = ", ".join(named[call["key"]] for call in calls)
    return (_("{fake} was called {counted} under {counted2} ({order}): the call made again (a node re-run on "
              "resume or after a crash) got a new key, as a counter, a clock or a random number gives; a key "
              "derived from the request is the same on every run").format(
                fake=fake, counted=counted(len(calls), 'time'), counted2=counted(len(named), 'different key'), order=order))


def judge_pauses(what, got, request, example) -> None:
    pauses = [invoke["interrupts"] for invoke in got["invokes"] if invoke.get("interrupts")]
    if not pauses:
        raise Failure(_("{what}: the run never paused; it must ask the person with interrupt(request) before paying").format(
                          what=what), example)
    for interrupts in pauses:
        if len(interrupts) != 1 or interrupts[0] != request:
            raise Failure(_("{what}: a pause showed the interrupts {interrupts}; expected exactly one, whose value is the "
                            "request as given: {request}").format(what=what, interrupts=show(interrupts), request=show(request)), example)


def judge_asked(what, got, request, example) -> None:
    sends = [call for call in got["calls"] if call["fake"] == "send"]
    if len({call["key"] for call in sends}) != 1:
        said = _several_keys("inbox.send", sends) if sends else _("inbox.send was never called")
        raise Failure(_("{what}: {said}; expected one key for the whole run, derived from the request").format(
                          what=what, said=said), example)
    wrong = next((call["message"] for call in sends if call["message"] != request), None)
    if wrong is not None:
        raise Failure(_("{what}: inbox.send sent {wrong}; expected the request itself: {request}").format(
                          what=what, wrong=show(wrong), request=show(request)), example)
    if any(call["paused"] for call in sends):
        raise Failure(_("{what}: inbox.send was called after the run had paused; the person is asked before the first pause, "
                        "and a node that sends then calls interrupt() sends again when it is resumed").format(what=what), example)


def judge_paid_after(what, got, answer, example) -> None:
    pays = [call for call in got["calls"] if call["fake"] == "pay"]
    early = next((call for call in pays if call["answered"] is None), None)
    if early is not None:
        raise Failure(_("{what}: payments.pay was called before the person answered; pay only after an approving answer").format(what=what),
                      example)
    if answer is False and pays:
        raise Failure(_("{what}: payments.pay was called {counted} after a denial; a denied request is never paid").format(
                          what=what, counted=counted(len(pays), 'time')), example)


def judge_outcome(what, got, request, answer, example) -> None:
    final = got["final"] or {}
    pays = [call for call in got["calls"] if call["fake"] == "pay"]
    decision = "approved" if answer else "denied"
    if final.get("decision") != decision:
        raise Failure(_("{what}: decision is {get}; expected {decision}").format(
                          what=what, get=show(final.get('decision')), decision=repr(decision)), example)
    if not answer:
        if "receipt" not in final or final["receipt"] is not None:
            said = _("was never written") if "receipt" not in final else _("is a receipt payments.pay returned") \
                if final["receipt"] in got["receipts"] else _("is {receipt}").format(receipt=show(final["receipt"]))  # a real one
            # is never shown
            raise Failure(_("{what}: receipt {said} after a denial; expected None").format(what=what, said=said), example)
        return
    keys = {call["key"] for call in pays}
    paid = sum(call["effect"] for call in pays)
    if len(keys) != 1 or paid != 1:
        said = _several_keys("payments.pay", pays) if len(keys) > 1 else _("payments.pay was never called") if not pays \
            else _("payments.pay paid {counted}").format(counted=counted(paid, "time"))
        raise Failure(_("{what}: {said}, and {counted} left; expected exactly one payment, under one key derived from the "
                        "request").format(what=what, said=said, counted=counted(paid, 'payment')), example)
    wrong = next((call for call in pays if (call["payee"], call["amount"]) != (request["payee"], request["amount"])), None)
    if wrong is not None:
        raise Failure(_("{what}: payments.pay got payee={payee}, amount={amount}; expected the request's {payee2} and "
                        "{amount2}").format(
                          what=what, payee=show(wrong['payee']), amount=show(wrong['amount']), payee2=show(request['payee']),
                          amount2=request['amount']), example)
    if final.get("receipt") != got["receipts"][0]:
        said = _("the receipt of another payment") if final.get("receipt") in got["receipts"] else show(final.get("receipt"))
        raise Failure(_("{what}: receipt is {said}; expected the receipt payments.pay returned").format(what=what, said=said), example)


def judge_completes(what, got, example) -> None:
    last = got["invokes"][-1] if got["invokes"] else {}
    if last.get("interrupts") or got["next"]:
        left = _("still paused after {counted}").format(counted=counted(len(got['invokes']), 'invoke')) if last.get("interrupts") else \
            _("stopped before {next}").format(next=show(got['next']))
        raise Failure(_("{what}: the run {left}; it must complete once answered (and after a crash, once continued)").format(
                          what=what, left=left),
                      example)
