"""agstate — the learner's workspace of the agstate lab.

Exercise modules (complete these, the grader checks them):
    state.py     part A, reducers and schemas

Provided helpers (read them, use them; never graded):
    tools.py     the fake, deterministic tools the lab's agents call
    measure.py   checkpoint sizes per step (notebook 05)

Check your work from a notebook with ``from grader import check; check("state")``
or from a terminal with ``make grade``.
"""
