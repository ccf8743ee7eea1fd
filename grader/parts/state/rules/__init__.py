"""Part A's rules, one module per notebook of the part, named after it (``05_windows.ipynb`` -> ``windows``).

A module holds the rules of the tasks its notebook grades, each registered at
import by ``task(id).rule(sentence)``; the order of a task's rules is the
order they are shown in, its first failing one is the feedback. Notebooks 07
and 08 grade no task of this part, so they have no module. The registry
imports this package (``grader.engine.registry``).
"""

# In notebook order, not alphabetical: the order a reader meets the tasks.
from grader.parts.state.rules import (  # noqa: I001
    overwrite,  # 01_overwrite: state.overwrite
    append_and_budget,  # 02_append_and_budget: state.append, state.budget
    dedupe,  # 03_dedupe: state.dedupe
    keep_max,  # 04_keep_max: state.keep_max
    windows,  # 05_windows: state.window
    schemas,  # 06_schemas: state.schemas, state.decisions
)

__all__ = ["overwrite", "append_and_budget", "dedupe", "keep_max", "windows", "schemas"]
