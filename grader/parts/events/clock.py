"""The store's clock in a report: every ``ts`` a probe returns is one a rerun returns too.

A store sets ``ts`` from the wall clock, so a report that shows an event as
the store returned it would differ on every run of one seed (issue 15: a seed
repeats byte for byte). What the rules read of a ts is its type (a float) and
whether two events share it (a retry returns the stored event, its ts
included); both survive putting the k-th distinct ts a probe meets in place of
``EPOCH + k``. The grader's own store stamps event ``seq`` with ``EPOCH + seq``,
as the drawn logs of ``project`` do, so in an honest run event k reads
``EPOCH + k`` wherever it is shown.
"""

import math

EPOCH = 1_700_000_000.0  # 2023-11-14: a plausible time, so a shown event reads as a real one
EVENT_KEYS = ["payload", "seq", "task_id", "ts", "type"]  # an Event as plain data (model_dump)


def stamp(seq: int) -> float:
    """The ts of event ``seq`` in the grader's own stores and drawn logs."""
    return EPOCH + seq


def in_order(result):
    """``result`` with each event's finite float ts replaced by ``EPOCH + k``, k counting distinct ts in reading order.

    Reading order is the order of lists and dicts as built, the same on every
    run. A ts that is not a finite float is left as it is: it repeats, and the
    rules that read it must see it.
    """
    seen: dict[float, float] = {}

    def read(value):
        if isinstance(value, list):
            return [read(item) for item in value]
        if not isinstance(value, dict):
            return value
        is_event = sorted(value) == EVENT_KEYS and type(value["ts"]) is float and math.isfinite(value["ts"])
        return {key: seen.setdefault(item, stamp(len(seen) + 1)) if is_event and key == "ts" else read(item)
                for key, item in value.items()}

    return read(result)
