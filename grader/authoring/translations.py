"""The notebooks in other languages: each master's prose and comments translated in a gettext catalog beside it.

A master notebook (``solutions/notebooks/NN_name.py``) is the one source.
What a learner reads in it and may read in another language is its
*segments*: each markdown cell (the text outside a written answer's
``### BEGIN SOLUTION`` region, which the release clears), each comment of
a code cell (a block of whole-line comments, or the comment ending a line
of code) and the header's ``pitfall``, ``exercise``, ``part_pitfalls`` and
``part_notes``. Code, names, strings and so outputs stay as they are.

``solutions/notebooks/i18n/<lang>/NN_name.po`` translates them, keyed by
the English text itself (``msgid``; ``#: cell:N`` says where), so a
changed English cell has no translation any more: the release reports it
and, unless told to ship the English text for it, refuses
(``grader.authoring.release``). Such a cell is *stale* when the catalog
held a translation for that place (its older text, or an entry Babel's
``update`` marked ``fuzzy``), *untranslated* when it is new.

    python -m grader.authoring.translations status              # every stale or untranslated segment, by language
    python -m grader.authoring.translations update [--lang es]  # merge the masters' (and docs/learner's) segments

``update`` merges each master's segments into its catalogs
(``grader.authoring.po_files``: Babel's update, a changed segment turned
``fuzzy`` with its old translation kept). A translated comment block keeps
its number of lines (reflowed when the translation has another), so a
traceback names the same line in every language.
"""

import argparse
import io
import re
import sys
import tokenize
from pathlib import Path

from grader.authoring.po_files import Lookup, Problem, Segment, merge
from grader.authoring.stubs import ROOT
from grader.i18n import LANGUAGES

__all__ = ["TARGETS", "HEADER_KEYS", "segments", "catalog_path", "translate", "problems", "update", "main"]

TARGETS = tuple(lang for lang in LANGUAGES if lang != "en")
HEADER_KEYS = ("pitfall", "exercise", "part_pitfalls", "part_notes")  # the header's prose (the docs' tour reads it)
_REGION = re.compile(r"^[ \t]*### BEGIN SOLUTION.*?^[ \t]*### END SOLUTION[ \t]*$\n?", re.M | re.S)
_PRAGMA = re.compile(r"^\s*(noqa|type:|pragma|fmt:|###)")


def _prose(source: str) -> list[tuple[int, int]]:
    """The spans of a markdown cell outside its answer regions that hold words: (start, end), stripped."""
    spans, start = [], 0
    for region in [*_REGION.finditer(source), None]:
        end = region.start() if region else len(source)
        text = source[start:end]
        if re.search(r"\w", text):
            lead = len(text) - len(text.lstrip())
            spans.append((start + lead, start + len(text.rstrip())))
        start = region.end() if region else end
    return spans


def _comments(source: str) -> list[tuple[list[int], int, str]]:
    """A code cell's comments worth translating: (rows from 1, column, text), a block of whole-line comments as one."""
    try:
        tokens = [token for token in tokenize.generate_tokens(io.StringIO(source).readline) if token.type == tokenize.COMMENT]
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return []
    lines = source.split("\n")
    answer = set()
    for region in _REGION.finditer(source):  # a code answer's comments go with it
        answer.update(range(source.count("\n", 0, region.start()) + 1, source.count("\n", 0, region.end()) + 2))
    found: list[tuple[list[int], int, str]] = []
    for token in tokens:
        (row, column), body = token.start, token.string[1:]
        text = body[1:] if body.startswith(" ") else body
        if row in answer or _PRAGMA.match(body) or not re.search(r"[^\W\d_]", text):
            continue
        whole = not lines[row - 1][:column].strip()
        last = found[-1] if found else None
        if whole and last and last[1] == column and last[0][-1] == row - 1 and not lines[last[0][-1] - 1][:column].strip():
            found[-1] = ([*last[0], row], column, f"{last[2]}\n{text}")
        else:
            found.append(([row], column, text))
    return found


def segments(notebook) -> list[Segment]:
    """Every segment of a source notebook (``grader.authoring.assignment.source_notebook``), in reading order."""
    header = notebook.metadata.get("agstate", {})
    found = [Segment(0, "header", header[key]) for key in HEADER_KEYS if _worded(header.get(key))]
    for number, cell in enumerate(notebook.cells, 1):
        if cell.cell_type == "markdown":
            found += [Segment(number, "markdown", cell.source[start:end]) for start, end in _prose(cell.source)]
        elif cell.cell_type == "code":
            found += [Segment(number, "comment", text) for _rows, _column, text in _comments(cell.source)]
    return found


def _worded(value) -> bool:
    return isinstance(value, str) and re.search(r"[^\W\d_]", value) is not None


def catalog_path(lang: str, stem: str, root: Path = ROOT) -> Path:
    return root / "solutions" / "notebooks" / "i18n" / lang / f"{stem}.po"


