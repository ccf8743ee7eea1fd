"""Provided helper (not an exercise, never graded): measure what checkpoints cost.

With a checkpointer, LangGraph saves a checkpoint after every step of a run.
What each one costs depends on the state's design and on the saver:

- ``InMemorySaver`` keeps a key's value again only when the key changed, but
  then keeps the whole value: an ever-growing list is stored whole at every
  step.
- ``SqliteSaver`` serializes every key into every checkpoint, changed or not.

Notebook 05 uses ``checkpoint_bytes`` to plot both.
"""

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver

__all__ = ["stored_bytes", "checkpoint_bytes"]


def stored_bytes(saver) -> int:
    """Bytes ``saver`` holds now, for every thread.

    ``InMemorySaver``: the serialized checkpoints, channel values and pending
    writes. ``SqliteSaver``: the database pages in use.
    """
    if isinstance(saver, InMemorySaver):
        return _memory_bytes(saver)
    if isinstance(saver, SqliteSaver):
        return _sqlite_bytes(saver)
    raise TypeError(f"stored_bytes() needs an InMemorySaver or a SqliteSaver, got {type(saver).__name__}")


def _memory_bytes(saver: InMemorySaver) -> int:
    # Every stored value is a (type, bytes) pair from the saver's serializer.
    # storage: thread -> namespace -> checkpoint id -> (checkpoint, metadata, parent id)
    checkpoints = sum(
        len(checkpoint[1]) + len(metadata[1])
        for namespaces in saver.storage.values()
        for by_id in namespaces.values()
        for checkpoint, metadata, _parent in by_id.values()
    )
    # blobs: one entry per (thread, namespace, channel, version) — a value is
    # stored again only when its channel's version changed.
    blobs = sum(len(data) for _type, data in saver.blobs.values())
    # writes: each task's writes, kept with the checkpoint they apply to.
    writes = sum(
        len(value[1])
        for by_task in saver.writes.values()
        for _task, _channel, value, _path in by_task.values()
    )
    return checkpoints + blobs + writes


def _sqlite_bytes(saver: SqliteSaver) -> int:
    # SqliteSaver turns on journal_mode=WAL, so recent pages live in the -wal
    # file and the main file's size lags behind; page_count counts them all.
    pages = saver.conn.execute("PRAGMA page_count").fetchone()[0]
    page_size = saver.conn.execute("PRAGMA page_size").fetchone()[0]
    return pages * page_size


def checkpoint_bytes(graph, inputs: dict, thread_id: str = "measure") -> list[int]:
    """Run ``graph`` on ``inputs``: the bytes each step added to its checkpointer.

    Item ``i`` is what step ``i + 1`` cost (the first also holds the input's
    checkpoint). Their sum is everything the run stored. ``graph`` must be
    compiled with a checkpointer (``InMemorySaver`` or ``SqliteSaver``).
    """
    saver = graph.checkpointer
    if not isinstance(saver, (InMemorySaver, SqliteSaver)):
        raise ValueError(
            "checkpoint_bytes() needs a graph compiled with an InMemorySaver or a SqliteSaver, "
            f"e.g. builder.compile(checkpointer=InMemorySaver()) (got {saver!r})"
        )
    config = {"configurable": {"thread_id": thread_id}}
    totals = [stored_bytes(saver)]
    # durability="sync" saves each step's checkpoint before the step's update
    # is streamed, so measuring after each update charges every byte to its step.
    for _update in graph.stream(inputs, config, stream_mode="updates", durability="sync"):
        totals.append(stored_bytes(saver))
    return [after - before for before, after in zip(totals, totals[1:])]
