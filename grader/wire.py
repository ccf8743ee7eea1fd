"""Plain data across the process boundary: what the learner's child may send back.

The child encodes results into JSON with explicit tags; the grading process
decodes them into fresh builtins. Only exact builtin types survive the trip:
a list subclass, an object whose ``__eq__`` always answers True, or anything
else that merely pretends arrives as an ``Opaque`` that equals nothing.
Nothing from the child is ever unpickled.

One more type crosses: ``Raised``, what the learner's code raised, as facts.
A probe that lets the learner's code fail returns one (``Raised.of``) in
place of a value, and the grading side meets the same class wherever it sits
in a reply (a learner could build one by hand; that fakes only what raising
would do, so it gains nothing).

The grader's own sentences the learner's process says (a name the module
lacks, a handle it does not hold) cross as data too: made there in English,
their template (one of ``SAID``) and values ride along (``saying``), and the
grading side says them in the learner's language (``translated``). The learner's
process loads no catalog.
"""

import inspect
import json
import math
import os
import re
import reprlib
import traceback
from dataclasses import dataclass, field
from pathlib import Path

import orjson

__all__ = ["Opaque", "Raised", "encode", "decode", "describe", "dumps", "loads", "without_addresses", "MAX_MESSAGE_BYTES",
           "params_of", "signature_of", "SAID", "saying", "translated"]

MAX_MESSAGE_BYTES = 64 * 1024 * 1024
_MAX_DEPTH = 60
_repr = reprlib.Repr()
_repr.maxstring = _repr.maxother = 80
_repr.maxlist = _repr.maxdict = 8


def N_(message: str) -> str:
    """Mark a sentence for the catalogs, as ``grader.i18n.N_`` does: the learner's process imports this module, and
    no translation machinery."""
    return message


# The sentences the learner's process says of the grader's (a Missing's, a LookupError's), in English there.
NO_NAME = N_("agstate/{module}.py has no '{name}'")
NOT_A_NAME = N_("a name of agstate/{module}.py must be a string, not {name}")
NO_KEY = N_("{target} has no key '{key}'")
NO_HANDLE = N_("the grading side named handle {handle}, which this process does not hold")
SAID = frozenset({NO_NAME, NOT_A_NAME, NO_KEY, NO_HANDLE})


def saying(kind: type[BaseException], template: str, **values: str) -> BaseException:
    """A ``kind`` whose message is ``template`` (one of ``SAID``) filled with ``values``, in English; its ``said``, the
    template and values, for the grading side to say it in the learner's language (``translated``)."""
    exc = kind(template.format(**values))
    exc.said = {"template": template, "values": values}
    return exc


def translated(sent, english: str) -> str:
    """``english``, a sentence the learner's process said, in the learner's language, from ``sent`` (its template and
    values): ``english`` itself when ``sent`` is not one of ``SAID`` (the learner's process is the learner's code's
    to rewrite), or English is spoken."""
    if not isinstance(sent, dict) or sent.get("template") not in SAID or not isinstance(sent.get("values"), dict):
        return english
    # Said on the grading side, in the learner's language; imported here, so the learner's process loads no catalog.
    from grader.i18n import Sentence, language

    lang = language()
    if lang == "en":
        return english
    try:
        return Sentence(sent["template"], {str(name): str(value) for name, value in sent["values"].items()}).said_in(lang)
    except (KeyError, IndexError, ValueError):  # values that are not the template's
        return english


class Opaque:
    """A value the child could not send as plain data; it equals nothing."""

    __slots__ = ("type_name", "text")

    def __init__(self, type_name: str, text: str):
        self.type_name = type_name
        self.text = text

    def __eq__(self, other):
        return False

    __hash__ = object.__hash__

    def __repr__(self):
        return self.text


