# ---
# jupyter:
#   agstate:
#     part: branches
#     pitfall: "two threads both decide; blind retry after `StaleVersion`"
#     exercise: "`CaseStream`"
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 24 — Optimistic concurrency: append only to what you read
#
# **Goal:** two workers (two agents, an agent and a person, two replicas of
# a graph) decide on the same case at the same time. Each reads the case's
# history, decides, and appends its decision. Without a check both
# decisions land. With an *expected version*, the second append is refused,
# and the loser re-reads and decides again.

# %% [markdown]
# ## A stream of events
#
# A case's history is an append-only list of events; its **version** is the
# number of events. A worker remembers the version it read and appends "at"
# that version.

# %%
import threading

case_opened = {"type": "case_opened", "case_id": "R-1"}


def decide(history: list[dict], who: str) -> dict | None:
    """A worker's rule: decide only if nobody has decided yet."""
    if any(event["type"] == "decision" for event in history):
        return None
    return {"type": "decision", "by": who, "decision": "approved" if who == "agent" else "rejected"}


# %% [markdown]
# ## Predict first
#
# Both workers read the history at the same moment (a barrier makes sure of
# it), both see no decision, both append. How many decisions does a plain
# list end up holding?

# %% [markdown] tags=["prediction"]
# ### BEGIN SOLUTION
# Two — one approval and one rejection. Each worker checked "nobody decided
# yet" against a history that was already out of date when it appended.
# ### END SOLUTION

# %% [markdown]
# ## The pitfall, reproduced for real
#
# `read_together` makes both workers finish reading before either appends —
# the unlucky timing that happens rarely in tests and daily in production.

# %%
def race(append, read, workers=("agent", "reviewer")):
    """Each worker reads, waits for the others to have read too, decides and appends."""
    read_together = threading.Barrier(len(workers))
    outcomes = {}

    def work(who):
        version, history = read()
        read_together.wait()
        outcomes[who] = append(decide(history, who), version)

    threads = [threading.Thread(target=work, args=(who,)) for who in workers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return outcomes


plain_history = [case_opened]
race(lambda event, version: plain_history.append(event), lambda: (len(plain_history), list(plain_history)))
decisions = [event for event in plain_history if event["type"] == "decision"]
print(decisions)
assert sorted(d["decision"] for d in decisions) == ["approved", "rejected"]

# %% [markdown]
# ## The fix: `CaseStream.append(event, expected_version)`
#
# `append` stores the event only if the stream is still at
# `expected_version`; otherwise it raises `StaleVersion(expected, actual)`
# and stores nothing. Checking and appending must be **one step** (a lock):
# a check followed by a separate append lets two threads both pass the check.
#
# This cell needs your `CaseStream` from `agstate/branches.py`.

# %%
from agstate.branches import CaseStream, StaleVersion


def stream_append(stream):
    def append(event, version):
        try:
            return stream.append(event, version)
        except StaleVersion as stale:
            return stale

    return append


stream = CaseStream("R-1")
stream.append(case_opened, 0)
outcomes = race(stream_append(stream), lambda: (stream.version, stream.events()))
print(outcomes)
assert sorted(type(o).__name__ for o in outcomes.values()) == ["StaleVersion", "int"]
assert [e["type"] for e in stream.events()] == ["case_opened", "decision"]

# %% [markdown]
# ### Why "one step": a check, then an append, races too
#
# Without the lock, `append` checks the version and then appends: two
# threads can both pass the check before either appends. Real threads
# switch rarely enough that this passes most runs. `run_in_lockstep` (a
# tool of the lab's) runs the threads one bytecode of the stream's code at a
# time, in turns, so the unlucky switch happens on every run:

# %%
from grader.child.lockstep import run_in_lockstep


class CheckThenAppend:
    """A stream without a lock: the version check and the append are two steps."""

    def __init__(self):
        self._events = []

    def append(self, event, expected_version):
        if expected_version != len(self._events):
            raise StaleVersion(expected_version, len(self._events))
        self._events.append(dict(event))
        return len(self._events)


for attempt in range(5):
    racy = CheckThenAppend()
    won = run_in_lockstep([lambda who=who: racy.append({"by": who}, 0) for who in ("agent", "reviewer", "bot")],
                          CheckThenAppend.append.__code__.co_filename)
    print(f"run {attempt + 1}: versions returned {won}; {len(racy._events)} events appended at version 0")
    assert won == [3, 3, 3] and len(racy._events) == 3  # every writer passed the check and appended, every run

# %% [markdown]
# ## Losing is information: re-read, decide again
#
# `StaleVersion` means "the world changed since you looked". The tempting
# fix — retry the same append at the new version — is a **blind retry**: it
# appends a decision that was made against a history that no longer exists.

# %%
def blind_retry(stream):
    def append(event, version):
        while True:
            try:
                return stream.append(event, version)
            except StaleVersion as stale:
                version = stale.actual  # same event, new version: nothing re-checked

    return append


blind = CaseStream("R-1")
blind.append(case_opened, 0)
race(blind_retry(blind), lambda: (blind.version, blind.events()))
print([e.get("decision") for e in blind.events()])
assert len([e for e in blind.events() if e["type"] == "decision"]) == 2

# %% [markdown]
# The loser must re-read the stream and run its decision again. This time
# it sees the winner's decision and appends nothing.

# %%
def reread_and_decide(stream, who, version, history):
    """Decide on what was read; after StaleVersion read again and decide again."""
    while True:
        event = decide(history, who)
        if event is None:
            return None  # decided already: nothing to add
        try:
            return stream.append(event, version)
        except StaleVersion:
            rereads.append(who)
            version, history = stream.version, stream.events()  # the history changed: look again


careful = CaseStream("R-1")
careful.append(case_opened, 0)
read_together = threading.Barrier(2)
rereads = []


def careful_worker(who):
    version, history = careful.version, careful.events()
    read_together.wait()
    reread_and_decide(careful, who, version, history)


threads = [threading.Thread(target=careful_worker, args=(who,)) for who in ("agent", "reviewer")]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print("re-read after losing:", rereads)
print([e.get("decision") for e in careful.events()])
assert len([e for e in careful.events() if e["type"] == "decision"]) == 1
assert len(rereads) == 1

# %% [markdown]
# Notebook 26 uses the same pattern for resolving conflicts: a person who
# loses the race to resolve a conflict re-reads the stream and finds it
# already resolved.

# %% [markdown]
# ## Your exercise
#
# Complete **`CaseStream`** in `agstate/branches.py`: `version`,
# `append(event, expected_version)` (store a copy; return the new version;
# `StaleVersion(expected, actual)` and nothing stored when the version is
# not current) and `events()` (copies, oldest first). Make the stream's lock
# in `__init__` with `threading.Lock()` (or `RLock()`), and compare and
# append while holding it.
#
# The grader races writers at that lock, not with threads: while your
# `CaseStream(...)` is built, `threading.Lock()` makes a lock of the
# grader's, so it sees every writer take and give back the lock and decides
# when each goes on. Where a writer is about to take the lock, or has just
# given it back, the next writer appends first: a check made before the
# lock, or an append made after it, meets a rival on every run. It checks
# that exactly one writer wins each round, and that the winner appended
# while it held the lock. A stream that takes no lock cannot be raced, so
# it does not pass either.

# %%
from grader import check

check("branches.optimistic")

# %% [markdown]
# ## What to remember
#
# - Append "at the version you read"; a stale version is refused, not merged.
# - Compare and append in one step.
# - On `StaleVersion`, re-read and decide again; never retry blindly.
# - Next: **25 — classify proposals** with a decision table.
