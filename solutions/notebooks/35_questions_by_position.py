# ---
# jupyter:
#   agstate:
#     part: pauses
#     pitfall: "several `interrupt()` calls in one node get their answers by position: the questions recomputed after the stock changed put the size's answer under `gift_wrap`"
#     exercise: "`build_intake_graph`"
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
# # 35 — Questions by position
#
# **Goal:** ask a person several questions, one pause each, so that every
# answer lands under the question it answers — even when what would be
# asked changes while the run waits.

# %% [markdown]
# ## An intake form
#
# `FORM` (in `agstate/approvals.py`, provided) lists the questions of an
# order's intake form, in the order they are asked. `Stock.needs(question)`
# says whether a question must be asked; `change()` flips every answer, as
# a stock that moved while the person was typing. `Stock.asked` records
# every call of `needs`.

# %%
from agstate.approvals import FORM, Stock

stock = Stock({"size", "colour"})
print("FORM:   ", FORM)
print("needed: ", [question for question in FORM if stock.needs(question)])
stock.change()
print("changed:", [question for question in FORM if stock.needs(question)])

# %% [markdown]
# ## Several pauses in one node
#
# The obvious node loops over the needed questions and calls `interrupt()`
# once per question. On each answer LangGraph runs the node again from its
# first line; inside the node, the first `interrupt()` call returns the
# first answer given, the second the second, and the first call with no
# answer yet pauses. LangGraph matches answers to calls **by their
# position** in the node's run, not by the question.

# %%
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt

from agstate.pauses import IntakeState


def naive_graph(stock):
    def ask_all(state):
        answers = {}
        for question in [q for q in FORM if stock.needs(q)]:  # recomputed on every run of the node
            answers[question] = interrupt({"question": question})
        return {"answers": answers}

    builder = StateGraph(IntakeState)
    builder.add_node("ask_all", ask_all)
    builder.add_edge(START, "ask_all")
    builder.add_edge("ask_all", END)
    return builder.compile(checkpointer=InMemorySaver())


# %% [markdown]
# `fill_in` plays the person: at each pause it answers the question shown,
# from `ANSWERS`. With `change_after_first=True`, the stock changes while the
# first answer is being typed.

# %%
ANSWERS = {"size": "M", "colour": "blue", "gift_wrap": "no", "engraving": "none", "delivery_day": "Friday"}


def fill_in(graph, config, stock, change_after_first=False):
    out = graph.invoke({}, config)
    while "__interrupt__" in out:
        [pause] = out["__interrupt__"]
        question = pause.value["question"]
        print(f"  shown {question!r}, answered {ANSWERS[question]!r}")
        if change_after_first:
            stock.change()
            change_after_first = False
        out = graph.invoke(Command(resume=ANSWERS[question]), config)
    return out


# %% [markdown]
# While the stock stays the same, the answers land where they belong. The
# node ran once per answer, plus once to pause first, and asked the stock
# each time:

# %%
stock = Stock({"size", "colour"})
done = fill_in(naive_graph(stock), {"configurable": {"thread_id": "steady"}}, stock)
print("answers:", done["answers"])
print(f"stock.needs was called {len(stock.asked)} times ({len(FORM)} per run of the node)")
assert done["answers"] == {"size": "M", "colour": "blue"} and len(stock.asked) == 3 * len(FORM)

# %% [markdown]
# ## Predict first
#
# The same graph and the same person, but the stock changes after the
# first pause: `size` and `colour` were needed, now `gift_wrap`, `engraving`
# and `delivery_day` are. The person answers `size` with `"M"`, then
# answers every question shown. Which questions are shown, and what does
# `answers` hold at the end?

# %% [markdown] tags=["prediction"]
# ### BEGIN SOLUTION
# `size`, then `engraving`, then `delivery_day`; `answers` is
# `{'gift_wrap': 'M', 'engraving': 'none', 'delivery_day': 'Friday'}`. On
# the re-run the list is recomputed from the changed stock, and its first
# `interrupt()` — now `gift_wrap`'s — gets the first answer, `"M"`.
# `gift_wrap` is never shown, and the size is lost.
# ### END SOLUTION

# %% [markdown]
# ## The pitfall, reproduced for real

# %%
stock = Stock({"size", "colour"})
done = fill_in(naive_graph(stock), {"configurable": {"thread_id": "shifted"}}, stock, change_after_first=True)
print("answers:", done["answers"])
assert done["answers"] == {"gift_wrap": "M", "engraving": "none", "delivery_day": "Friday"}

