"""What a check request may carry: the Python files of a student's ``agstate/`` package, and nothing else.

Every name is checked before a byte is written (``grader.package_files``,
the rules the student's ``check()`` keeps too): a relative path of Python
identifiers ending in ``.py``, no ``..``, no absolute path, no link (the
folder is made here, file by file); the whole is bounded in files and
bytes. A refusal names the file and the rule, for the student's ``check()``
to show, in the student's language (its log's, English).
"""

import hashlib
import json
import os
from pathlib import Path

from grader.i18n import LANGUAGES, N_, Sentence
from grader.package_files import MAX_BODY, MAX_BYTES, MAX_FILES, file_bytes, name_problem

__all__ = ["UploadError", "parse_upload", "write_package", "digest"]


class UploadError(ValueError):
    """A request the service refuses, with the reason a student can act on: ``sentence``, said in the student's language;
    ``str()``, its English, for the log."""

    def __init__(self, sentence: Sentence):
        super().__init__(str(sentence))
        self.sentence = sentence


def parse_upload(body: bytes) -> tuple[dict[str, bytes], str | None, str | None]:
    """The files (relative path -> bytes), the target (a task id, a part, or None for everything) and the student's
    language (one of ``grader.i18n.LANGUAGES``, or None: a kit older than the translations sends none) of a request."""
    if len(body) > MAX_BODY:
        raise UploadError(Sentence(N_("the request holds {size} bytes; the service takes at most {limit} of files"),
                                   {"size": f"{len(body):,}", "limit": f"{MAX_BYTES:,}"}))
    try:
        request = json.loads(body)
    except (ValueError, UnicodeDecodeError) as error:
        raise UploadError(Sentence(N_("the request is not JSON: {error}"), {"error": str(error)[:200]})) from None
    except RecursionError:  # "[[[[...": nested deeper than the parser goes
        raise UploadError(Sentence(N_("the request is not JSON the service reads: nested too deep"))) from None
    if not isinstance(request, dict) or not isinstance(request.get("files"), dict) or \
            not request.keys() <= {"files", "target", "lang"}:
        raise UploadError(Sentence(N_('the request must be a JSON object with "files": {example}, an optional "target" and '
                                      'an optional "lang", and nothing else'), {"example": '{"state.py": "<text>", ...}'}))
    target = request.get("target")
    if target is not None and (not isinstance(target, str) or len(target) > 200):
        raise UploadError(Sentence(N_('"target" must be a task id, a part, or null')))
    # It becomes the grading's AGSTATE_LANG (grader.warm.server): only a language the grader has, by its own name.
    lang = request.get("lang")
    if lang is not None and lang not in LANGUAGES:
        raise UploadError(Sentence(N_('"lang" must be one of {languages}, or null'), {"languages": ", ".join(LANGUAGES)}))
    sent = request["files"]
    if len(sent) > MAX_FILES:
        raise UploadError(Sentence(N_("the package holds {count} files; the service takes at most {limit}"),
                                   {"count": len(sent), "limit": MAX_FILES}))
    files = {}
    for name, text in sent.items():
        problem = name_problem(name)
        if problem is not None:
            raise UploadError(problem)
        try:
            files[name] = file_bytes(text)
        except (AttributeError, UnicodeEncodeError):  # not a string; a lone surrogate no file's bytes give
            raise UploadError(Sentence(N_("{name}: the file's content must be text, as check() reads it"), {"name": name})) from None
    total = sum(map(len, files.values()))
    if total > MAX_BYTES:
        raise UploadError(Sentence(N_("the package's files hold {size} bytes; the service takes at most {limit}"),
                                   {"size": f"{total:,}", "limit": f"{MAX_BYTES:,}"}))
    return files, target, lang


def write_package(files: dict[str, bytes], folder: Path) -> None:
    """Write ``files`` as ``folder/agstate/``: plain files only, made here (O_EXCL: nothing there is followed).
    The folder is made even for no file: an empty package is the student's to hear about, from the grader."""
    package = folder / "agstate"
    package.mkdir(parents=True, mode=0o700)
    for name, content in sorted(files.items()):
        path = package / name
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(descriptor, "wb") as file:
            file.write(content)


def digest(files: dict[str, bytes]) -> str:
    """A digest of the files as graded (names and bytes), for the log: the same package, the same digest."""
    found = hashlib.sha256()
    for name, content in sorted(files.items()):
        found.update(name.encode() + b"\0" + content + b"\0")
    return found.hexdigest()[:16]