@dataclass(frozen=True)
class Raised:
    """The learner's code raised: its exception's type, class names, first line and the learner's own line.

    ``where``: ``{"file", "line", "code", "function"}`` of the innermost frame in the submission, or None.
    ``attrs``: attributes of the exception a rule asked for (``Raised.of(exc, root, attrs=[...])``).
    """

    type: str
    mro: tuple = ()
    message: str = ""
    where: dict | None = None
    attrs: dict = field(default_factory=dict)
    said: dict | None = field(default=None, compare=False)  # ``message``'s template and values, when it is the grader's

    @classmethod
    def of(cls, exc: BaseException, submission: Path | None = None, attrs=()) -> "Raised":
        """The facts of ``exc`` (in the learner's process); ``submission`` finds the learner's line."""
        try:
            message = str(exc)
        except BaseException:
            message = "<unprintable message>"
        # LangGraph appends "For troubleshooting, visit: <url>": the first line is the message.
        message = without_addresses(message.strip().split("\n")[0])[:500]
        where = None
        if isinstance(exc, SyntaxError) and exc.filename:
            message = str(exc.msg)
            where = {"file": _relative(exc.filename, submission), "line": exc.lineno, "code": (exc.text or "").strip()}
        elif submission is not None:
            root = str(Path(submission).resolve())
            for frame in reversed(traceback.extract_tb(exc.__traceback__)):
                if frame.filename and os.path.abspath(frame.filename).startswith(root):
                    where = {"file": _relative(frame.filename, submission), "line": frame.lineno,
                             "code": (frame.line or "").strip(), "function": frame.name}
                    break
        found = {}
        for name in attrs:
            try:
                found[name] = getattr(exc, name, "<missing>")
            except BaseException:
                found[name] = "<unreadable>"
        try:
            sent = vars(exc).get("said")  # a sentence of the grader's (``saying``)
        except BaseException:
            sent = None
        return cls(type(exc).__name__, tuple(c.__name__ for c in type(exc).__mro__), message, where, found,
                   sent if isinstance(sent, dict) else None)

    def is_a(self, name: str) -> bool:
        """Whether the exception is a ``name`` (its class or a base class is called so)."""
        return name in self.mro

    def said_message(self) -> str:
        """``message`` in the learner's language when it is a sentence of the grader's, else as raised."""
        return translated(self.said, self.message)

    def sentence(self) -> str:
        """``"KeyError: 'x' (at agstate/state.py, line 12: return d['x'])"``: the feedback's words for it."""
        message = self.said_message()
        text = f"{self.type}: {message}" if message else self.type
        if not self.where:
            return text
        # Said on the grading side, in the learner's language; imported here, so the learner's process, which
        # decodes and encodes with this module and never says a sentence, loads no catalog.
        from grader.i18n import _
        if self.where.get("code"):
            return _("{error} (at {file}, line {line}: {code})").format(
                error=text, file=self.where["file"], line=self.where["line"], code=self.where["code"])
        return _("{error} (at {file}, line {line})").format(error=text, file=self.where["file"], line=self.where["line"])

    def __str__(self) -> str:
        return self.sentence()

    def __repr__(self) -> str:  # shown inside feedback (a list of outcomes): short, in the learner's words
        message = self.said_message()
        return f"<raised {self.type}: {message}>" if message else f"<raised {self.type}>"

    def encode(self) -> dict:
        return {"$": "raised", "type": self.type, "mro": list(self.mro), "message": self.message,
                "where": self.where, "attrs": encode(self.attrs), **({"said": encode(self.said)} if self.said else {})}

    @classmethod
    def decode(cls, data: dict) -> "Raised":
        where = data.get("where")
        where = {str(k): v for k, v in where.items() if isinstance(v, (str, int)) or v is None} if isinstance(where, dict) else None
        attrs = decode(data.get("attrs") or {"$": "dict", "items": []})
        sent = decode(data["said"]) if "said" in data else None
        return cls(str(data.get("type")), tuple(str(n) for n in data.get("mro") or ()), str(data.get("message") or ""),
                   where, attrs if isinstance(attrs, dict) else {}, sent if isinstance(sent, dict) else None)


def _relative(filename: str, submission: Path | None) -> str:
    if submission is None:
        return filename
    try:
        return str(Path(filename).resolve().relative_to(Path(submission).resolve()))
    except ValueError:
        return filename


def _describe(value) -> tuple[str, str]:
    cls = type(value)
    name = f"{cls.__module__}.{cls.__qualname__}" if cls.__module__ != "builtins" else cls.__qualname__
    try:
        text = _repr.repr(value)
    except BaseException:  # a hostile __repr__ must not break the encoder
        text = f"<{name} object>"
    return name, f"{without_addresses(text)} (a {name})"


_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def without_addresses(text: str) -> str:
    """``text`` without memory addresses ("<Board object at 0x7f...>"): they differ on every run, a report may not."""
    return _ADDRESS.sub("", text)


