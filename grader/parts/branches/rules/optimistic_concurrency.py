"""Notebook 24, branches.optimistic: ``CaseStream`` appends only at the version the writer read.

Each append comes back as what it returned or a ``Raised`` (``StaleVersion``
with its ``expected`` and ``actual``); a race is 25 rounds of threads
appending at one version, and what each thread's append did.
"""

from grader.engine.checking import Failure, Raised, show
from grader.engine.registry import task
from grader.parts.branches.checks import on_a_stream, outcome_text
from grader.parts.branches.strategies import case_ids, event_lists, stale_scripts, writer_counts

optimistic = task("branches.optimistic")


def _is_stale(outcome) -> bool:
    return isinstance(outcome, Raised) and outcome.is_a("StaleVersion")


@optimistic.rule("append at the current version returns the new version; events() lists copies, oldest first")
def stream_appends(check):
    @check.forall(case_ids, event_lists)
    def appends(stream_id, events):
        got = on_a_stream(check, stream_id, "stream_script", stream_id, [[event, number] for number, event in enumerate(events)])
        for number, (event, outcome) in enumerate(zip(events, got["outcomes"])):
            if outcome["result"] != number + 1 or outcome["version"] != number + 1:
                raise Failure(f"on a stream at version {number}, append({show(event)}, expected_version={number}) "
                              f"{outcome_text(outcome['result'])} and left version {outcome['version']}; expected {number + 1} both")
        if got["events"] != events:
            raise Failure(f"after appending {show(events)}, events() returned {show(got['events'])}; expected them in order")
        if got["events_after_tampering"] != events:
            raise Failure("changing an event after appending it, or a list events() returned, changed the stream's history "
                          f"to {show(got['events_after_tampering'])}; store and return copies")


@optimistic.rule("an append at any other version raises StaleVersion(expected, actual) and appends nothing")
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
                    raise Failure(f"{call} {outcome_text(result)}; expected {version}")
            elif not _is_stale(result):
                raise Failure(f"{call} {outcome_text(result)}; expected StaleVersion: "
                              "someone else appended since you read the stream")
            elif result.attrs != {"expected": expected, "actual": version} or outcome["version"] != version:
                raise Failure(f"{call} raised StaleVersion with {show(result.attrs)} and left version "
                              f"{outcome['version']}; expected expected={expected}, actual={version}, nothing appended")


@optimistic.rule("threads racing to append at the same version: exactly one wins, the others get StaleVersion")
def stream_race(check):
    @check.forall(writer_counts, examples=check.budget("threads"))
    def race(writers):
        got = on_a_stream(check, "race", "stream_race", writers, 25, limit=10.0)
        for number, round_ in enumerate(got["rounds"]):
            # A thread's answer: {"result": what its append returned or raised}; None if it never finished.
            done = [answer["result"] for answer in round_["results"] if answer]
            wins = [outcome for outcome in done if not isinstance(outcome, Raised)]
            stale = [outcome for outcome in done if _is_stale(outcome)]
            if len(wins) != 1 or len(stale) != writers - 1 or round_["version"] != round_["expected"] + 1:
                raise Failure(f"{writers} threads appended at version {round_['expected']} at once (round {number + 1}): "
                              f"{len(wins)} won, {len(stale)} got StaleVersion, the stream went to version {round_['version']}; "
                              "expected exactly one winner: compare and append in one step (a lock)")
