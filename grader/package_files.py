"""What a check sends to the course's grading service: the Python files of ``agstate/``, named and sized alike on both sides.

The student's ``check()`` (``grader.notebook.remote_check``, in the course kit)
and the service (``grader.service.upload``) hold the same rules, from here:

- a file is named by a relative path of Python identifiers ending in
  ``.py``, at most ``MAX_DEPTH`` deep, each part at most ``MAX_PART``
  characters (``state.py``, ``helpers/text.py``). The client leaves at home
  what the service would refuse — JupyterLab's checkpoint copies
  (``.ipynb_checkpoints/state-checkpoint.py``), a ``state-Copy1.py`` —
  since none of them can be imported as part of the package, and one such
  file must not fail every check;
- at most ``MAX_FILES`` files and ``MAX_BYTES`` bytes of them: the client
  says so before sending, the service refuses more;
- a file's bytes that are not UTF-8 travel as lone surrogates
  (``surrogateescape``) and are written back as the same bytes, so the
  service grades the bytes on the student's disk, and its digest names them.

Only the standard library, and the grader's sentences (``grader.i18n``, itself only that): the course kit has no other.
"""

from pathlib import Path

from grader.i18n import N_, Sentence

__all__ = ["MAX_FILES", "MAX_BYTES", "MAX_DEPTH", "MAX_PART", "MAX_BODY", "name_problem", "file_bytes", "read_package"]

MAX_FILES = 64
MAX_BYTES = 1_000_000  # of files; the lab's whole agstate/ is about 120 kB
MAX_DEPTH = 3
MAX_PART = 100  # characters of one folder or file name: far below a file system's 255 bytes
# A request's body: the files as JSON strings, where one byte may take six ("\u001b") and a name or the
# envelope a little more; what is counted against MAX_BYTES is the files' own bytes (``file_bytes``).
MAX_BODY = 6 * MAX_BYTES + 64 * 1024
_ERRORS = "surrogateescape"


def name_problem(name) -> Sentence | None:
    """Why ``name`` is not the name of one of the package's files (None: it is), in a sentence a student can act on
    (said in their language; ``str()``: English)."""
    shown = repr(name) if len(repr(name)) <= 80 else repr(name)[:77] + "..."
    if not isinstance(name, str) or not name.endswith(".py"):
        return Sentence(N_("{name}: only the package's Python files are sent (a path ending in .py)"), {"name": shown})
    parts = name[:-3].split("/")
    if len(parts) > MAX_DEPTH or not all(part.isidentifier() and part.isascii() and len(part) <= MAX_PART
                                         for part in parts):
        return Sentence(N_("{name}: a file of the package is named by Python identifiers (at most {characters} characters "
                           "each), at most {depth} deep (state.py, helpers/text.py)"),
                        {"name": shown, "characters": MAX_PART, "depth": MAX_DEPTH})
    return None


def file_bytes(text: str) -> bytes:
    """A file's bytes from its text as sent; ``UnicodeEncodeError`` for a text no file's bytes give."""
    return text.encode("utf-8", _ERRORS)


def read_package(package: Path) -> dict[str, str]:
    """Each plain Python file of ``package`` the service takes, by its path there: links, caches and files named
    as no module can be (a checkpoint copy) stay home."""
    files = {}
    for path in sorted(package.rglob("*.py")):
        relative = path.relative_to(package).as_posix()
        if "__pycache__" in relative.split("/") or path.is_symlink() or not path.is_file() or name_problem(relative):
            continue
        files[relative] = path.read_bytes().decode("utf-8", _ERRORS)
    return files
