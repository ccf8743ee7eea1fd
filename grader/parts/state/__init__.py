"""Part A: reducers and schemas — ``agstate/state.py``. Its folder: see ``grader.parts``."""

from grader.i18n import N_
from grader.parts.descriptor import Part, TaskSpec

PART = Part(
    name="state",
    letter="A",
    title=N_("Reducers and schemas"),
    module="state",
    first_notebook="01_overwrite.ipynb",
    tasks=(
        TaskSpec("state.overwrite", 10, "01_overwrite.ipynb",
                 "NaiveState reproduces the overwrite (and the parallel error)"),
        TaskSpec("state.append", 15, "02_append_and_budget.ipynb",
                 "append rules; State.trace accumulates"),
        TaskSpec("state.budget", 10, "02_append_and_budget.ipynb",
                 "State.used_calls sums across writers"),
        TaskSpec("state.dedupe", 15, "03_dedupe.ipynb",
                 "merge_sources rules incl. linear time; State.sources"),
        TaskSpec("state.keep_max", 15, "04_keep_max.ipynb",
                 "keep_max rules and laws; State.best_score"),
        TaskSpec("state.window", 15, "05_windows.ipynb",
                 "keep_recent, windowed(n); State.recent"),
        TaskSpec("state.schemas", 15, "06_schemas.ipynb",
                 "InputState, OutputState, build_graph whitelist"),
        TaskSpec("state.decisions", 5, "06_schemas.ipynb",
                 "DECISIONS covers exactly the State keys"),
    ),
    # What each probe stands for, in the learner's words: a timeout or a crash names this, never the probe.
    calls={
        "run_graph": "a graph run over {0}",
        "graph_accepts": "a graph with your reducer",
        "research_run": "build_graph(...).invoke(...)",
        "time_merge": "merge_sources on a long list",
        "tool_calls_run": "build_graph(...).invoke(...)",
    },
)
