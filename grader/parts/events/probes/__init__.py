"""Part C's learner side: the store's call-server operations, the projection's fold, and the writers still run here.

What the grading side's scenarios (``grader.parts.events.scenarios``) ask
of the learner's process: one call of the learner's store (``calls``), and
``project_state`` folded over the prefixes of a log (``stores``: a pure
fold of the learner's own function). The agent runs, their store, tools,
ledger, crashes and checkpoints are the grading side's.

Two probes still stage their scenario here (``writers``, with their
plumbing in ``processes``): two writers racing for one seq, each stopped
between its check and its write, and a writer killed with SIGKILL
mid-append then reopened by another process. Each returns plain data (ts
in order: ``clock``); the grading process judges.
"""

from grader.parts.events.probes import calls, stores  # noqa: F401 - each registers its probes
