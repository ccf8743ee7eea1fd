"""What the learner's docs promise, sentence by sentence, and which grader rule checks each promise.

Every sentence of the docstrings of an exercise module (the module's own and
those of its functions, classes and methods, private ones included: the
learner completes ``_decide``; as the learner's stub shows them) is listed in
its part's table ``TABLE``, and every sentence of the "Your exercise"
sections of its notebooks in ``NOTEBOOKS``, ``tests/doc_rules/<part>.py``, as
either

- ``checked(task_id, rule_sentence)``: a rule of the grader checks it, or
- ``explains(why)``: it promises nothing a grader could check (context, a
  pointer to a notebook, a hint on how to write it).

``tests/test_doc_rules.py`` fails when the docs gain a sentence the table
does not list, when the table names a rule the registry does not have, or
when a sentence the table lists is gone: a documented rule without a check
cannot slip in unnoticed.
"""

import ast
import re
from pathlib import Path
from typing import NamedTuple

import jupytext

__all__ = ["Checked", "Explains", "checked", "explains", "documented", "exercised"]

ROOT = Path(__file__).resolve().parents[2]
STUBS = ROOT / "agstate"  # the learner's copy: what the learner reads (a solution block's own docstrings are not there)
NOTEBOOKS = ROOT / "solutions" / "notebooks"  # the masters: the learner's notebooks say the same (grader.authoring.release)
EXERCISE = "## Your exercise"  # the heading of the section where a notebook states what the learner writes


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
    tree = ast.parse((STUBS / f"{module}.py").read_text(encoding="utf-8"))
    found = [("module", ast.get_docstring(tree) or "")]
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):  # private ones too: the learner completes _decide
            found.append((node.name, ast.get_docstring(node) or ""))
            if isinstance(node, ast.ClassDef):
                found += [(f"{node.name}.{item.name}", ast.get_docstring(item) or "") for item in node.body
                          if isinstance(item, ast.FunctionDef) and not item.name.startswith("__")]
    return [(where, sentence) for where, text in found for sentence in _sentences(text)]


def exercised(part: str) -> list[tuple[str, str]]:
    """``(notebook, sentence)`` for every sentence of the "Your exercise" sections of ``part``'s notebooks.

    A section is the markdown from its ``## Your exercise`` heading to the
    next ``## `` heading, the code cells between skipped; it is cut into
    sentences as a docstring is. A notebook belongs to the part its metadata
    (``agstate.part``) names.
    """
    sentences = []
    for path in sorted(NOTEBOOKS.glob("*.py")):
        notebook = jupytext.read(path)
        if notebook.metadata.get("agstate", {}).get("part") != part:
            continue
        inside, said = False, []
        for cell in notebook.cells:
            for line in cell.source.splitlines() if cell.cell_type == "markdown" else []:
                if line.startswith("## "):
                    inside = line.strip() == EXERCISE
                elif inside:
                    said.append(line)
            said.append("")  # a cell ends a paragraph
        sentences += [(path.stem, sentence) for sentence in _sentences("\n".join(said))]
    return sentences


def _sentences(text: str) -> list[str]:
    return [sentence for chunk in _chunks(text)
            for sentence in re.split(r"(?<=[.!?])(?<!^\d\.)\s+(?=[A-Z`*])", chunk) if sentence]


_ITEM = re.compile(r"- |\d+\. ")  # a list item starts a chunk of its own: "- " or "1. "


def _chunks(text: str) -> list[str]:
    """Paragraphs and list items, each on one line."""
    chunks, current = [], []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or _ITEM.match(stripped):
            if current:
                chunks.append(" ".join(current))
            current = [stripped] if stripped else []
        else:
            current.append(stripped)
    if current:
        chunks.append(" ".join(current))
    return [re.sub(r"\s+", " ", chunk).strip() for chunk in chunks if chunk.strip()]
