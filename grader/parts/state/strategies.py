"""Hypothesis strategies for the lab's checks: names and numbers differ on every seed."""

from hypothesis import strategies as st

__all__ = ["items", "item_lists", "writes", "olds", "scores", "comparable_pairs", "node_names", "supersteps"]

# A small pool makes repeats likely (dedupe needs them); free text adds unicode and "".
items = st.one_of(st.sampled_from(["a", "b", "doc-1", "doc-2", ""]), st.text(max_size=6))
item_lists = st.lists(items, max_size=8)
# A write is a list, a tuple or one bare item (a bare str is one item).
writes = st.one_of(item_lists, item_lists.map(tuple), items)
olds = st.one_of(st.none(), item_lists)
scores = st.integers(min_value=-10**6, max_value=10**6) | st.integers(min_value=-5, max_value=5)

# Values of one family at a time, so every pair is mutually comparable.
_families = [
    st.integers(min_value=-10**12, max_value=10**12),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.text(max_size=5),
]
comparable_pairs = st.one_of(*[st.tuples(f, f) for f in _families])
comparable_triples = st.one_of(*[st.tuples(f, f, f) for f in _families])

# Letters only: LangGraph reserves ':' and '|' in node names. A name equal to a
# state key is refused by LangGraph, so those are filtered out.
_RESERVED = {"question", "trace", "sources", "used_calls", "best_score", "recent", "notes", "answer", "items"}
node_names = st.text(alphabet=st.characters(categories=["L"]), min_size=1, max_size=8).filter(
    lambda name: name not in _RESERVED and not name.startswith("__")
)


@st.composite
def supersteps(draw, max_steps: int = 4, max_width: int = 3, min_width: int = 1):
    """Supersteps of unique node names: the nodes of one step run in parallel."""
    widths = draw(st.lists(st.integers(min_width, max_width), min_size=1, max_size=max_steps))
    names = draw(st.lists(node_names, min_size=sum(widths), max_size=sum(widths), unique=True))
    steps, start = [], 0
    for width in widths:
        steps.append(names[start : start + width])
        start += width
    return steps
