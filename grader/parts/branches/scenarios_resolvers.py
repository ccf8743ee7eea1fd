"""Part D's resolvers, run from the grading process, on a stream of the grader's (``GraderStream``).

A resolver scenario gives the learner's ``resolve_conflict`` a correct stream
kept here: what a rule reads of the stream is never what the learner's
process says it holds, and a broken ``CaseStream`` fails only its own task.
A rival resolver that commits between the learner's read and its append is
the grader's stream calling the learner's ``resolve_conflict`` again from
inside that append; racing resolvers are the same, each the next one's rival,
the order the grader's (no thread runs them).
"""

import copy

from grader.engine.handles import CallbackObject, LearnerRaised, Raised
from grader.engine.remote import Remote, scenario
from grader.i18n import _

__all__ = ["resolve_sequence", "resolve_interleaved", "resolve_threads", "GraderStream", "StaleVersion"]


class StaleVersion(Exception):
    """The grader's stream refusing an append at a stale version: raised in the learner's code as its StaleVersion."""

    learner_module = "branches"

    def __init__(self, expected, actual):
        # What the learner reads only when its own StaleVersion refuses learner_args (then made with this message).
        super().__init__(_("expected version {expected}, but the stream is at version {actual}: re-read and decide "
                           "again").format(expected=expected, actual=actual))
        self.learner_args = [expected, actual]


class GraderStream:
    """A correct case stream, in this process: a broken ``CaseStream`` fails only its own task, and no resolver's
    verdict rests on what the learner's process says a stream holds."""

    def __init__(self, stream_id: str, events=()):
        self.stream_id = stream_id
        self._events = [copy.deepcopy(event) for event in events]

    def version(self) -> int:
        return len(self._events)

    def append(self, event, expected_version):
        if expected_version != len(self._events):
            raise StaleVersion(expected_version, len(self._events))
        self._events.append(copy.deepcopy(event))
        return len(self._events)

    def events(self) -> list:
        return copy.deepcopy(self._events)

    def lent(self, before_append=None) -> CallbackObject:
        """This stream as the learner's code uses it (``CaseStream``'s API); ``before_append()`` runs before each append."""
        def append(event, expected_version):
            if before_append is not None:
                before_append()
            return self.append(event, expected_version)

        return CallbackObject("CaseStream", {"version": self.version, "append": append, "events": self.events,
                                             "stream_id": lambda: self.stream_id}, properties=("version", "stream_id"))


@scenario
def resolve_sequence(remote: Remote, conflict, prior, calls):
    """Resolve one conflict with each ``[decision, actor, rule]`` in turn; the results, the stream and the conflict after."""
    stream = GraderStream(conflict["stream_id"], prior)
    lent, given = stream.lent(), copy.deepcopy(conflict)
    results = [remote.call_in_place("resolve_conflict", lent, given, *call) for call in calls]
    return {"results": results, "events": stream.events(), "conflict_after": given}


@scenario
def resolve_interleaved(remote: Remote, conflict, prior, mine, theirs):
    """``resolve_conflict`` where another resolver (``theirs``) commits just before our first append."""
    stream = GraderStream(conflict["stream_id"], prior)
    other, appends = {}, [0]

    def rival_first():
        appends[0] += 1
        if appends[0] == 1:  # the rival's whole resolution, inside our first append, before it is applied
            try:
                other["result"] = remote.call("resolve_conflict", stream.lent(), copy.deepcopy(conflict), *theirs)
            except LearnerRaised as exc:
                other["raised"] = exc
                raise RuntimeError("the other resolver raised") from None

    result = remote.attempt(lambda: remote.call("resolve_conflict", stream.lent(rival_first), copy.deepcopy(conflict), *mine))
    if "raised" in other:  # what went wrong first: the rival's resolution, as in one process it would show
        raise other["raised"]
    if isinstance(result, Raised):
        raise LearnerRaised(result)
    return {"theirs": other.get("result"), "mine": result, "events": stream.events(), "appends": appends[0]}


@scenario
def resolve_threads(remote: Remote, conflict, prior, calls):
    """Every ``[decision, actor, rule]`` of ``calls`` resolves the same conflict on one stream, all having read it
    before any appends: each resolver's first append waits here while the next resolver runs whole, so each
    resolver but the last meets, at its append, a resolution committed since it read. Each one's ``{"result":
    record or Raised}``; the stream's events."""
    stream = GraderStream(conflict["stream_id"], prior)
    waiting, results = list(range(len(calls))), [None] * len(calls)

    def next_first() -> None:
        number = waiting.pop(0)
        first = [True]

        def before_append():
            if first[0] and waiting:  # this resolver has read and decided: the next one runs whole before it appends
                first[0] = False
                next_first()

        results[number] = {"result": remote.attempt(lambda: remote.call(
            "resolve_conflict", stream.lent(before_append), copy.deepcopy(conflict), *calls[number]))}

    while waiting:
        next_first()
    return {"results": results, "events": stream.events()}
