"""Every piece of code a kit ships that a learner could paste into a stub: where it is, and which exercise names it sets.

A kit ships the learner notebooks, the ``agstate/`` stubs and helpers, and
(the course kit) a few modules of ``grader/`` (``KIT_MODULES``). Code is in
each notebook's code cells, in the strings those cells hold (a cell that
writes a module to a file), in the code blocks and spans of the markdown
cells, and in the docstrings of the Python files (a ``...`` span, a ``>>>``
session, a block after ``::``), nested strings included. A fragment that
parses and sets a public name of an exercise module at its top level (a
``def``, a ``class``, an assignment, ``module.name = ...`` or ``setattr``) is
a candidate: pasted at the end of that part's stub, it could change a grade.
``tests/test_kit_fragments.py`` grades each candidate so.
"""

import ast
import json
import re
from pathlib import Path
from typing import NamedTuple

__all__ = ["Fragment", "fragments", "candidates", "exercise_names"]


class Fragment(NamedTuple):
    where: str  # the file and the cell, docstring or string it comes from
    source: str


def exercise_names(module_source: str) -> set[str]:
    """The public names an exercise module defines at its top level: its functions, classes and constants."""
    names = set()
    for node in ast.parse(module_source).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {target.id for target in targets if isinstance(target, ast.Name)}
    return {name for name in names if not name.startswith("_")}


def _strings(where: str, source: str):
    """``source`` itself, then every string it holds that parses as code, with theirs, depth first."""
    yield Fragment(where, source)
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return
    for number, node in enumerate(n for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)):
        if "\n" in node.value or "def " in node.value or "=" in node.value:
            yield from _strings(f"{where}, string {number}", node.value)


def _markdown_code(where: str, text: str):
    for number, block in enumerate(re.findall(r"```[a-z]*\n(.*?)```", text, re.S)):
        yield from _strings(f"{where}, code block {number}", block)
    for number, span in enumerate(re.findall(r"`([^`\n]+)`", text)):
        yield from _strings(f"{where}, code span {number}", span)


def _docstring_code(where: str, text: str):
    for number, span in enumerate(re.findall(r"``(.+?)``", text, re.S)):
        yield from _strings(f"{where}, span {number}", span)
    session = "\n".join(line.strip()[4:] for line in text.splitlines() if line.strip().startswith((">>> ", "... ")))
    if session:
        yield from _strings(f"{where}, >>> session", session)
    for number, block in enumerate(re.findall(r"::\n\n((?:[ \t]+.*\n?|\n)+)", text)):
        yield from _strings(f"{where}, block {number}", "\n".join(line[4:] for line in block.splitlines()))


def fragments(notebooks: list[Path], python_files: list[Path]) -> list[Fragment]:
    """Every fragment of code in ``notebooks`` (cells, their strings, markdown code) and ``python_files`` (docstrings)."""
    found = []
    for path in notebooks:
        for number, cell in enumerate(json.loads(path.read_text(encoding="utf-8"))["cells"]):
            text, where = "".join(cell["source"]), f"{path.name}, cell {number}"
            found += list(_strings(where, text) if cell["cell_type"] == "code" else _markdown_code(where, text))
    for path in python_files:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                text = ast.get_docstring(node, clean=True)
                if text:
                    found += list(_docstring_code(f"{path.name}, {getattr(node, 'name', 'module')} docstring", text))
    return found


def _set_names(source: str) -> set[str]:
    """The names ``source`` sets at its top level, and the attributes it assigns anywhere (``state.keep_max = f``)."""
    tree = ast.parse(source)
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {n.id for target in targets for n in ast.walk(target) if isinstance(n, ast.Name)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
        elif isinstance(node, ast.Call) and getattr(node.func, "id", None) == "setattr" and len(node.args) > 1 \
                and isinstance(node.args[1], ast.Constant):
            names.add(str(node.args[1].value))
    return names


def candidates(found: list[Fragment], exercises: dict[str, set[str]]) -> list[tuple[str, Fragment]]:
    """(part, fragment) for each fragment that parses and sets one of the part's exercise names; each source once."""
    picked, seen = [], set()
    for fragment in found:
        try:
            names = _set_names(fragment.source)
        except SyntaxError:
            continue
        for part, exercise in exercises.items():
            if names & exercise and (part, fragment.source) not in seen:
                seen.add((part, fragment.source))
                picked.append((part, fragment))
    return picked
