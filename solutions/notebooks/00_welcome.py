# ---
# jupyter:
#   agstate:
#     part: state
#     pitfall: "— how the lab and the grader work"
#     exercise: "—"
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
# # 00 — Welcome to agstate lab
#
# **agstate lab** teaches how to design the *state* of LLM agents in
# LangGraph: which keys an agent keeps, how each key merges the writes of
# many nodes, what callers may see, and what it all costs at every
# checkpoint. Many agent bugs that only show up in production — lost steps,
# duplicated sources, double-counted budgets, leaked scratch notes, slow and
# huge checkpoints — are state-design bugs.
#
# Everything runs offline and deterministically: no API keys, no network.
# The "agents" are graphs whose nodes call fake tools
# (`agstate/tools.py`) that give the same answer every time.

# %% [markdown]
# ## How the lab works
#
# The lab has five parts. Each part is a run of notebooks and one module of
# `agstate/` that you complete; your instructor may assign one part or
# several, and each part stands on its own. Here they are, with the
# notebooks each spans and the call that checks it, straight from the
# grader's catalog:

# %%
from grader.catalog import PARTS, notebook_span

print(f"{'part':<36} {'notebooks':<10} {'you complete':<22} check")
for part in PARTS:
    print(f"{part.letter}. {part.title:<33} {notebook_span(part.name):<10} agstate/{part.module + '.py':<14} "
          f'check("{part.name}")')

# %% [markdown]
# Every notebook of every part works the same way. Each one:
#
# 1. asks you to **predict** what a piece of code does;
# 2. reproduces a **pitfall** for real: the code runs, and you see the real
#    error or the wrong output;
# 3. shows **the fix**, using your own module;
# 4. gives **your exercise**: complete a function or class in the part's
#    module (`agstate/state.py` for part A), following the rules the
#    notebook lists;
# 5. ends with a **check cell** that grades your work, and what to remember.
#
# The cells that use your module say so ("this cell needs your `append` from
# `agstate/state.py`"); they fail until you have written that part. Save
# your edit and re-run the cell: the lab's kernel reloads a module whose
# file changed before each cell runs (IPython's `autoreload`, which the lab
# turns on), as the three cells below show on a scratch module. The check
# cells always read the files as saved, in a fresh process.

# %%
import importlib
import sys
import tempfile
from pathlib import Path

scratch = Path(tempfile.mkdtemp())
sys.path.insert(0, str(scratch))
(scratch / "scratch_module.py").write_text("ANSWER = 'before the edit'\n")
scratch_module = importlib.import_module("scratch_module")
print(scratch_module.ANSWER)

# %%
# An edit, saved, as you will save agstate/state.py:
_ = (scratch / "scratch_module.py").write_text("ANSWER = 'after the edit, reloaded'\n")

# %%
import shutil

print(scratch_module.ANSWER)  # this cell ran after the reload: no kernel restart
assert scratch_module.ANSWER == "after the edit, reloaded", "this kernel does not reload edited modules: restart it"
sys.path.remove(str(scratch))
shutil.rmtree(scratch)  # the scratch module has served

# %% [markdown]
# The tasks each part grades, with their notebooks and points (each part
# adds up to 100):

# %%
from grader.catalog import tasks_of

for part in PARTS:
    print(f"\n{part.letter}. {part.title}: check(\"{part.name}\")")
    for task in tasks_of(part.name):
        print(f"  {task.notebook:<30} {task.id:<27} {task.max_score:>4g}  {task.summary}")

# %% [markdown]
# Your workspace — the folder whose `agstate/` package the notebooks import
# and the grader grades:

# %%
from grader.notebook.check import workspace

print(workspace())
assert (workspace() / "agstate" / "state.py").is_file()

# %% [markdown]
# ## Checking your work
#
# In a notebook:
#
# ```python
# from grader import check
# check("state.dedupe")   # one task
# check("state")          # all of part A
# check()                 # every part: your progress
# ```
#
# Every scorecard gives each task's notebook and ends with where to go next;
# `check()` with no target is the whole lab at a glance, part by part: each
# task passed, failing or not started.
#
# In a terminal, from your workspace (the folder that holds `agstate/`),
# where your lab has the grader (a course graded by its grading service
# gives your environment `check()` alone):
#
# ```
# agstate-grade .                               # grade your workspace
# agstate-grade . --part messages               # one part
# agstate-grade . --task state.dedupe --seed N  # repeat one run exactly
# ```
#
# (In a clone of the lab's own repository the command is
# `.venv/bin/agstate-grade`.)
# `python -m grader` is the same command as `agstate-grade`. Every report
# prints its seed; pass it back with `--seed` (or `check(..., seed=N)`) to get
# the same report again. The checks of one notebook's kernel share a seed,
# chosen when the kernel starts: while you fix a rule, its counterexample
# stays put, and a task you checked before is checked again on the same
# examples. Restart the kernel for new ones. `agstate-grade` takes a fresh
# seed every time. `check()` also returns the points it gave, a number
# (`points = check("state")`); Jupyter does not show it under the scorecard,
# which says it already. The kernel starts its grader as it starts; a check
# asked before it is ready says "starting the grader…" while it waits.

