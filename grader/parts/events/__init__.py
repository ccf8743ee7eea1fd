"""Part C: event sourcing — ``agstate/events.py``. Its folder: see ``grader.parts``."""

from grader.i18n import N_
from grader.parts.descriptor import Part, TaskSpec

PART = Part(
    name="events",
    letter="C",
    title=N_("Event sourcing"),
    module="events",
    first_notebook="13_invoice_timeout.ipynb",
    tasks=(
        TaskSpec("events.append", 15, "14_append_and_retry.ipynb",
                 "SqliteEventStore: append, list, last_seq"),
        TaskSpec("events.idempotent", 15, "14_append_and_retry.ipynb",
                 "a retry of a stored event returns it and writes nothing"),
        TaskSpec("events.concurrency", 15, "14_append_and_retry.ipynb",
                 "ConcurrencyError for conflicts and gaps; racing writers"),
        TaskSpec("events.durable", 15, "14_append_and_retry.ipynb",
                 "a killed writer loses at most its in-flight event"),
        TaskSpec("events.project", 10, "15_projection_and_replay.ipynb",
                 "project_state: a pure fold, replayable to any seq"),
        TaskSpec("events.resume", 20, "17_idempotency_keys.ipynb",
                 "call_tool and run_task: resume without repeating logged calls, keyed by call id"),
        TaskSpec("events.graph", 10, "18_checkpointer_vs_log.ipynb",
                 "build_invoice_graph resumes after a crash without repeating tools"),
    ),
    shared_folder=("events.concurrency", "events.durable"),
    # What each probe stands for, in the learner's words: a timeout or a crash names this, never the probe.
    calls={
        "store_ops": "SqliteEventStore's append, list and last_seq",
        "frozen_events": "setting a field of an event SqliteEventStore returned",
        "race": "two SqliteEventStore writers on one file",
        "durable_crash": "a SqliteEventStore writer killed mid-append",
        "project": "project_state(events)",
        "resume_run": "run_task(...), resumed after a crash",
        "call_tool_run": "call_tool(...)",
        "invoice_run": "build_invoice_graph(...), resumed after a crash",
    },
)
