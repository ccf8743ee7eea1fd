"""Notebook 31, messages.summary: ``summarize_removals`` says what it removes, and removes whole old turns."""

from grader.checking import Counterexample, Failure, no_raise, show
from grader.parts.messages import strategies as gen
from grader.parts.messages.checks import briefs, ids
from grader.parts.messages.model import model_summary
from grader.tasks import task

summary = task("messages.summary")


def summarized(check, history, keep_last):
    what = f"summarize_removals({briefs(history)}, {keep_last})"
    got = no_raise(check.probe("summarize", history, keep_last), what)
    text, gone = model_summary(history, keep_last)
    example = Counterexample("summarize_removals", [history, keep_last], [text, gone], got)
    if got.get("shape") != "pair":
        raise Failure(f"{what} returned a {got.get('shape')}; expected a pair (summary, removals)", example)
    if not isinstance(got["removals"], list) or any(m.get("type") != "remove" for m in got["removals"]):
        raise Failure(f"{what} returned the removals {briefs(got['removals'])}; expected a list of RemoveMessage(id=...)",
                      example)
    return what, got, text, gone, example


@summary.rule("summarize_removals keeps the system message and the last keep_last messages, the cut moved earlier "
              "to a human message")
def keeps(check):
    @check.forall(gen.conversations(), gen.keep_lasts)
    def summarized_case(history, keep_last):  # one name in every rule: shared examples, each answered once
        what, got, _, gone, example = summarized(check, history, keep_last)
        if ids(got["removals"]) != gone:
            raise Failure(f"{what} removes {ids(got['removals'])}; expected {gone}: keep the last {keep_last} messages, "
                          "moving the cut earlier until the kept part starts with a human message", example)


@summary.rule("the summary names every removed message as role: text [id] (calls NAME, … for a tool-calling AI "
              "message), in order, joined by '; '")
def words(check):
    @check.forall(gen.conversations(), gen.keep_lasts)
    def summarized_case(history, keep_last):  # one name in every rule: shared examples, each answered once
        what, got, text, _, example = summarized(check, history, keep_last)
        if got["summary"] != text:
            raise Failure(f"{what} gave the summary {show(got['summary'])}; expected {show(text)}", example)


@summary.rule("nothing to remove gives ('', [])")
def nothing(check):
    @check.forall(gen.conversations(max_turns=1), gen.keep_lasts)
    def empty(history, keep_last):
        what, got, text, gone, example = summarized(check, history, keep_last + len(history))
        if (got["summary"], ids(got["removals"])) != ("", []):
            raise Failure(f"{what} returned ({show(got['summary'])}, {ids(got['removals'])}); expected ('', [])", example)


@summary.rule("summarize_removals raises ValueError unless keep_last is an int >= 0, and never mutates its arguments")
def strict(check):
    @check.forall(gen.bad_keep_lasts)
    def rejects(keep_last):
        call = check.call("summarize_removals", [], keep_last)
        if call.raised is None or not call.raised.is_a("ValueError"):
            did = f"returned {show(call.result)}" if call.raised is None else f"raised {call.raised.sentence()}"
            raise Failure(f"summarize_removals([], {keep_last!r}) {did}; expected ValueError",
                          call.counterexample("ValueError"))

    @check.forall(gen.conversations(), gen.keep_lasts)
    def summarized_case(history, keep_last):  # one name in every rule: shared examples, each answered once
        what, got, _, _, example = summarized(check, history, keep_last)
        if not got["unchanged"]:
            raise Failure(f"{what} changed its argument messages; leave the history as it is", example)
