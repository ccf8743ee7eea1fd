"""Part E: the messages key — ``agstate/messages.py``. Its folder: see ``grader.parts``."""

from grader.i18n import N_
from grader.parts.descriptor import Part, TaskSpec

PART = Part(
    name="messages",
    letter="E",
    title=N_("The messages key"),
    module="messages",
    first_notebook="28_upsert_by_id.ipynb",
    tasks=(
        TaskSpec("messages.upsert", 20, "28_upsert_by_id.ipynb",
                 "budgeted(n)'s add_messages laws: edit by id, append new, remove, idempotent re-send, no mutation"),
        TaskSpec("messages.trim", 25, "29_trim_without_orphans.ipynb",
                 "trim_removals on random valid histories and budgets: every rule, valid after removal"),
        TaskSpec("messages.budget", 15, "30_budget_in_the_state.ipynb",
                 "ChatState; the reducer through a graph over random turns"),
        TaskSpec("messages.summary", 15, "31_summarize_old_turns.ipynb",
                 "summarize_removals: what it keeps, the summary's words, the removals"),
        TaskSpec("messages.graph", 20, "32_chat_graph.ipynb",
                 "build_chat_graph over scripted runs with tool calls, with and without a checkpointer"),
        TaskSpec("messages.decisions", 5, "32_chat_graph.ipynb",
                 "DECISIONS covers exactly the ChatState keys"),
    ),
    # What each probe stands for, in the learner's words: a timeout or a crash names this, never the probe.
    calls={
        "reduce": "budgeted({0}) called as a reducer",
        "trim": "trim_removals(...)",
        "summarize": "summarize_removals(...)",
        "chat_channels": "StateGraph(ChatState)",
        "budget_graph": "a graph run writing messages",
        "chat_run": "build_chat_graph(...).invoke(...)",
    },
)
