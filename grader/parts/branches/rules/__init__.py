"""Part D's rules, one module per notebook that grades a task, named after it (``21_merge_evidence`` -> ``merge_evidence``).

A module holds the rules of the tasks its notebook grades, each registered at
import by ``task(id).rule(sentence)``; the order of a task's rules is the
order they are shown in, its first failing one is the feedback. Notebook 20
grades no task, so it has no module. The registry imports this package
(``grader.engine.registry``).
"""

# In notebook order, not alphabetical: the order a reader meets the tasks.
from grader.parts.branches.rules import (  # noqa: I001
    merge_evidence,  # 21_merge_evidence: branches.merge_evidence
    reducer_laws,  # 22_reducer_laws: branches.laws
    write_once,  # 23_write_once: branches.write_once
    optimistic_concurrency,  # 24_optimistic_concurrency: branches.optimistic
    classify_proposals,  # 25_classify_proposals: branches.classify
    conflicts_as_data,  # 26_conflicts_as_data: branches.conflicts
    effects_once,  # 27_effects_once: branches.order_independent, branches.effects_once
)

__all__ = ["merge_evidence", "reducer_laws", "write_once", "optimistic_concurrency", "classify_proposals",
           "conflicts_as_data", "effects_once"]