# %% [markdown]
# No error: the run completed, with the size's answer under `gift_wrap`, a
# gift-wrap choice the person never made, and no size. A question asked on
# one run and not on the next shifts every answer after it. Anything that
# decides the questions from outside the saved state — a stock, a feature
# flag, a clock — may answer differently on the re-run.
#
# ## The fix: decide once, ask one question per pause
#
# - **Decide once.** A node `plan` computes the questions before the first
#   pause and stores them in `asked`. Its step is saved, so it never runs
#   again for this run: a changed stock changes nothing.
# - **One `interrupt()` per run of a node.** A node `ask` takes the first
#   question of `asked` not yet in `answers`, pauses on it, and stores the
#   answer under it. Its re-run on resume computes the same question from
#   the same saved state, so the answer cannot shift. The graph loops on
#   `ask` until every question is answered.
# - **`answers` has no reducer**: a write replaces the whole dict. `plan`
#   starts it at `{}`; `ask` returns it whole, with its answer added
#   (`{**state["answers"], question: answer}`), or the answers before are
#   lost and their questions asked again.
#
# The grader checks what happens, not this shape: several `interrupt()`
# calls in one node, over the `asked` that `plan` saved, also get every
# answer right. One pause per run of a node has a second benefit, shown
# below.
#
# This cell and the rest of the notebook need your `build_intake_graph` from
# `agstate/pauses.py`.

# %%
from agstate.pauses import build_intake_graph

stock = Stock({"size", "colour"})
done = fill_in(build_intake_graph(stock, InMemorySaver()), {"configurable": {"thread_id": "fixed"}}, stock,
               change_after_first=True)
print(done)
print(f"stock.needs was called {len(stock.asked)} times")
assert done == {"asked": ["size", "colour"], "answers": {"size": "M", "colour": "blue"}}
assert len(stock.asked) == len(FORM)

# %% [markdown]
# Every answer under its question, and `asked` still the questions decided
# before the stock changed: the stock was asked once per question of
# `FORM`, in `plan`'s only run.
#
# The thread's history shows the loop: with one pause per run of `ask`,
# before each run of it `answers` holds one more question than before the
# previous one (your nodes may have other names).

# %%
graph = build_intake_graph(Stock({"size", "gift_wrap", "delivery_day"}), InMemorySaver())
config = {"configurable": {"thread_id": "steps"}}
fill_in(graph, config, stock=None)  # the stock does not change here
for snapshot in reversed(list(graph.get_state_history(config))):
    if snapshot.next:
        print(f"before a run of {', '.join(snapshot.next)}: answers {snapshot.values.get('answers')}")
assert graph.get_state(config).values["answers"] == {q: ANSWERS[q] for q in ("size", "gift_wrap", "delivery_day")}

# %% [markdown]
# ### Answers saved as they come
#
# One pause per run of a node has a second benefit. With several pauses in
# one node, the answers given so far are in no key of the state: they
# reach `answers` only when the node finishes. Two answers in, out of
# three, `get_state` shows each graph's thread as follows:

# %%
for name, build in [("several pauses in one node", naive_graph),
                    ("one pause per run of ask", lambda stock: build_intake_graph(stock, InMemorySaver()))]:
    graph = build(Stock({"size", "colour", "gift_wrap"}))
    config = {"configurable": {"thread_id": "two-of-three"}}
    graph.invoke({}, config)
    for answer in ("M", "blue"):
        graph.invoke(Command(resume=answer), config)
    state = graph.get_state(config)
    print(f"{name}: values {state.values}, paused on {[pause.value for pause in state.interrupts]}")
    if name.startswith("several"):
        assert not state.values.get("answers")

# %% [markdown]
# The naive thread's state is still empty: a person's screen that reads it,
# or an edit with `update_state` (notebook 34), finds no answer. A graph
# with one pause per run of a node holds both, each saved in its own step.
#
# With no question needed, the run completes without pausing:

# %%
done = build_intake_graph(Stock(set()), InMemorySaver()).invoke({}, {"configurable": {"thread_id": "none"}})
print(done)
assert done["asked"] == [] and not done.get("answers")

# %% [markdown]
# ## Your exercise
#
# In `agstate/pauses.py`, write **`build_intake_graph(stock, checkpointer=None)`**
# as its docstring says. The grader draws which questions of `FORM` are
# needed, lends a stock that changes its answers after the first pause, and
# answers each pause from answers drawn per question:
#
# - Which questions are asked is decided once, before the first pause, and
#   kept in `asked`, in `FORM`'s order.
# - Each interrupt's value is `{"question": <question id>}`, one question,
#   and its answer lands in `answers` under that question.
# - A question not in `asked` is never asked; each question in `asked` is
#   asked until answered, then never again.
# - The run completes once every question in `asked` is answered, with
#   `answers` holding exactly those; with none needed, without pausing.

# %%
from grader import check

check("pauses.questions")

# %% [markdown]
# ## What to remember
#
# - Several `interrupt()` calls in one node are answered by position, on
#   every re-run of the node.
# - Whatever decides the questions may change while the run waits: decide
#   once, in a step of its own, and keep the decision in the state.
# - One pause per run of a node, for a question the saved state names: the
#   answer then lands under the question it answers.
# - Next: **36 — migrations**.
