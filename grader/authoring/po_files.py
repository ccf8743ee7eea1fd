"""One translation file: a gettext catalog of a document's segments, keyed by their English text.

A document (a master notebook, a learner page) is cut into *segments*,
pieces a learner reads; its catalog in one language maps each segment's
English (``msgid``) to its translation, with where it is (``#: cell:7``)
and what kind it is (``#. markdown``). Keyed by the text, a changed
segment has no translation: ``Lookup`` says it, *stale* when the catalog
held a translation for that place (an older English, or an entry ``merge``
marked ``fuzzy``, or one like it: ``difflib``, as Babel matches), *untranslated*
when it is new. ``merge`` is Babel's ``Catalog.update``: a changed segment
turns ``fuzzy`` with its previous English (``#| msgid``) and old translation
kept, for a translator to correct and confirm (removing ``fuzzy``); an
obsolete one (``#~``) comes back when its English does. The files carry no
date, so a merge that changes nothing writes nothing.
"""

import difflib
import io
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, unescape, write_po

__all__ = ["Segment", "Problem", "Lookup", "load", "merge", "po_bytes", "read_catalog", "update"]

_FIXED_DATE = datetime(2026, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class Segment:
    """A piece a learner reads: ``cell`` its place (a notebook's cell from 1, a page's block from 1; 0: the header)."""

    cell: int
    kind: str  # "markdown", "comment", "header", "block"
    text: str

    @property
    def place(self) -> tuple[str, int | None]:
        """Where it is, as its catalog says it: ``#: cell:7``, ``#: header``."""
        return ("header", None) if self.kind == "header" else ("cell", self.cell)


@dataclass(frozen=True)
class Problem:
    """A segment with no current translation: ``state`` is "stale" (its English changed) or "untranslated" (new)."""

    lang: str
    source: str  # the learner's copy it belongs to: "03_dedupe.ipynb", "getting-started.md"
    segment: Segment
    state: str

    def __str__(self):
        where = "header" if self.segment.kind == "header" else \
            f"{'block' if self.segment.kind == 'block' else 'cell'} {self.segment.cell}"
        words = " ".join(self.segment.text.split())
        return f"{self.lang}/{self.source} {where} ({self.segment.kind}): {self.state}: {words[:70]}{'…' if len(words) > 70 else ''}"


def read_catalog(handle, lang: str) -> Catalog:
    """Babel's ``read_po``, with the previous English of a fuzzy entry read back from its ``#|`` lines.

    Babel writes them but reads them as translator comments (``| msgid ...``), which the next write
    wraps into comments of their own: the previous English is taken back from them here (a fuzzy
    entry's ``previous_id``), and they are dropped from every entry.
    """
    catalog = read_po(handle, locale=lang)
    for message in [*catalog, *catalog.obsolete.values()]:
        previous = [comment[1:].strip() for comment in message.user_comments if comment.startswith("|")]
        if not previous:
            continue
        message.user_comments = [comment for comment in message.user_comments if not comment.startswith("|")]
        text = " ".join(previous)
        if message.fuzzy and text.startswith("msgid "):
            message.previous_id = ["".join(unescape(f'"{part}"') for part in _PO_STRING.findall(text))]
    return catalog


_PO_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')  # a quoted PO string, escapes and all


def load(path: Path, lang: str, title: str) -> Catalog:
    """The catalog at ``path``, or an empty one: ``title``'s first line names it, all of it is its header comment."""
    if path.exists():
        with path.open("rb") as handle:
            return read_catalog(handle, lang)
    return Catalog(locale=lang, project=f"agstate lab, {title.splitlines()[0].split(',')[0].lower()}", version="1",
                   copyright_holder="the agstate lab authors", msgid_bugs_address="the lab's issue tracker",
                   creation_date=_FIXED_DATE, revision_date=_FIXED_DATE, last_translator="the agstate lab authors",
                   language_team=f"agstate lab {lang}", fuzzy=False,
                   header_comment="\n".join(f"# {line}" for line in title.splitlines()))


def po_bytes(catalog: Catalog) -> bytes:
    """The ``.po`` text of a catalog, dated as it always is."""
    catalog.revision_date = _FIXED_DATE
    out = io.BytesIO()
    write_po(out, catalog, width=0, include_previous=True, sort_output=False)
    return out.getvalue()


def update(catalog: Catalog, template: Catalog) -> None:
    """Babel's ``Catalog.update``, keeping two things it drops: the translation of an English that came back (from
    the obsolete entries), and the previous English of an entry still fuzzy (Babel gives it only as it turns so)."""
    for key, message in list(catalog.obsolete.items()):
        if template.get(message.id, message.context) is not None:
            catalog[message.id] = message
            del catalog.obsolete[key]
    previous = {(message.id, message.context): message.previous_id for message in catalog
                if message.id and message.fuzzy and message.previous_id}
    catalog.update(template, update_creation_date=False)
    for message in catalog:
        if message.fuzzy and not message.previous_id and (message.id, message.context) in previous:
            message.previous_id = previous[message.id, message.context]


def merge(path: Path, lang: str, title: str, segments: list[Segment]) -> bool:
    """Merge ``segments`` into the catalog at ``path`` (Babel's update); whether the file was written."""
    template = load(Path("/nonexistent"), "en", title)
    for segment in segments:
        message = template.get(segment.text) or template.add(segment.text, auto_comments=[segment.kind])
        message.locations = sorted({*message.locations, segment.place}, key=lambda place: place[1] or 0)
    catalog = load(path, lang, title)
    update(catalog, template)
    for message in catalog:  # place and kind as the document has them now
        if message.id and template.get(message.id) is not None:
            message.locations, message.auto_comments = template[message.id].locations, template[message.id].auto_comments
    text = po_bytes(catalog)
    if path.exists() and path.read_bytes() == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text)
    return True


class Lookup:
    """A document's translations in one language; a segment with none is said in English and recorded in ``missing``."""

    def __init__(self, path: Path, lang: str, source: str, segments: list[Segment]):
        self.catalog, self.lang, self.source = load(path, lang, source), lang, source
        self.current = {segment.text for segment in segments}
        self.missing: list[Problem] = []

    def __call__(self, segment: Segment) -> str:
        message = self.catalog.get(segment.text)
        if message is not None and message.string and not message.fuzzy:
            return message.string
        self.missing.append(Problem(self.lang, self.source, segment, self._state(segment, message)))
        return segment.text

    def _state(self, segment: Segment, message) -> str:
        """Stale when the catalog translates an English that is gone and was this one: at its place, or like it (cells
        inserted above move a changed one; Babel's merge matches the same way, by ``difflib``)."""
        if message is not None and message.fuzzy:
            return "stale"
        gone = [m for m in self.catalog if m.id and m.id not in self.current and m.string and segment.kind in m.auto_comments]
        older = any(segment.place in m.locations for m in gone) or \
            bool(difflib.get_close_matches(segment.text, [m.id for m in gone], n=1, cutoff=0.6))
        return "stale" if older else "untranslated"
