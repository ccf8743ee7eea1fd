"""Notebook 33, pauses.approval: the person is asked once and the request paid at most once, across pauses and crashes.

The scenario ``approval_run`` rebuilds the learner's graph here, runs it on
the grader's checkpointer with the grader's fake inbox and payments, answers
its pause, and (for the crash rule) kills the learner's process inside a
fake's call, then goes on in the next one: resumed while paused,
``invoke(None, config)`` otherwise.
"""

from grader.engine.checking import Counterexample, Failure, no_raise
from grader.engine.registry import task
from grader.engine.showing import show
from grader.i18n import N_, _
from grader.parts.pauses import strategies as gen
from grader.parts.pauses.checks import approval, case_rule, judge_asked, judge_completes, judge_outcome, judge_paid_after, judge_pauses

approval_task = task("pauses.approval")

REQUEST = {"id": "r1", "payee": "ann", "amount": 5}
FIXED = [(REQUEST, True), (REQUEST, False)]
# Killed in the first payment, after and before it took effect, and in the first send.
CRASHES = [(REQUEST, True, {"fake": "pay", "nth": 1, "when": "after"}),
           (REQUEST, True, {"fake": "send", "nth": 1, "when": "after"}),
           (REQUEST, True, {"fake": "pay", "nth": 1, "when": "before"})]


def _judged(rule_sentence: str, judge):
    """A rule judging runs without a crash, on the hand-picked cases then random requests and answers."""

    def run(check, request, answer):
        what, got, example = approval(check, request, answer, None)
        judge_pauses(what, got, request, example)  # a run that never asks the person proves nothing else
        judge(what, got, request, answer, example)

    return case_rule(approval_task, rule_sentence, run, FIXED, gen.approval_cases, "invoice", "approval_case")


pauses = _judged(N_("every pause has exactly one interrupt, whose value is the request as given"),
                 lambda what, got, request, answer, example: judge_pauses(what, got, request, example))
asked = _judged(N_("the person is asked exactly once: inbox.send under one key only, with the request as the message, "
                "before the run first pauses"),
                lambda what, got, request, answer, example: judge_asked(what, got, request, example))
paid_after = _judged(N_("nothing is paid before an approving answer, and nothing at all after a denial"),
                     lambda what, got, request, answer, example: judge_paid_after(what, got, answer, example))
completes = _judged(N_("the run never gets stuck: once answered it completes, within 25 steps (the grader's recursion_limit)"),
                    lambda what, got, request, answer, example: judge_completes(what, got, example))
outcome = _judged(N_("after an approval the request is paid exactly once (one key, its payee and amount) and receipt is "
                  "the receipt; after a denial receipt is None; decision is 'approved' or 'denied'"),
                  lambda what, got, request, answer, example: judge_completes(what, got, example) or
                  judge_outcome(what, got, request, answer, example))


def _crashed_run(check, request, answer, crash):
    what, got, example = approval(check, request, answer, crash)
    judge_pauses(what, got, request, example)
    judge_asked(what, got, request, example)
    judge_paid_after(what, got, answer, example)
    judge_completes(what, got, example)
    judge_outcome(what, got, request, answer, example)


crashes = case_rule(approval_task, N_("killed inside any call of inbox.send or payments.pay, before or after it takes "
                    "effect, the run goes on in a new process: asked once, paid at most once, exactly once when it "
                    "completes"), _crashed_run, CRASHES, gen.crash_cases, "invoice", "crash_case")


def _pair_run(check, first, second):
    what = (_("build_approval_graph(inbox, payments, checkpointer) asked about {first}, approved, then about "
              "{second} with the same inbox and payments, approved, then about {first} again on a new thread, "
              "approved").format(first=show(first), second=show(second)))
    got = no_raise(check.probe("approval_run", first, True, None, second, limit=8 * check.call_limit), what)
    example = Counterexample("build_approval_graph", [first, second], "both sent and paid once", None)
    for run in (got, got.get("second") or {}, got.get("again") or {}):
        no_raise(run.get("raised"), what, example=example)
    for fake, did, called in (("send", _("sent to the person"), "inbox.send"), ("pay", _("paid"), "payments.pay")):
        done = [call for call in got["calls"] if call["fake"] == fake and call["run"] == 2 and call["effect"]]
        if not done:
            raise Failure(_("{what}: the second request was never {did}: {called} recognized its key as the first request's (a "
                            "key must name the request, its id, and the effect)").format(what=what, did=did, called=called), example)
        repeated = [call for call in got["calls"] if call["fake"] == fake and call["run"] == 3 and call["effect"]]
        if repeated:
            raise Failure(_("{what}: the first request was {did} again on the new thread: {called} took its key as a new one (a "
                            "key names the request, its id, and the effect, never the thread or the run)").format(
                              what=what, did=did, called=called),
                          example)


two_requests = case_rule(approval_task, N_("keys name the request: a second request on the same inbox and payments is "
                         "asked and paid too, and the same request started again on another thread is neither"),
                         _pair_run, [(REQUEST, {"id": "r2", "payee": "bob", "amount": 7}), (REQUEST, {**REQUEST, "id": "r2"})],
                         gen.request_pairs, "threads", "request_pair")
