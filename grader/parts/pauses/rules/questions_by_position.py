"""Notebook 35, pauses.questions: every answer lands under the question its pause showed.

The scenario ``intake_run`` runs the learner's intake graph here with a
stock of the grader's that needs ``needed`` until the run first pauses and
every other question of the form after that; each pause is answered with
the answer drawn for the question it shows.
"""

from grader.engine.checking import Counterexample, Failure, no_raise
from grader.engine.registry import task
from grader.engine.showing import show
from grader.i18n import N_, _
from grader.parts.pauses import strategies as gen
from grader.parts.pauses.checks import case_rule, judge_completes, raised_in_run
from grader.parts.pauses.model import FORM

questions = task("pauses.questions")

ANSWERS = {question: f"{question}?" for question in FORM}
FIXED = [(["colour", "engraving"], ANSWERS), ([], ANSWERS), (list(FORM), ANSWERS), (["size"], ANSWERS)]


def state_of(got) -> dict:
    """The thread's values: at the end of the run, or where it still paused after every round (``held``)."""
    return got["final"] if got["final"] is not None else got.get("held") or {}


def answered(got, shown) -> list:
    """The pauses that were answered: all of them, but for the last when the run was still pausing at the end."""
    return shown[:-1] if got["final"] is None and shown and got["invokes"][-1].get("interrupts") else shown


def answers_held(what, got, example) -> dict:
    """The thread's answers; anything but a dict fails the rule."""
    held = state_of(got).get("answers", {})
    if not isinstance(held, dict):
        raise Failure(_("{what}: answers is {held}; expected a dict, question id -> answer").format(what=what, held=show(held)), example)
    return held


def intake(check, needed, answers):
    what = (_("build_intake_graph(stock) with the questions {needed} needed until the run first pauses (and the "
              "others of FORM after it), each pause answered for the question it shows").format(needed=show(needed)))
    got = no_raise(check.probe("intake_run", needed, answers, limit=4 * check.call_limit), what)
    shown = [invoke["interrupts"] for invoke in got.get("invokes", []) if invoke.get("interrupts")]
    example = Counterexample("build_intake_graph", [needed, answers], {q: answers[q] for q in needed},
                             state_of(got).get("answers"))
    raised_in_run(got, what, example)
    return what, got, shown, example


def _rule(sentence: str, judge):
    def intake_case(check, needed, answers):
        judge(*intake(check, needed, answers), needed, answers)

    return case_rule(questions, sentence, intake_case, FIXED, gen.intake_cases, "invoice", "intake_case")


def _decided(what, got, shown, example, needed, answers):
    asked = state_of(got).get("asked")
    if asked != needed:
        raise Failure(_("{what}: asked is {asked}; expected {needed}: decided once, before the first pause, from what "
                        "stock.needs said then (a node that asks the stock again when it re-runs sees it changed)").format(
                          what=what, asked=show(asked), needed=show(needed)), example)


def _one_each(what, got, shown, example, needed, answers):
    if needed and not shown:
        raise Failure(_("{what}: the run never paused; each needed question is asked with interrupt({{'question': id}})").format(what=what),
                      example)
    for interrupts in shown:
        if len(interrupts) != 1 or not isinstance(interrupts[0], dict) or set(interrupts[0]) != {"question"}:
            raise Failure(_("{what}: a pause showed {interrupts}; expected exactly one interrupt, whose value is {{'question': "
                            "<question id>}}").format(what=what, interrupts=show(interrupts)), example)
    got_answers = answers_held(what, got, example)
    for interrupts in answered(got, shown):
        question = interrupts[0]["question"]
        if isinstance(question, str) and question in answers and got_answers.get(question) != answers[question]:
            raise Failure(_("{what}: the pause showing {question} was answered {answers}, but answers holds {got_answers}; an "
                            "answer lands under the question its pause showed and stays there (answers has no reducer: a write "
                            "replaces the whole dict; and answers are matched to interrupt() calls by position when a node runs "
                            "again)").format(
                              what=what, question=repr(question), answers=repr(answers[question]), got_answers=show(got_answers)), example)


def _in_order(what, got, shown, example, needed, answers):
    order = [interrupts[0].get("question") if isinstance(interrupts[0], dict) else interrupts[0] for interrupts in shown]
    if order != needed:
        again = next((question for number, question in enumerate(order) if question in order[:number]), None)
        hint = _(" ({again} was asked again after its answer: is that answer still in answers?)").format(again=repr(again)) if again else ""
        raise Failure(_("{what}: the pauses asked {order}; expected {needed}: each question asked once, in FORM's order, "
                        "none that is not in asked{hint}").format(what=what, order=show(order), needed=show(needed), hint=hint), example)


def _completes(what, got, shown, example, needed, answers):
    judge_completes(what, got, example)
    held = sorted(answers_held(what, got, example), key=str)
    if held != sorted(needed):
        raise Failure(_("{what}: the run completed with answers for {held}; expected exactly {needed}").format(
                          what=what, held=show(held), needed=show(needed)),
                      example)


decided = _rule(N_("which questions are asked is decided once, before the first pause, and kept in asked"), _decided)
one_each = _rule(N_("each interrupt asks one question, as {'question': id}, and every answer lands in answers under the "
                 "question that interrupt showed"), _one_each)
in_order = _rule(N_("a question not in asked is never asked; each question in asked is asked until answered, then never "
                 "again, in FORM's order"), _in_order)
completes = _rule(N_("the run completes once every question in asked is answered, answers holding exactly those; with none "
                  "needed, it completes without pausing"), _completes)
