"""What a check request may carry: the Python files of a student's ``agstate/`` package, and nothing else.

Every name is checked before a byte is written (``grader.package_files``,
the rules the student's ``check()`` keeps too): a relative path of Python
identifiers ending in ``.py``, no ``..``, no absolute path, no link (the
folder is made here, file by file); the whole is bounded in files and
bytes. A refusal names the file and the rule, for the student's ``check()``
to show.
"""

import hashlib
import json
import os
from pathlib import Path

from grader.i18n import LANGUAGES
from grader.package_files import MAX_BODY, MAX_BYTES, MAX_FILES, file_bytes, name_problem

__all__ = ["UploadError", "parse_upload", "write_package", "digest"]


class UploadError(ValueError):
    """A request the service refuses, with the reason a student can act on."""


def parse_upload(body: bytes) -> tuple[dict[str, bytes], str | None, str | None]:
    """The files (relative path -> bytes), the target (a task id, a part, or None for everything) and the student's
    language (one of ``grader.i18n.LANGUAGES``, or None: a kit older than the translations sends none) of a request."""
    if len(body) > MAX_BODY:
        raise UploadError(f"the request holds {len(body):,} bytes; the service takes at most {MAX_BYTES:,} of files")
    try:
        request = json.loads(body)
    except (ValueError, UnicodeDecodeError) as error:
        raise UploadError(f"the request is not JSON: {str(error)[:200]}") from None
    except RecursionError:  # "[[[[...": nested deeper than the parser goes
        raise UploadError("the request is not JSON the service reads: nested too deep") from None
    if not isinstance(request, dict) or not isinstance(request.get("files"), dict) or \
            not request.keys() <= {"files", "target", "lang"}:
        raise UploadError('the request must be a JSON object with "files": {"state.py": "<text>", ...}, '
                          'an optional "target" and an optional "lang", and nothing else')
    target = request.get("target")
    if target is not None and (not isinstance(target, str) or len(target) > 200):
        raise UploadError('"target" must be a task id, a part, or null')
    # It becomes the grading's AGSTATE_LANG (grader.warm.server): only a language the grader has, by its own name.
    lang = request.get("lang")
    if lang is not None and lang not in LANGUAGES:
        raise UploadError(f'"lang" must be one of {", ".join(LANGUAGES)}, or null')
    sent = request["files"]
    if len(sent) > MAX_FILES:
        raise UploadError(f"the package holds {len(sent)} files; the service takes at most {MAX_FILES}")
    files = {}
    for name, text in sent.items():
        problem = name_problem(name)
        if problem is not None:
            raise UploadError(problem)
        try:
            files[name] = file_bytes(text)
        except (AttributeError, UnicodeEncodeError):  # not a string; a lone surrogate no file's bytes give
            raise UploadError(f"{name}: the file's content must be text, as check() reads it") from None
    total = sum(map(len, files.values()))
    if total > MAX_BYTES:
        raise UploadError(f"the package's files hold {total:,} bytes; the service takes at most {MAX_BYTES:,}")
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
