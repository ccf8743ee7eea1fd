"""What a check request may carry: the Python files of a student's ``agstate/`` package, and nothing else.

Every name is checked before a byte is written: a relative path of Python
identifiers ending in ``.py`` (``state.py``, ``helpers/text.py``), no ``..``,
no absolute path, no link (the folder is made here, file by file); the
whole is bounded in files and bytes. A refusal names the file and the rule,
for the student's ``check()`` to show.
"""

import hashlib
import json
import os
from pathlib import Path

__all__ = ["MAX_FILES", "MAX_BYTES", "UploadError", "parse_upload", "write_package", "digest"]

MAX_FILES = 64
MAX_BYTES = 1_000_000  # the lab's whole agstate/ is about 120 kB
_MAX_DEPTH = 3


class UploadError(ValueError):
    """A request the service refuses, with the reason a student can act on."""


def parse_upload(body: bytes) -> tuple[dict[str, str], str | None]:
    """The files (relative path -> text) and the target (a task id, a part, or None for everything) of a request."""
    if len(body) > MAX_BYTES + 10_000:
        raise UploadError(f"the request holds {len(body):,} bytes; the service takes at most {MAX_BYTES:,} of files")
    try:
        request = json.loads(body)
    except (ValueError, UnicodeDecodeError) as error:
        raise UploadError(f"the request is not JSON: {error}") from None
    if not isinstance(request, dict) or not isinstance(request.get("files"), dict):
        raise UploadError('the request must be a JSON object with "files": {"state.py": "<text>", ...}')
    target = request.get("target")
    if target is not None and not isinstance(target, str):
        raise UploadError('"target" must be a task id, a part, or null')
    files = request["files"]
    if len(files) > MAX_FILES:
        raise UploadError(f"the package holds {len(files)} files; the service takes at most {MAX_FILES}")
    total = 0
    for name, text in files.items():
        _check_name(name)
        if not isinstance(text, str):
            raise UploadError(f"{name}: the file's content must be text")
        total += len(text.encode("utf-8", "surrogatepass"))
    if total > MAX_BYTES:
        raise UploadError(f"the package's files hold {total:,} bytes; the service takes at most {MAX_BYTES:,}")
    return files, target


def _check_name(name) -> None:
    if not isinstance(name, str) or not name.endswith(".py"):
        raise UploadError(f"{name!r}: only the package's Python files are sent (a path ending in .py)")
    parts = name[:-3].split("/")
    if len(parts) > _MAX_DEPTH or not all(part.isidentifier() and part.isascii() for part in parts):
        raise UploadError(f"{name!r}: a file of the package is named by Python identifiers, at most "
                          f"{_MAX_DEPTH} deep (state.py, helpers/text.py)")


def write_package(files: dict[str, str], folder: Path) -> None:
    """Write ``files`` as ``folder/agstate/``: plain files only, made here (O_EXCL: nothing there is followed)."""
    package = folder / "agstate"
    for name, text in sorted(files.items()):
        path = package / name
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8", errors="surrogatepass") as file:
            file.write(text)


def digest(files: dict[str, str]) -> str:
    """A digest of the files as sent (names and texts), for the log: the same package, the same digest."""
    found = hashlib.sha256()
    for name, text in sorted(files.items()):
        found.update(name.encode() + b"\0" + text.encode("utf-8", "surrogatepass") + b"\0")
    return found.hexdigest()[:16]
