"""Notebook 33, pauses.approval: the person is asked once and the request paid at most once, across pauses and crashes.

The scenario ``approval_run`` rebuilds the learner's graph here, runs it on
the grader's checkpointer with the grader's fake inbox and payments, answers
its pause, and (for the crash rule) kills the learner's process inside a
fake's call, then goes on in the next one: resumed while paused,
``invoke(None, config)`` otherwise.
"""

from grader.engine.registry import task
from grader.parts.pauses import strategies as gen
from grader.parts.pauses.checks import approval, judge_asked, judge_completes, judge_outcome, judge_paid_after, judge_pauses

approval_task = task("pauses.approval")

REQUEST = {"id": "r1", "payee": "ann", "amount": 5}
FIXED = [(REQUEST, True), (REQUEST, False)]
CRASHES = [(REQUEST, True, {"call": 2, "when": "after"}), (REQUEST, True, {"call": 1, "when": "after"}),
           (REQUEST, True, {"call": 2, "when": "before"})]


def _judged(rule_sentence: str, judge):
    """A rule judging runs without a crash, on the hand-picked cases then random requests and answers."""

    @approval_task.rule(rule_sentence)
    def rule(check):
        def run(request, answer):
            what, got, example = approval(check, request, answer, None)
            judge(what, got, request, answer, example)

        check.each(FIXED)(run)
        check.forall(gen.requests, gen.answers, examples=check.budget("invoice"))(run)

    return rule


pauses = _judged("every pause has exactly one interrupt, whose value is the request as given",
                 lambda what, got, request, answer, example: judge_pauses(what, got, request, example))
asked = _judged("the person is asked exactly once: inbox.send under one key only, with the request as the message, "
                "before the run first pauses",
                lambda what, got, request, answer, example: judge_asked(what, got, request, example))
paid_after = _judged("nothing is paid before an approving answer, and nothing at all after a denial",
                     lambda what, got, request, answer, example: judge_paid_after(what, got, answer, example))
completes = _judged("the run never gets stuck: once answered it completes, within 25 steps (the grader's recursion_limit)",
                    lambda what, got, request, answer, example: judge_completes(what, got, example))
outcome = _judged("after an approval the request is paid exactly once (one key, its payee and amount) and receipt is "
                  "the receipt; after a denial receipt is None; decision is 'approved' or 'denied'",
                  lambda what, got, request, answer, example: judge_completes(what, got, example) or
                  judge_outcome(what, got, request, answer, example))


@approval_task.rule("killed inside any call of inbox.send or payments.pay, before or after it takes effect, the run "
                    "goes on in a new process: asked once, paid at most once, exactly once when it completes")
def crashes(check):
    def crashed_run(request, answer, crash):
        what, got, example = approval(check, request, answer, crash)
        judge_asked(what, got, request, example)
        judge_paid_after(what, got, answer, example)
        judge_completes(what, got, example)
        judge_outcome(what, got, request, answer, example)
        judge_pauses(what, got, request, example)

    check.each(CRASHES)(crashed_run)
    check.forall(gen.requests, gen.answers, gen.crashes, examples=check.budget("invoice"))(crashed_run)
