"""Part F's examples: requests and answers, crash points, review states and edits, forms, and each release's states."""

from hypothesis import strategies as st

from grader.parts.pauses.model import FORM

__all__ = ["requests", "request_pairs", "answers", "crashes", "approval_cases", "crash_cases", "edit_cases", "bad_edit_cases",
           "needed", "form_answers", "intake_cases", "release_cases", "thread_cases"]

_TEXTS = st.sampled_from(["ok", "", "été", "two words", "x", "ship it", "n/a"])
_WORDS = st.sampled_from(["urgent", "vip", "late", "gift", "été", "b2b"])

_IDS = st.sampled_from(["r1", "r-2", "ø3", "req 4", "5"])
requests = st.fixed_dictionaries({
    "id": _IDS,
    "payee": st.sampled_from(["ann", "bob", "Zoë", "acme ltd"]),
    "amount": st.integers(1, 100_000),
})
# Two requests on the same fakes, their ids different: a key that does not name the request makes the second a
# repeat. Half of them have the same payee and amount (a key made of those, not of the id).
request_pairs = st.one_of(
    st.tuples(requests, requests),
    st.tuples(requests, _IDS).map(lambda pair: (pair[0], {**pair[0], "id": pair[1]})),
).filter(lambda pair: pair[0]["id"] != pair[1]["id"])
answers = st.booleans()
# Where the learner's process is killed: the n-th call of inbox.send or of payments.pay in the run, before or after
# the call takes effect.
crashes = st.fixed_dictionaries({"fake": st.sampled_from(["pay", "send"]), "nth": st.integers(1, 2),
                                 "when": st.sampled_from(["before", "after"])})
approval_cases = st.tuples(requests, answers)
crash_cases = st.tuples(requests, answers, crashes)

review_states = st.fixed_dictionaries({
    "draft": _TEXTS,
    "notes": st.lists(_TEXTS, max_size=4),
    "tags": st.lists(_WORDS, max_size=4, unique=True),  # as merge_tags keeps them
})


@st.composite
def edits(draw, state: dict):
    """A valid edit of one of ``state``'s keys: (key, edit)."""
    key = draw(st.sampled_from(["draft", "notes", "tags"]))
    current = state[key]
    kinds = ["replace"] + (["correct", "remove"] if key != "draft" and current else [])
    kind = draw(st.sampled_from(kinds))
    if kind == "replace":
        value = draw(_TEXTS) if key == "draft" else draw(st.lists(_WORDS if key == "tags" else _TEXTS, max_size=4))
        return key, ("replace", value)
    index = draw(st.integers(0, len(current) - 1))
    return key, ("correct", index, draw(_TEXTS)) if kind == "correct" else ("remove", index)


@st.composite
def bad_edits(draw, state: dict):
    """An edit that does not fit: (key, edit)."""
    key = draw(st.sampled_from(["draft", "notes", "tags"]))
    size = len(state[key]) if key != "draft" else 0
    return draw(st.sampled_from([
        ("summary", ("replace", "text")),
        (key, ("rewrite", "text")),
        ("draft", ("correct", 0, "text")),
        ("draft", ("remove", 0)),
        ("draft", ("replace", ["a", "list"])),
        ("notes", ("replace", "not a list")),
        ("tags", ("replace", ["ok", 3])),
        ("notes", ("replace", tuple(state["notes"]))),  # a tuple where the key holds a list
        ("notes", ("remove", -1)),
        ("tags", ("correct", len(state["tags"]), "t")),
        ("notes", ("remove", len(state["notes"]))),
        ("notes", ("correct", 0, 7)) if state["notes"] else ("notes", ("correct", size, "t")),
        # The shape: an index that is not an int, a part missing, a part too many.
        ("notes", ("remove", True)),
        ("tags", ("correct", 0.0, "t")),
        ("notes", ("remove", 0, "and more")),
        ("tags", ("correct", 0)),
        (key, ("replace",)),
    ]))


needed = st.lists(st.sampled_from(FORM), unique=True).map(lambda picked: [q for q in FORM if q in picked])
form_answers = st.fixed_dictionaries({question: _TEXTS for question in FORM})
intake_cases = st.tuples(needed, form_answers)
_EXTRA = st.dictionaries(st.sampled_from(["note", "coupon", "legacy_flag", "é"]),
                         st.one_of(st.integers(-5, 5), _TEXTS, st.lists(st.integers(0, 3), max_size=2)), max_size=2)


@st.composite
def release_states(draw, version: int, extra: bool = True):
    """A state of release ``version``: every key of it, and (releases 1 and 2) keys no release has."""
    items = draw(st.lists(_TEXTS, max_size=4))
    state = {"version": version, "total": draw(st.integers(0, 9))}
    if version == 1:
        state["items"] = items
    elif version == 2:
        state["lines"] = items
    else:
        state.update(lines=[{"text": text, "qty": draw(st.integers(1, 3))} for text in items], currency=draw(
            st.sampled_from(["EUR", "USD"])), archive=draw(_EXTRA))
    if extra and version < 3:
        state.update(draw(_EXTRA))
    return state


edit_cases = review_states.flatmap(lambda state: st.tuples(st.just(state), edits(state)))
bad_edit_cases = review_states.flatmap(lambda state: st.tuples(st.just(state), bad_edits(state)))
_VERSIONS = st.sampled_from([1, 2, 3])
# (version, a state of it): with keys no release has for migrate; a thread's state holds its release's keys only.
release_cases = _VERSIONS.flatmap(lambda version: st.tuples(st.just(version), release_states(version)))
thread_cases = _VERSIONS.flatmap(lambda version: st.tuples(st.just(version), release_states(version, extra=False)))