# %% [markdown]
# ## How the grader decides
#
# - **Rules, on random inputs.** Each task is a list of rules — the ones the
#   notebook states. The grader checks each rule on many random examples:
#   random node names, strings (unicode, empty, repeated), numbers (negative,
#   zero, large), list lengths and window sizes. A seed fixes them all.
# - **Your code runs in a separate process, in a sandbox**, under time and
#   memory limits: it sees your `agstate/` folder and the Python packages,
#   nothing else. It only computes; the grading process compares its answers
#   with the rules. An infinite loop or a crash costs you that task, nothing
#   else.
# - **Plain Python only.** Your modules may import LangGraph, pydantic and
#   the standard library's everyday modules; code that reaches into the
#   interpreter (`gc`, `ctypes`, `importlib`, `sys.modules`, frames, `eval`,
#   `exec`) is not graded, because it could change what the grader sees. The
#   feedback names the line to remove.
# - **Feedback is a counterexample.** When a rule breaks, the grader shrinks
#   the failing input to the smallest one it can find, and tells you the call,
#   what it expected, what it got, and the rule.
# - **Partial credit per rule.** A task's points are shared among its rules;
#   the task *passes* only with full marks.
# - **Statuses:** `passed`; `failed` (a rule broke); `not_implemented` (the
#   stub still raises `NotImplementedError`); `error` (your code raised, or
#   did not import — the feedback names the exception and your line);
#   `timeout`; `crashed` (your process died: exit, signal, memory);
#   `grader_error` (the grader itself failed, not your code: grade again,
#   and tell your instructor if it stays).

# %% [markdown]
# ### See it on a buggy submission
#
# A submission is any folder holding an `agstate/` package. This one, in a
# temporary folder, has a `merge_sources` with three bugs: it keeps the
# duplicates already stored in `old`, it writes into the caller's list, and
# it scans a list for every item (quadratic). Watch the grader find each.

# %%
import tempfile
from pathlib import Path

demo = Path(tempfile.mkdtemp()) / "buggy"
(demo / "agstate").mkdir(parents=True)
(demo / "agstate" / "__init__.py").write_text("")
(demo / "agstate" / "state.py").write_text('''
def merge_sources(old, new):
    stored = list(old)           # what old holds (old=None: TypeError)
    for item in new:
        if item not in stored:   # only what was stored before: new's own repeats stay
            old.append(item)     # ...and writes into the caller's list
    return old
''')
print(f"a buggy submission in {demo}")

# %% [markdown]
# Grade it as `check()` would, with a fixed seed, and keep the report as
# data: the JSON report, the format instructors' scripts read
# (`agstate-grade --json` prints the same). On a course graded by its
# grading service, the service grades it and chooses the seed: your
# practice seed, the same at every check.

# %%
import json

from grader.notebook.check import grade

report = grade("state.dedupe", folder=demo, seed=7)
(dedupe,) = report["tasks"]
print(f"seed {report['seed']}: {dedupe['id']} {dedupe['score']:g} / {dedupe['max_score']:g}, {dedupe['status']}")
print(f"  {dedupe['feedback']}")

# %% [markdown]
# Every rule of `state.dedupe` broke, so it earns none of its points. Each
# rule is shown with its verdict: a task's points are shared among its
# rules (here 15 among six), a rule that holds earns its share, and the task
# passes only with full marks. The counterexample is the smallest input
# the grader found — one item twice, and the merge kept both — as plain
# data:

# %%
print(json.dumps(dedupe["counterexample"]))
for rule in dedupe["rules"]:
    print(f"{rule['status']:>15}  {rule['rule']}")
print(f"each rule's share: {dedupe['max_score'] / len(dedupe['rules']):g} points")
assert dedupe["status"] == "failed" and dedupe["score"] == 0
old, new = dedupe["counterexample"]["args"]
assert len(old + new) == 2 and (old + new)[0] == (old + new)[1]  # stored twice, or sent twice: seeds differ
assert dedupe["counterexample"]["got"] == old + new != dedupe["counterexample"]["expected"]

# %% [markdown]
# The same seed and the same submission give the same report: that is what
# makes a run repeatable, for you and for your instructor.

# %%
again = grade("state.dedupe", folder=demo, seed=7)
assert again == report
print("same seed, same report")

# %% [markdown]
# Remove the demo submission.

# %%
import shutil

shutil.rmtree(demo.parent)

# %% [markdown]
# ## Your scorecard
#
# Here is part A graded on your workspace. Tasks you have not started show
# `not started`; by the end of notebook 06 every task should pass. Assigned
# another part? Check it instead (`check("messages")` for part E), or run
# `check()` for every part: a part you have not started is one line.
# Next: open **01 — the overwrite bug**, or your part's first notebook.

# %%
from grader import check

check("state")
