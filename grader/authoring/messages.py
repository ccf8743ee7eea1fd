"""The grader's message catalogs: extracted from the code with Babel, merged into each language's ``.po``, compiled.

Every sentence ``grader.i18n`` translates is marked in the code (``_()``,
``ngettext``, ``N_()``). ``update`` extracts them all
(``grader/locale/agstate.pot``), merges them into
``grader/locale/<lang>/LC_MESSAGES/agstate.po`` (a changed sentence turns
``fuzzy``, its old translation kept; a new one comes empty) and compiles each
``.po`` to the ``.mo`` beside it, which is committed: the standard library
reads it, in a fresh clone as in a kit. ``problems`` is what a release may not
ship: a sentence untranslated or fuzzy, a ``{placeholder}`` or ``%`` format
of the English missing from or added to a translation (Babel's own checks
and the braces' set), a ``.mo`` that is not its ``.po`` compiled.

    python -m grader.authoring.messages status   # what is not complete, by language
    python -m grader.authoring.messages update   # extract, merge, compile (make translations)
"""

import argparse
import io
import string
import sys
from datetime import UTC, datetime
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import write_mo
from babel.messages.pofile import write_po

from grader.authoring import po_files
from grader.authoring.po_files import read_catalog
from grader.authoring.stubs import ROOT
from grader.i18n import DOMAIN, LANGUAGES

__all__ = ["TARGETS", "template", "po_path", "mo_bytes", "problems", "update", "main"]

TARGETS = tuple(lang for lang in LANGUAGES if lang != "en")
_FIXED_DATE = datetime(2026, 1, 1, tzinfo=UTC)  # no date in a catalog: an update that changes nothing writes nothing


def _locale(root: Path) -> Path:
    return root / "grader" / "locale"


def po_path(lang: str, root: Path = ROOT) -> Path:
    return _locale(root) / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def _catalog(lang: str | None) -> Catalog:
    return Catalog(locale=lang, domain=DOMAIN, project="agstate lab", version="1", copyright_holder="the agstate lab authors",
                   msgid_bugs_address="the lab's issue tracker", creation_date=_FIXED_DATE, revision_date=_FIXED_DATE,
                   last_translator="the agstate lab authors", language_team=f"agstate lab {lang}", fuzzy=False,
                   header_comment="# The grader's sentences (grader/i18n.py); make translations extracts, merges and compiles "
                                  "them\n# (grader/authoring/messages.py).")


def template(root: Path = ROOT) -> Catalog:
    """Every sentence marked where ``babel.cfg`` says (``grader/``), with where it is."""
    found = _catalog(None)
    with (root / "babel.cfg").open() as config:
        method_map, options_map = parse_mapping_cfg(config)
    for filename, line, message, comments, context in extract_from_dir(
            root, method_map, options_map, keywords=DEFAULT_KEYWORDS, comment_tags=("TRANSLATORS:",),
            directory_filter=_searched):
        found.add(message, locations=[(filename, line)], auto_comments=comments, context=context)
    return found


def _searched(path: str) -> bool:
    """Every folder but hidden ones and caches (Babel's default also skips ``_ext``, where the docs' tour is)."""
    name = Path(path).name
    return not name.startswith(".") and name not in ("__pycache__", ".venv", "node_modules")


def _read(path: Path, lang: str) -> Catalog:
    with path.open("rb") as handle:
        return read_catalog(handle, lang)


def mo_bytes(catalog: Catalog) -> bytes:
    """The ``.mo`` of a catalog: what ``gettext`` reads."""
    out = io.BytesIO()
    write_mo(out, catalog)
    return out.getvalue()


def _po_bytes(catalog: Catalog) -> bytes:
    catalog.revision_date = _FIXED_DATE
    out = io.BytesIO()
    write_po(out, catalog, width=120, include_previous=True, sort_by_file=True)
    return out.getvalue()


def _placeholders(text: str) -> list[str]:
    try:
        return sorted(field for _text, field, _spec, _conversion in string.Formatter().parse(text) if field is not None)
    except ValueError:
        return ["<unbalanced braces>"]


def problems(root: Path = ROOT, langs=TARGETS) -> list[str]:
    """What keeps each language's catalog from being complete and right, one sentence each."""
    found = []
    expected = {message.id for message in template(root) if message.id}
    for lang in langs:
        path = po_path(lang, root)
        if not path.exists():
            found.append(f"{lang}: no catalog {path.relative_to(root)}")
            continue
        catalog = _read(path, lang)
        where = f"{lang} ({path.relative_to(root)})"
        for msgid in sorted(expected - {message.id for message in catalog if message.id}, key=str):
            found.append(f"{where}: not merged yet: {msgid!r} (make translations)")
        for message in catalog:
            if not message.id:
                continue
            strings = message.string if isinstance(message.string, tuple) else (message.string,)
            ids = message.id if isinstance(message.id, tuple) else (message.id,)
            if message.fuzzy or not all(strings):
                found.append(f"{where}: {'fuzzy' if message.fuzzy else 'untranslated'}: {ids[0]!r}")
                continue
            for error in message.check(catalog):  # Babel's checks: % formats, plural forms
                found.append(f"{where}: {ids[0]!r}: {error}")
            for said in strings:  # a sentence, or each plural form: the English's placeholders, no other
                if _placeholders(said) != _placeholders(ids[-1]):
                    found.append(f"{where}: {ids[0]!r}: placeholders {_placeholders(ids[-1])} became {_placeholders(said)} "
                                 f"in {said!r}")
        mo = path.with_suffix(".mo")
        if not mo.exists() or mo.read_bytes() != mo_bytes(catalog):
            found.append(f"{where}: its .mo is not the .po compiled (make translations)")
    return found


def update(root: Path = ROOT, langs=TARGETS) -> list[Path]:
    """Extract, merge into every language's ``.po``, compile each ``.mo``; the files written."""
    written = []
    extracted = template(root)
    files = {_locale(root) / f"{DOMAIN}.pot": _po_bytes(extracted)}
    for lang in langs:
        path = po_path(lang, root)
        catalog = _read(path, lang) if path.exists() else _catalog(lang)
        po_files.update(catalog, extracted)
        files[path] = _po_bytes(catalog)
        files[path.with_suffix(".mo")] = mo_bytes(_read_bytes(files[path], lang))
    for path, content in files.items():
        if not path.exists() or path.read_bytes() != content:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content)
            written.append(path)
    return written


def _read_bytes(content: bytes, lang: str) -> Catalog:
    return read_catalog(io.BytesIO(content), lang)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m grader.authoring.messages", description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=("status", "update"))
    args = parser.parse_args(argv)
    if args.command == "update":
        for path in update():
            print(f"updated {path.relative_to(ROOT)}")
    found = problems()
    for problem in found:
        print(problem)
    print(f"{len(found)} problems in the grader's catalogs ({', '.join(TARGETS)})", file=sys.stderr)
    return 1 if found and args.command == "status" else 0


if __name__ == "__main__":
    sys.exit(main())
