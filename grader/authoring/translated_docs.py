"""The learner's pages in other languages: each page of ``docs/learner`` translated block by block in a catalog.

A page's *blocks* are its paragraphs, headings, lists and fenced code
(what a blank line separates; a fence is one block, blank lines and all).
``docs/learner/i18n/<lang>/<page>.po`` translates each block, keyed by its
English (``grader.authoring.po_files``), and the release writes
``docs/learner/<lang>/<page>.md`` from the page and that catalog, as it
writes the notebooks (``grader.authoring.release``): a block whose English
changed is named, stale, and refused unless ``--allow-stale``. A MyST
directive of the lab's (```` ```{agstate-tour} ````) is no prose: it is
kept, told the page's language (``:lang: es``), and renders in it.
"""

import re
from pathlib import Path

from grader.authoring.po_files import Lookup, Problem, Segment, merge
from grader.authoring.stubs import ROOT
from grader.authoring.translations import TARGETS

__all__ = ["PAGES", "blocks", "catalog_path", "translated_page", "translated_pages", "update"]

PAGES = ("getting-started", "parts", "checking")  # docs/learner/<page>.md
_DIRECTIVE = re.compile(r"^```\{(agstate-[\w-]+)\}")


def blocks(text: str) -> list[tuple[str, str]]:
    """``text`` as (block, what follows it up to the next block) pairs, in order: joined again they are ``text``."""
    spans, offset, fence, before = [], 0, False, False  # [start, end] of each run of lines not blank outside a fence
    for line in text.splitlines(keepends=True):
        stripped = line.strip()
        content = fence or bool(stripped)
        if stripped.startswith("```"):
            fence = not fence
        if content and not before:
            spans.append([offset, offset])
        if content:
            spans[-1][1] = offset + len(line.rstrip("\n"))
        before, offset = content, offset + len(line)
    return [(text[start:end], text[end:spans[index + 1][0] if index + 1 < len(spans) else len(text)])
            for index, (start, end) in enumerate(spans)]


def _segments(text: str) -> list[Segment]:
    return [Segment(number, "block", block) for number, (block, _) in enumerate(blocks(text), 1)
            if re.search(r"[^\W\d_]", block) and not _DIRECTIVE.match(block)]


def catalog_path(lang: str, page: str, root: Path = ROOT) -> Path:
    return root / "docs" / "learner" / "i18n" / lang / f"{page}.po"


def _title(lang: str, page: str) -> str:
    return (f"Page {page}, in {lang}: the release writes docs/learner/{lang}/{page}.md from docs/learner/{page}.md\n"
            "and this catalog (grader/authoring/translated_docs.py).")


def translated_page(page: str, lang: str, root: Path = ROOT) -> tuple[str, list[Problem]]:
    """The page in ``lang``, and the blocks left in English for want of a current translation."""
    text = (root / "docs" / "learner" / f"{page}.md").read_text(encoding="utf-8")
    said = Lookup(catalog_path(lang, page, root), lang, f"{page}.md", _segments(text))
    out = [f"<!-- Generated from docs/learner/{page}.md and docs/learner/i18n/{lang}/{page}.po by python -m "
           "grader.authoring.release: edit those, not this page. -->\n\n"]
    for number, (block, separator) in enumerate(blocks(text), 1):
        if (directive := _DIRECTIVE.match(block)) is not None:
            block = block.replace(directive.group(0), f"{directive.group(0)}\n:lang: {lang}", 1)
        elif re.search(r"[^\W\d_]", block):
            block = said(Segment(number, "block", block))
        out.append(block + separator)
    return "".join(out), said.missing


def translated_pages(root: Path = ROOT, langs=TARGETS) -> tuple[dict[str, str], list[Problem]]:
    """``docs/learner/<lang>/<page>.md``, relative path -> text, and the blocks left in English."""
    files, missing = {}, []
    for page in PAGES:
        for lang in langs:
            files[f"docs/learner/{lang}/{page}.md"], left = translated_page(page, lang, root)
            missing += left
    return files, missing


def update(root: Path = ROOT, langs=TARGETS) -> list[Path]:
    """Merge every page's blocks into its catalog of each language; the catalogs written."""
    written = []
    for page in PAGES:
        found = _segments((root / "docs" / "learner" / f"{page}.md").read_text(encoding="utf-8"))
        for lang in langs:
            if merge(catalog_path(lang, page, root), lang, _title(lang, page), found):
                written.append(catalog_path(lang, page, root))
    return written
