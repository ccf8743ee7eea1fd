"""Notebook 31, messages.summary: ``summarize_removals`` says what it removes, and removes whole old turns."""

from grader.engine.checking import Counterexample, Failure, Raised, no_raise
from grader.engine.registry import task
from grader.engine.showing import contrast, show
from grader.i18n import N_, _
from grader.parts.messages import strategies as gen
from grader.parts.messages.checks import briefs, ids
from grader.parts.messages.model import model_summary

summary = task("messages.summary")


def summarized(check, history, keep_last):
    what = f"summarize_removals({briefs(history)}, {keep_last})"
    got = check.probe("summarize", history, keep_last)
    past_the_end = keep_last == 0 and isinstance(got, Raised) and got.is_a("IndexError")
    got = no_raise(got, what, hint="keep_last=0 keeps the latest human turn: the cut starts at the last message and "
                                   "moves earlier, never past the end" if past_the_end else "")
    text, gone = model_summary(history, keep_last)
    example = Counterexample("summarize_removals", [history, keep_last], [text, gone], got)
    if got.get("shape") != "pair":
        raise Failure(_("{what} returned a {get}; expected a pair (summary, removals)").format(what=what, get=got.get('shape')), example)
    if not isinstance(got["removals"], list) or any(m.get("type") != "remove" for m in got["removals"]):
        raise Failure(_("{what} returned the removals {briefs}; expected a list of RemoveMessage(id=...)").format(
                          what=what, briefs=briefs(got['removals'])),
                      example)
    return what, got, text, gone, example


@summary.rule(N_("summarize_removals keeps the system message and the last keep_last messages, the cut moved earlier "
              "to a human message"))
def keeps(check):
    @check.forall(gen.conversations(), gen.keep_lasts)
    def summarized_case(history, keep_last):  # one name in every rule: shared examples, each answered once
        what, got, _skip, gone, example = summarized(check, history, keep_last)
        if ids(got["removals"]) != gone:
            raise Failure(_("{what} removes {ids}; expected {gone}: keep the last {keep_last} messages, moving the cut earlier "
                            "until the kept part starts with a human message").format(
                              what=what, ids=ids(got['removals']), gone=gone, keep_last=keep_last), example)


def _why_words(history: list, said: str, text: str) -> str:
    """What the first differing item of the summary got wrong, when it is an AI message's text or calls."""
    got_items, expected_items = said.split("; "), text.split("; ")
    at = next((i for i, (a, b) in enumerate(zip(got_items, expected_items)) if a != b), None)
    if at is None:
        return ""
    message = next((m for m in history if expected_items[at].endswith(f" [{m['id']}]")), None)
    if message is None or message["type"] != "ai" or not message.get("tool_calls"):
        return ""
    if message.get("content"):
        return (_(" ({id} has the text {content} and tool calls: calls NAME, … is only for an AI message with no text, "
                  "only tool calls)").format(id=message['id'], content=show(message['content'])))
    return _(" ({id} has no text, only tool calls: it is named by its calls, calls NAME, …)").format(id=message['id'])


@summary.rule(N_("the summary names every removed message as role: text [id] (calls NAME, … for an AI message with no "
              "text, only tool calls), in order, joined by '; '"))
def words(check):
    @check.forall(gen.conversations(), gen.keep_lasts)
    def summarized_case(history, keep_last):  # one name in every rule: shared examples, each answered once
        what, got, text, _skip, example = summarized(check, history, keep_last)
        if got["summary"] != text:
            said = got["summary"]
            shown, wanted = contrast(said, text, width=120) if isinstance(said, str) else (show(said), show(text))
            why = _why_words(history, said, text) if isinstance(said, str) else ""
            raise Failure(_("{what} gave the summary {shown}; expected {wanted}{why}").format(
                              what=what, shown=shown, wanted=wanted, why=why), example)


@summary.rule(N_("nothing to remove gives ('', [])"))
def nothing(check):
    @check.forall(gen.conversations(max_turns=1), gen.keep_lasts)
    def empty(history, keep_last):
        what, got, text, gone, example = summarized(check, history, keep_last + len(history))
        if (got["summary"], ids(got["removals"])) != ("", []):
            raise Failure(_("{what} returned ({summary}, {ids}); expected ('', [])").format(
                              what=what, summary=show(got['summary']), ids=ids(got['removals'])), example)


@summary.rule(N_("summarize_removals raises ValueError unless keep_last is an int >= 0, and never mutates its arguments"))
def strict(check):
    @check.forall(gen.bad_keep_lasts)
    def rejects(keep_last):
        call = check.call("summarize_removals", [], keep_last)
        if call.raised is None or not call.raised.is_a("ValueError"):
            did = _("returned {result}").format(result=show(call.result)) if call.raised is None else _("raised {sentence}").format(
                                                                                  sentence=call.raised.sentence())
            raise Failure(_("summarize_removals([], {keep_last}) {did}; expected ValueError").format(keep_last=repr(keep_last), did=did),
                          call.counterexample("ValueError"))

    @check.forall(gen.conversations(), gen.keep_lasts)
    def summarized_case(history, keep_last):  # one name in every rule: shared examples, each answered once
        what, got, _skip, _skip, example = summarized(check, history, keep_last)
        if not got["unchanged"]:
            raise Failure(_("{what} changed its argument messages; leave the history as it is").format(what=what), example)
