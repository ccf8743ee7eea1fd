"""What the learner's docs promise, sentence by sentence, and which grader rule checks each promise.

Every sentence of the docstrings of an exercise module (the module's own and
those of its public functions and classes, as the learner's stub shows them)
is listed in its part's table, ``tests/doc_rules/<part>.py``, as either

- ``checked(task_id, rule_sentence)``: a rule of the grader checks it, or
- ``explains(why)``: it promises nothing a grader could check (context, a
  pointer to a notebook, a hint on how to write it).

``tests/test_doc_rules.py`` fails when a docstring gains a sentence the table
does not list, when the table names a rule the registry does not have, or
when a sentence the table lists is gone: a documented rule without a check
cannot slip in unnoticed.
"""

import ast
import re
from pathlib import Path
from typing import NamedTuple

__all__ = ["Checked", "Explains", "checked", "explains", "documented"]

REFERENCE = Path(__file__).resolve().parents[2] / "solutions" / "agstate"


class Checked(NamedTuple):
    task: str
    rule: str


class Explains(NamedTuple):
    why: str


def checked(task: str, rule: str) -> Checked:
    return Checked(task, rule)


def explains(why: str) -> Explains:
    return Explains(why)


def documented(module: str) -> list[tuple[str, str]]:
    """``(where, sentence)`` for every sentence of ``module``'s docstrings; ``where`` is "module" or the name documented.

    A docstring is cut into its list items (lines starting with "- ") and,
    within each paragraph or item, its sentences (a ".", "!" or "?" followed
    by a space and a capital letter or a backquote). Whitespace is collapsed.
    """
    tree = ast.parse((REFERENCE / f"{module}.py").read_text(encoding="utf-8"))
    found = [("module", ast.get_docstring(tree) or "")]
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and not node.name.startswith("_"):
            found.append((node.name, ast.get_docstring(node) or ""))
            if isinstance(node, ast.ClassDef):
                found += [(f"{node.name}.{item.name}", ast.get_docstring(item) or "") for item in node.body
                          if isinstance(item, ast.FunctionDef) and not item.name.startswith("_")]
    sentences = []
    for where, text in found:
        for chunk in _chunks(text):
            sentences += [(where, sentence) for sentence in re.split(r"(?<=[.!?])\s+(?=[A-Z`])", chunk) if sentence]
    return sentences


def _chunks(text: str) -> list[str]:
    """Paragraphs and list items, each on one line."""
    chunks, current = [], []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("- "):
            if current:
                chunks.append(" ".join(current))
            current = [stripped] if stripped else []
        else:
            current.append(stripped)
    if current:
        chunks.append(" ".join(current))
    return [re.sub(r"\s+", " ", chunk).strip() for chunk in chunks if chunk.strip()]
