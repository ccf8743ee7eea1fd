"""Notebook 24, branches.optimistic: ``CaseStream`` appends only at the version the writer read.

Each append comes back as what it returned or a ``Raised`` (``StaleVersion``
with its ``expected`` and ``actual``); a race is rounds of appenders
appending at one version, taking turns at the stream's lock, and what each
one's append did (``scenarios_race``).
"""

from grader.engine.checking import Failure, Raised
from grader.engine.registry import task
from grader.engine.showing import show
from grader.i18n import N_, _
from grader.parts.branches.checks import on_a_stream, outcome_text
from grader.parts.branches.strategies import case_ids, event_lists, stale_scripts, writer_counts

optimistic = task("branches.optimistic")
RACE_ROUNDS = 4  # the turns are the grader's, the same on every run: two rounds of each kind of turn


def _is_stale(outcome) -> bool:
    return isinstance(outcome, Raised) and outcome.is_a("StaleVersion")


@optimistic.rule(N_("append at the current version returns the new version; events() lists copies, oldest first"))
def stream_appends(check):
    @check.forall(case_ids, event_lists)
    def appends(stream_id, events):
        got = on_a_stream(check, stream_id, "stream_script", stream_id, [[event, number] for number, event in enumerate(events)])
        for number, (event, outcome) in enumerate(zip(events, got["outcomes"])):
            if outcome["result"] != number + 1 or outcome["version"] != number + 1:
                raise Failure(_("on a stream at version {number}, append({event}, expected_version={number}) {outcome_text} and left "
                                "version {version}; expected {value} both").format(
                                  number=number, event=show(event), outcome_text=outcome_text(outcome['result']),
                                  version=outcome['version'], value=number + 1))
        if got["events"] != events:
            raise Failure(_("after appending {events}, events() returned {events2}; expected them in order").format(
                              events=show(events), events2=show(got['events'])))
        if got["events_after_tampering"] != events:
            raise Failure(_("changing an event after appending it, or a list events() returned, changed the stream's history to "
                            "{events_after_tampering}; store and return copies").format(
                              events_after_tampering=show(got['events_after_tampering'])))


@optimistic.rule(N_("an append at any other version raises StaleVersion(expected, actual) and appends nothing"))
def stream_stale(check):
    @check.forall(stale_scripts)
    def stale(script):
        appends, version = [], 0
        for event, offset in script:
            appends.append([event, version + offset])
            version += offset == 0
        got = on_a_stream(check, "case", "stream_script", "case", appends)
        version = 0
        for (event, expected), outcome in zip(appends, got["outcomes"]):
            call = f"append({show(event)}, expected_version={expected}) on a stream at version {version}"
            result = outcome["result"]
            if expected == version:
                version += 1
                if result != version:
                    raise Failure(_("{call} {outcome_text}; expected {version}").format(
                                      call=call, outcome_text=outcome_text(result), version=version))
            elif not _is_stale(result):
                raise Failure(_("{call} {outcome_text}; expected StaleVersion: someone else appended since you read the stream").format(
                                  call=call, outcome_text=outcome_text(result)))
            elif result.attrs != {"expected": expected, "actual": version} or outcome["version"] != version:
                raise Failure(_("{call} raised StaleVersion with {attrs} and left version {version}; expected expected={expected}, "
                                "actual={version2}, nothing appended").format(
                                  call=call, attrs=show(result.attrs), version=outcome['version'], expected=expected,
                                  version2=version))


@optimistic.rule(N_("threads racing to append at the same version: exactly one wins, the others get StaleVersion"))
def stream_race(check):
    @check.forall(writer_counts, examples=check.budget("threads"))
    def race(writers):
        got = on_a_stream(check, "race", "stream_race", writers, RACE_ROUNDS, limit=10.0)
        for number, round_ in enumerate(got["rounds"]):
            # Each appender's answer: its result (a version or a Raised), whether it took the stream's lock, and the
            # version read just after it gave the lock back.
            answers = round_["results"]
            at = _("{writers} appends at version {expected} (round {value})").format(
                     writers=writers, expected=round_['expected'], value=number + 1)
            unlocked = [n for n, answer in enumerate(answers) if not answer["locked"]]
            if unlocked:
                raise Failure(_("{at}: append {value} a lock the stream made in CaseStream(...): the grader races appenders at that "
                                "lock, taking turns where each one takes and gives it back; compare and append holding a lock made "
                                "in __init__ with threading.Lock()").format(
                                  at=at, value=_("never took") if len(unlocked) == writers else _("did not always take")))
            wins = [n for n, answer in enumerate(answers) if not isinstance(answer["result"], Raised)]
            stale = [answer["result"] for answer in answers if _is_stale(answer["result"])]
            if len(wins) != 1 or len(stale) != writers - 1 or round_["version"] != round_["expected"] + 1:
                when = (_("each checked the version before taking the lock, the others having appended meanwhile")
                        if round_["gate"] == "acquire"
                        else _("each went on after giving the lock back, the next one having appended meanwhile"))
                raise Failure(_("{at}, {when}: {count} won, {count2} got StaleVersion, the stream went to version {version}; "
                                "expected exactly one winner: compare and append in one step, holding the lock").format(
                                  at=at, when=when, count=len(wins), count2=len(stale), version=round_['version']))
            winner = answers[wins[0]]
            if winner["version_after_release"] != winner["result"]:
                raise Failure(_("{at}: the winning append returned version {result}, but the stream was at version "
                                "{version_after_release} just after it gave the lock back: it appended after releasing the lock; "
                                "compare and append holding it").format(at=at, result=show(winner['result']),
                                  version_after_release=show(winner['version_after_release'])))
