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

    python -m grader.authoring.translations status          # every stale or untranslated cell, by language
    python -m grader.authoring.translations update [--lang es]  # merge each master's segments into its catalogs

``update`` is Babel's ``Catalog.update``: a changed segment becomes
``#, fuzzy`` with its previous English (``#| msgid``) and its old
translation kept for the translator to correct; a new one is added empty;
one no longer in the master is kept as obsolete (``#~``) and comes back if
the English comes back. A translated comment block keeps its number of
lines (reflowed when the translation has another), so a traceback names
the same line in every language.
"""

import argparse
import io
import re
import sys
import tokenize
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po

from grader.authoring.stubs import ROOT
from grader.i18n import LANGUAGES

__all__ = ["TARGETS", "HEADER_KEYS", "Segment", "Problem", "segments", "catalog_path", "translate", "problems", "update",
           "main"]

TARGETS = tuple(lang for lang in LANGUAGES if lang != "en")
HEADER_KEYS = ("pitfall", "exercise", "part_pitfalls", "part_notes")  # the header's prose (the docs' tour reads it)
_FIXED_DATE = datetime(2026, 1, 1, tzinfo=UTC)  # catalogs carry no date: an update that changes nothing writes nothing
_REGION = re.compile(r"^[ \t]*### BEGIN SOLUTION.*?^[ \t]*### END SOLUTION[ \t]*$\n?", re.M | re.S)
_PRAGMA = re.compile(r"^\s*(noqa|type:|pragma|fmt:|###)")


@dataclass(frozen=True)
class Segment:
    """A piece of a master a learner reads: ``cell`` numbered from 1 as the notebook shows them, 0 for the header."""

    cell: int
    kind: str  # "markdown", "comment" or "header"
    text: str


@dataclass(frozen=True)
class Problem:
    """A segment with no current translation: ``state`` is "stale" (its English changed) or "untranslated" (new)."""

    lang: str
    notebook: str
    segment: Segment
    state: str

    def __str__(self):
        where = "header" if self.segment.cell == 0 else f"cell {self.segment.cell}"
        words = " ".join(self.segment.text.split())
        return (f"{self.lang}/{self.notebook}.ipynb {where} ({self.segment.kind}): {self.state}: "
                f"{words[:70]}{'…' if len(words) > 70 else ''}")


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


def _place(segment: Segment) -> tuple[str, int | None]:
    """Where a segment is, as its catalog says it: ``#: cell:7``, ``#: header``."""
    return ("header", None) if segment.kind == "header" else ("cell", segment.cell)


def _load(lang: str, stem: str, root: Path) -> Catalog:
    path = catalog_path(lang, stem, root)
    if not path.exists():
        return _empty(lang, stem)
    with path.open("rb") as handle:
        return read_po(handle, locale=lang)


def _empty(lang: str, stem: str) -> Catalog:
    catalog = Catalog(locale=lang, project=f"agstate lab, notebook {stem}", version="1", copyright_holder="the agstate lab authors",
                      msgid_bugs_address="the lab's issue tracker", creation_date=_FIXED_DATE, revision_date=_FIXED_DATE,
                      last_translator="the agstate lab authors", language_team=f"agstate lab {lang}", fuzzy=False,
                      header_comment=f"# Notebook {stem}, its prose and comments in {lang}: the release writes notebooks/{lang}/"
                                     f"{stem}.ipynb from\n# solutions/notebooks/{stem}.py and this catalog "
                                     "(grader/authoring/translations.py).")
    return catalog


def _translation(catalog: Catalog, segment: Segment) -> str | None:
    message = catalog.get(segment.text)
    return message.string if message is not None and message.string and not message.fuzzy else None


def _state(catalog: Catalog, segment: Segment, current: set[str]) -> str:
    message = catalog.get(segment.text)
    if message is not None and message.fuzzy:
        return "stale"
    here = _place(segment)
    older = any(m.id and m.id not in current and here in m.locations and segment.kind in m.auto_comments and m.string
                for m in catalog)
    return "stale" if older else "untranslated"


def translate(notebook, lang: str, stem: str, root: Path = ROOT) -> tuple[object, list[Problem]]:
    """``notebook`` (a source notebook, changed in place) in ``lang``, and the segments left in English for want of a
    current translation."""
    catalog = _load(lang, stem, root)
    current = {segment.text for segment in segments(notebook)}
    missing = []

    def said(segment: Segment) -> str:
        text = _translation(catalog, segment)
        if text is None:
            missing.append(Problem(lang, stem, segment, _state(catalog, segment, current)))
            return segment.text
        return text

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
    return notebook, missing


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
    """Merge every master's segments into its catalog of each language (Babel's update); the catalogs written."""
    from grader.authoring.assignment import source_notebook

    written = []
    for master in sorted((root / "solutions" / "notebooks").glob("[0-9][0-9]_*.py")):
        template = _empty("en", master.stem)
        for segment in segments(source_notebook(master)):
            message = template.get(segment.text) or template.add(segment.text, auto_comments=[segment.kind])
            message.locations = sorted({*message.locations, _place(segment)}, key=lambda place: place[1] or 0)
        for lang in langs:
            catalog = _load(lang, master.stem, root)
            for key, message in list(catalog.obsolete.items()):  # the English came back: so does its translation
                if template.get(message.id) is not None:
                    catalog[message.id] = message
                    del catalog.obsolete[key]
            catalog.update(template, update_creation_date=False)
            for message in catalog:  # place and kind as the master has them now
                if message.id and template.get(message.id) is not None:
                    message.locations, message.auto_comments = template[message.id].locations, template[message.id].auto_comments
            path = catalog_path(lang, master.stem, root)
            text = _po_text(catalog)
            if not path.exists() or path.read_bytes() != text:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(text)
                written.append(path)
    return written


def _po_text(catalog: Catalog) -> bytes:
    catalog.revision_date = _FIXED_DATE
    out = io.BytesIO()
    write_po(out, catalog, width=0, include_previous=True, sort_output=False)
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m grader.authoring.translations", description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=("status", "update"))
    parser.add_argument("--lang", nargs="+", choices=TARGETS, default=list(TARGETS), help="the languages (default: all)")
    args = parser.parse_args(argv)
    if args.command == "update":
        for path in update(langs=tuple(args.lang)):
            print(f"updated {path.relative_to(ROOT)}")
    found = problems(langs=tuple(args.lang))
    for problem in found:
        print(problem)
    print(f"{sum(p.state == 'stale' for p in found)} stale, {sum(p.state == 'untranslated' for p in found)} untranslated "
          f"segments in {', '.join(args.lang)}", file=sys.stderr)
    return 1 if found and args.command == "status" else 0


if __name__ == "__main__":
    sys.exit(main())
