"""Part A's examples: every Hypothesis strategy its rules draw from, and the small graphs tried first.

Names and numbers differ on every seed. A rule's examples are named by its
test function (``bank.Key``), not by these strategies: renaming a strategy
here changes nothing a learner sees, but changing what one draws changes
every example of the rules that use it.
"""

from hypothesis import strategies as st

__all__ = [
    "items", "item_lists", "writes", "olds", "scores", "list_writes", "bare_strs", "olds_with_repeats",
    "comparable_pairs", "comparable_triples", "maybe_scores", "none_first", "non_positive", "graph_scores",
    "negative_scores", "calls_spent", "calls_in_input", "window_sizes", "graph_window_sizes", "graph_writes",
    "bad_window_sizes", "questions", "node_names", "supersteps", "graph_case", "small_graph",
]

# -- reducer arguments -------------------------------------------------------------------
# A small pool makes repeats likely (dedupe needs them); free text adds unicode and "".
items = st.one_of(st.sampled_from(["a", "b", "doc-1", "doc-2", ""]), st.text(max_size=6))
item_lists = st.lists(items, max_size=8)
# A write is a list, a tuple or one bare item (a bare str is one item).
writes = st.one_of(item_lists, item_lists.map(tuple), items)
olds = st.one_of(st.none(), item_lists)
list_writes = st.one_of(item_lists, item_lists.map(tuple))  # a list or a tuple, never a bare item
bare_strs = st.text(min_size=2, max_size=6)  # two characters at least: splitting one would show
# Few distinct items in a long list: old holds a duplicate on most examples.
olds_with_repeats = st.lists(st.sampled_from(["a", "b", "c", ""]), min_size=2, max_size=8)

# -- keep_max's values -------------------------------------------------------------------
scores = st.integers(min_value=-10**6, max_value=10**6) | st.integers(min_value=-5, max_value=5)
maybe_scores = st.one_of(st.none(), scores)
none_first = st.booleans()  # which side of keep_max the None goes
non_positive = st.integers(-10, 0)
graph_scores = st.integers(-100, 100)
negative_scores = st.integers(-100, -1)

# Values of one family at a time, so every pair is mutually comparable.
_families = [
    st.integers(min_value=-10**12, max_value=10**12),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.text(max_size=5),
]
comparable_pairs = st.one_of(*[st.tuples(f, f) for f in _families])
comparable_triples = st.one_of(*[st.tuples(f, f, f) for f in _families])

# -- used_calls ----------------------------------------------------------------------------
calls_spent = st.integers(0, 10**9)  # one node's write
calls_in_input = st.integers(0, 100)  # what a caller may pass in

# -- windows -------------------------------------------------------------------------------
window_sizes = st.integers(1, 12)
graph_window_sizes = st.integers(1, 6)
graph_writes = st.lists(item_lists, min_size=1, max_size=5)  # one write per node of a chain
# Not an int >= 1: zero, negatives, and values that merely look like an int.
bad_window_sizes = st.one_of(st.integers(-5, 0), st.sampled_from([2.5, "3", None, 3.0]))

# -- the research graph -----------------------------------------------------------------------
questions = st.text(min_size=1, max_size=20)

# -- graphs ----------------------------------------------------------------------------------
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


@st.composite
def graph_case(draw, key: str, values, input_values=None):
    """Random supersteps, one write of ``key`` per node, and maybe an input value."""
    steps = draw(supersteps())
    writes = {name: {key: draw(values)} for step in steps for name in step}
    graph_input = {key: draw(input_values)} if input_values is not None and draw(st.booleans()) else {}
    return steps, writes, graph_input


def small_graph(key: str, *values) -> tuple:
    """A fixed small case tried before the random ones: a step of its own, then two writers in parallel.

    Checked first so that a wrong merge rule is reported on this case at once,
    instead of shrinking random graphs (each shrink step is a graph run).
    """
    steps = [["a"], ["b", "c"]]
    return (steps, {name: {key: value} for name, value in zip(["a", "b", "c"], values)}, {}),
