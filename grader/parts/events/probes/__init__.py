"""Part C's probes: trusted scenarios run in the learner's child against ``agstate/events.py``.

Stores live in the child's own temp dirs. Crashes are real: a writer or a
run is forked and killed with SIGKILL (after some acknowledged appends, after
the n-th append of a run, or inside a tool after its side effect), then the
log is reopened by another process. Side effects go to a ledger file that
survives the kill. Probes return plain data (ts in order: ``clock``); the grading process judges.

The learner's calls in this process go through ``ctx.attempt``: a reply holds
each call's value, or the ``Raised`` that stands for what it raised. A forked
process reports back how it ended (killed, exit status), or, for a racing
writer, its append's value or ``Raised`` over a pipe. The forks' plumbing is
in ``processes``, the fake tools and the grader's own stores in ``fakes``; the
probes are in ``stores`` (one store in this process), ``writers`` (writers in
other processes) and ``runs`` (agent runs and the invoice graph).
"""

from grader.parts.events.probes import runs, stores, writers  # noqa: F401 - each registers its probes
