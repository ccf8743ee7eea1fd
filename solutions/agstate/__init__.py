"""agstate — the learner's workspace of the agstate lab.

Exercise modules (complete these, the grader checks them):
    state.py     part A, reducers and schemas (notebooks 01-06)
    board.py     part B, operations, not replacements (notebooks 07-12)
    events.py    part C, event sourcing for agent runs (notebooks 13-19)
    branches.py  part D, parallel branches (notebooks 20-27)
    messages.py  part E, the messages key (notebooks 28-32)

Provided helpers (read them, use them; never graded):
    tools.py          the fake, deterministic tools of part A's agents
    measure.py        checkpoint sizes per step (notebook 05)
    stepper.py        step through a graph run, one superstep at a time
    board_widget.py   the board view a person and the agent share (notebook 12)
    invoice_tools.py  the invoice agent's fake tools (part C)
    events_audit.py   the audit table and timeline (notebook 19)
    refund_tools.py   the refund case's fake branch tools (part D)
    chat_tools.py     a scripted chat model, fake tools, a provider's history check (part E)

Check your work from a notebook with ``from grader import check; check("state")``
(``check("messages")`` for part E, ``check()`` for every part), or from a terminal,
in the folder that holds ``agstate/``, with ``agstate-grade .``
"""
