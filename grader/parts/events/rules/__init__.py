"""Part C's rules, one module per notebook that grades a task, named after it (``14_append_and_retry`` -> ``append_and_retry``).

A module holds the rules of the tasks its notebook grades, each registered at
import by ``task(id).rule(sentence)``; the order of a task's rules is the
order they are shown in, its first failing one is the feedback. Notebooks 13
and 16 grade no task, and 19 checks the whole part (``check("events")``), so
they have no module. The registry imports this package (``grader.engine.registry``).
"""

# In notebook order, not alphabetical: the order a reader meets the tasks.
from grader.parts.events.rules import (  # noqa: I001
    append_and_retry,  # 14_append_and_retry: events.append, events.idempotent, events.concurrency, events.durable
    projection_and_replay,  # 15_projection_and_replay: events.project
    idempotency_keys,  # 17_idempotency_keys: events.resume
    checkpointer_vs_log,  # 18_checkpointer_vs_log: events.graph
)

__all__ = ["append_and_retry", "projection_and_replay", "idempotency_keys", "checkpointer_vs_log"]