def _title(lang: str, stem: str) -> str:
    return (f"Notebook {stem}, its prose and comments in {lang}: the release writes notebooks/{lang}/{stem}.ipynb from\n"
            f"solutions/notebooks/{stem}.py and this catalog (grader/authoring/translations.py).")


def translate(notebook, lang: str, stem: str, root: Path = ROOT) -> tuple[object, list[Problem]]:
    """``notebook`` (a source notebook, changed in place) in ``lang``, and the segments left in English for want of a
    current translation."""
    said = Lookup(catalog_path(lang, stem, root), lang, f"{stem}.ipynb", segments(notebook))

    header = notebook.metadata.get("agstate", {})
    for key in HEADER_KEYS:
        if _worded(header.get(key)):
            header[key] = said(Segment(0, "header", header[key]))
    for number, cell in enumerate(notebook.cells, 1):
        if cell.cell_type == "markdown":
            text = cell.source
            for start, end in reversed(_prose(text)):
                text = text[:start] + said(Segment(number, "markdown", text[start:end])) + text[end:]
            cell.source = text
        elif cell.cell_type == "code":
            lines = cell.source.split("\n")
            for rows, column, english in reversed(_comments(cell.source)):
                mark = lines[rows[0] - 1][column:column + 2] if lines[rows[0] - 1][column + 1:column + 2] == " " else "#"
                new = _reflow(said(Segment(number, "comment", english)), len(rows))
                for row, text in zip(rows, new):
                    lines[row - 1] = lines[row - 1][:column] + (mark + text if text else "#")
            cell.source = "\n".join(lines)
    notebook.metadata.setdefault("agstate", {})["language"] = lang
    return notebook, said.missing


def _reflow(text: str, rows: int) -> list[str]:
    """``text`` on exactly ``rows`` lines: as written when it has that many, else its words shared out evenly."""
    lines = text.split("\n")
    if len(lines) == rows:
        return lines
    words = _WORD.findall(" ".join(line.strip() for line in lines))
    width = next(width for width in range(1, len(text) + 2) if len(_pack(words, width)) <= rows)
    packed = _pack(words, width)
    return packed + [""] * (rows - len(packed))


_WIDE = "\u3000-\u9fff\uff00-\uffef"  # CJK characters and punctuation: a line may break between any two
_WORD = re.compile(rf"[{_WIDE}]|[^\s{_WIDE}]+")


def _pack(words: list[str], width: int) -> list[str]:
    """``words`` on lines of at most ``width`` characters (a longer word alone), a space between two that are not CJK."""
    out: list[str] = []
    for word in words:
        wide = re.match(f"[{_WIDE}]", word) or (out and re.search(f"[{_WIDE}]$", out[-1]))
        joined = (out[-1] + ("" if wide else " ") + word) if out else word
        if out and len(joined) <= width:
            out[-1] = joined
        else:
            out.append(word)
    return out


def problems(root: Path = ROOT, langs=TARGETS) -> list[Problem]:
    """Every segment of every master with no current translation, language by language."""
    from grader.authoring.assignment import source_notebook

    found = []
    for lang in langs:
        for master in sorted((root / "solutions" / "notebooks").glob("[0-9][0-9]_*.py")):
            found += translate(source_notebook(master), lang, master.stem, root)[1]
    return found


def update(root: Path = ROOT, langs=TARGETS) -> list[Path]:
    """Merge every master's segments into its catalog of each language; the catalogs written."""
    from grader.authoring.assignment import source_notebook

    written = []
    for master in sorted((root / "solutions" / "notebooks").glob("[0-9][0-9]_*.py")):
        found = segments(source_notebook(master))
        for lang in langs:
            if merge(catalog_path(lang, master.stem, root), lang, _title(lang, master.stem), found):
                written.append(catalog_path(lang, master.stem, root))
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m grader.authoring.translations", description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=("status", "update"))
    parser.add_argument("--lang", nargs="+", choices=TARGETS, default=list(TARGETS), help="the languages (default: all)")
    args = parser.parse_args(argv)
    from grader.authoring.translated_docs import translated_pages
    from grader.authoring.translated_docs import update as update_pages

    if args.command == "update":
        for path in [*update(langs=tuple(args.lang)), *update_pages(langs=tuple(args.lang))]:
            print(f"updated {path.relative_to(ROOT)}")
    found = problems(langs=tuple(args.lang)) + translated_pages(langs=tuple(args.lang))[1]
    for problem in found:
        print(problem)
    print(f"{sum(p.state == 'stale' for p in found)} stale, {sum(p.state == 'untranslated' for p in found)} untranslated "
          f"segments in {', '.join(args.lang)}", file=sys.stderr)
    return 1 if found and args.command == "status" else 0


if __name__ == "__main__":
    sys.exit(main())
