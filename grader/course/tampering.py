"""What a submitted notebook changed in its graded cells, compared with the released notebook.

nbgrader restores a locked cell's source and drops a duplicated grade id
before grading, so tampering gains nothing here (scores come from the
sandboxed grader, never from a cell); but a student who tried should be
seen. Each finding is one sentence an instructor can act on. Used by
autograde (``grader.course.autograde.AuditCells``) and ``agstate-course audit``.
"""

import copy
from collections import defaultdict

__all__ = ["findings", "restore"]

# The nbgrader fields that decide how a cell is graded; a student has no reason to change any of them.
_GRADING_FIELDS = ("grade", "solution", "locked", "points", "task")


def _graded(cell) -> dict | None:
    meta = cell.get("metadata", {}).get("nbgrader")
    return meta if isinstance(meta, dict) and isinstance(meta.get("grade_id"), str) else None


def findings(submitted, released) -> list[str]:
    """Every change to a graded or locked cell of ``released`` (an nbformat notebook) in ``submitted``."""
    released_cells = {meta["grade_id"]: (cell, meta) for cell in released.cells if (meta := _graded(cell))}
    carrying = defaultdict(list)  # grade id -> the submitted cells that carry it
    for cell in submitted.cells:
        if meta := _graded(cell):
            carrying[meta["grade_id"]].append(cell)
    found = []
    for grade_id, (cell, meta) in released_cells.items():
        copies = carrying.get(grade_id, [])
        if not copies:
            found.append(f"cell {grade_id} is missing (deleted, or its grade id was changed)")
            continue
        if len(copies) > 1:
            found.append(f"grade id {grade_id} is on {len(copies)} cells (a cell was given another cell's id)")
        for twin in copies:
            if twin.get("cell_type") != cell.cell_type:
                found.append(f"cell {grade_id} was changed from a {cell.cell_type} cell to a {twin.get('cell_type')} cell")
            elif meta.get("locked") and twin.get("source") != cell.source:
                found.append(f"locked cell {grade_id} was edited")
            changed = [field for field in _GRADING_FIELDS if _graded(twin).get(field) != meta.get(field)]
            if changed:
                found.append(f"cell {grade_id}'s grading metadata was changed ({', '.join(changed)})")
    for grade_id in carrying:
        if grade_id not in released_cells:
            found.append(f"a cell carries grade id {grade_id!r}, which the released notebook does not have")
    return list(dict.fromkeys(found))  # two copies of one edited cell are one sentence


def restore(submitted, released) -> None:
    """Put ``submitted``'s graded cells back in the released shape, in place, before nbgrader sanitizes it.

    Each grade id stays on its first cell only, a grade id the release does not
    have is dropped, and a deleted graded cell is put back after the graded
    cell the release has before it. nbgrader's own steps then restore each graded cell's source and
    metadata, and the audit has said what was missing. (nbgrader's ``add_missing_cells`` cannot do the last part: it
    fails on a notebook that also has a duplicated grade id.)
    """
    released_ids = [meta["grade_id"] for cell in released.cells if (meta := _graded(cell))]
    seen = set()
    for cell in submitted.cells:
        meta = _graded(cell)
        if meta is None and isinstance(cell.get("metadata", {}).get("nbgrader"), dict):
            del cell.metadata["nbgrader"]  # nbgrader metadata without a grade id: nothing nbgrader can check
        elif meta is not None and (meta["grade_id"] in seen or meta["grade_id"] not in released_ids):
            del cell.metadata["nbgrader"]
        elif meta is not None:
            seen.add(meta["grade_id"])
    previous = None  # the released graded cell before the one being put back
    for cell in released.cells:
        meta = _graded(cell)
        if meta is None:
            continue
        if meta["grade_id"] not in seen:
            at = next((i + 1 for i, c in enumerate(submitted.cells) if (m := _graded(c)) and m["grade_id"] == previous), 0)
            submitted.cells.insert(at, copy.deepcopy(cell))
        previous = meta["grade_id"]
