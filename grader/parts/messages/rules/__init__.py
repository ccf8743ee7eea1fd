"""Part E's rules, one module per notebook of the part, named after it (``29_trim_without_orphans.ipynb`` -> ``trim_without_orphans``).

A module holds the rules of the tasks its notebook grades, each registered at
import by ``task(id).rule(sentence)``; the order of a task's rules is the
order they are shown in, its first failing one is the feedback.
"""

# In notebook order, not alphabetical: the order a reader meets the tasks.
from grader.parts.messages.rules import (  # noqa: I001
    upsert_by_id,  # 28_upsert_by_id: messages.upsert
    trim_without_orphans,  # 29_trim_without_orphans: messages.trim
    budget_in_the_state,  # 30_budget_in_the_state: messages.budget
    summarize_old_turns,  # 31_summarize_old_turns: messages.summary
    chat_graph,  # 32_chat_graph: messages.graph, messages.decisions
)

__all__ = ["upsert_by_id", "trim_without_orphans", "budget_in_the_state", "summarize_old_turns", "chat_graph"]