def encode(value, depth: int = 0, keep=None):
    """Turn ``value`` into JSON-ready data, tagging everything that is not exact JSON.

    A dict whose keys are all strings, none of them ``"$"``, is a JSON object;
    any other dict, and every other value that is not JSON, a tagged object
    (its ``"$"`` names what it is).

    ``keep``: what becomes of a value that is not plain data. Without it, an
    ``opaque`` tag (its type and a short repr); with it, ``keep(value)``'s tag,
    or that opaque tag when it gives None. A call across the boundary keeps
    the learner's objects in the learner's process and sends a ``handle``
    tag (``grader.child.remote``); the grading side sends its own as
    ``handle`` and ``callback`` tags (``grader.engine.handles``).
    """
    if depth > _MAX_DEPTH:
        return {"$": "opaque", "type": "nested too deep", "text": "<nested too deep>"}
    kind = type(value)
    if value is None or kind in (str, bool, int):
        return value
    if kind is float:
        return value if math.isfinite(value) else {"$": "float", "text": repr(value)}
    if kind is list:
        return [encode(item, depth + 1, keep) for item in value]
    if kind is tuple:
        return {"$": "tuple", "items": [encode(item, depth + 1, keep) for item in value]}
    if kind is dict:
        if "$" not in value and all(type(key) is str for key in value):  # the usual dict: a JSON object as it is
            return {key: encode(item, depth + 1, keep) for key, item in value.items()}
        return {"$": "dict", "items": [[encode(k, depth + 1, keep), encode(v, depth + 1, keep)] for k, v in value.items()]}
    if kind in (set, frozenset):
        return {"$": kind.__name__, "items": [encode(item, depth + 1, keep) for item in value]}
    if kind is Raised:
        return value.encode()
    if keep is not None and (kept := keep(value)) is not None:
        return kept
    name, text = _describe(value)
    return {"$": "opaque", "type": name, "text": text}


def describe(value) -> dict:
    """``value``'s type and a short repr of it, as an ``opaque`` or a ``handle`` tag shows them."""
    name, text = _describe(value)
    return {"type": name, "text": text}


def decode(data, resolve=None):
    """Rebuild plain Python values from ``encode``'s output.

    ``resolve``: what a ``handle`` or ``callback`` tag becomes (``resolve(tag)``);
    without it, an ``Opaque`` that equals nothing.
    """
    if isinstance(data, list):
        return [decode(item, resolve) for item in data]
    if not isinstance(data, dict):
        return data
    tag = data.get("$")
    if tag is None:  # a dict whose keys are strings ("$" none of them)
        return {key: decode(item, resolve) for key, item in data.items()}
    if tag == "tuple":
        return tuple(decode(item, resolve) for item in data["items"])
    if tag == "dict":
        return {_hashable(decode(k, resolve)): decode(v, resolve) for k, v in data["items"]}
    if tag == "set":
        return {_hashable(decode(item, resolve)) for item in data["items"]}
    if tag == "frozenset":
        return frozenset(_hashable(decode(item, resolve)) for item in data["items"])
    if tag in ("handle", "callback"):
        return resolve(data) if resolve is not None else Opaque(str(data.get("type")), str(data.get("text")))
    if tag == "float":
        return float(data["text"])
    if tag == "raised":
        return Raised.decode(data)
    if tag == "opaque":
        return Opaque(str(data.get("type")), str(data.get("text")))
    raise ValueError(f"unknown wire tag {tag!r}")


def _hashable(value):
    return Opaque("unhashable", repr(value)) if isinstance(value, (list, dict, set)) else value


# A message orjson cannot write (an integer beyond 64 bits, which orjson would read back as a float; a string that is
# not valid UTF-8) is written by the json module, after this byte: no JSON text starts with it.
_BY_JSON = b"J"


def dumps(message) -> bytes:
    """``message`` as JSON bytes: orjson's (ten times as fast as json's on the grader's replies), or json's."""
    try:
        return orjson.dumps(message)
    except TypeError:
        # ensure_ascii: a lone surrogate is written as its \u escape, which json reads back as the same string.
        return _BY_JSON + json.dumps(message, separators=(",", ":")).encode()


def loads(raw: bytes):
    if len(raw) > MAX_MESSAGE_BYTES:
        raise ValueError(f"message of {len(raw)} bytes is larger than {MAX_MESSAGE_BYTES}")
    if raw[:1] == _BY_JSON:
        return json.loads(raw[1:])
    return orjson.loads(raw)


def params_of(function) -> list | None:
    """``function``'s parameters as data, ``[name, kind, has_default]`` (``inspect.Parameter.kind`` as an int), or None."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return None
    return [[p.name, int(p.kind), p.default is not p.empty] for p in signature.parameters.values()]


def signature_of(params) -> inspect.Signature | None:
    """The signature ``params_of`` describes (a default stands as None), or None when it describes none."""
    if not isinstance(params, list):
        return None
    try:
        return inspect.Signature([
            inspect.Parameter(name, inspect._ParameterKind(kind), **({"default": None} if has_default else {}))
            for name, kind, has_default in params])
    except (TypeError, ValueError):
        return None
