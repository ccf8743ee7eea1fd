"""Plain data across the process boundary: what the learner's child may send back.

The child encodes results into JSON with explicit tags; the grading process
decodes them into fresh builtins. Only exact builtin types survive the trip:
a list subclass, an object whose ``__eq__`` always answers True, or anything
else that merely pretends arrives as an ``Opaque`` that equals nothing.
Nothing from the child is ever unpickled.
"""

import json
import math
import reprlib

__all__ = ["Opaque", "encode", "decode", "dumps", "loads", "MAX_MESSAGE_BYTES"]

MAX_MESSAGE_BYTES = 64 * 1024 * 1024
_MAX_DEPTH = 60
_repr = reprlib.Repr()
_repr.maxstring = _repr.maxother = 80
_repr.maxlist = _repr.maxdict = 8


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


def _describe(value) -> tuple[str, str]:
    cls = type(value)
    name = f"{cls.__module__}.{cls.__qualname__}" if cls.__module__ != "builtins" else cls.__qualname__
    try:
        text = _repr.repr(value)
    except BaseException:  # a hostile __repr__ must not break the encoder
        text = f"<{name} object>"
    return name, f"{text} (a {name})"


def encode(value, depth: int = 0):
    """Turn ``value`` into JSON-ready data, tagging everything that is not exact JSON."""
    if depth > _MAX_DEPTH:
        return {"$": "opaque", "type": "nested too deep", "text": "<nested too deep>"}
    kind = type(value)
    if value is None or kind in (str, bool, int):
        return value
    if kind is float:
        return value if math.isfinite(value) else {"$": "float", "text": repr(value)}
    if kind is list:
        return [encode(item, depth + 1) for item in value]
    if kind is tuple:
        return {"$": "tuple", "items": [encode(item, depth + 1) for item in value]}
    if kind is dict:
        return {"$": "dict", "items": [[encode(k, depth + 1), encode(v, depth + 1)] for k, v in value.items()]}
    if kind in (set, frozenset):
        return {"$": kind.__name__, "items": [encode(item, depth + 1) for item in value]}
    name, text = _describe(value)
    return {"$": "opaque", "type": name, "text": text}


def decode(data):
    """Rebuild plain Python values from ``encode``'s output."""
    if isinstance(data, list):
        return [decode(item) for item in data]
    if not isinstance(data, dict):
        return data
    tag = data.get("$")
    if tag == "tuple":
        return tuple(decode(item) for item in data["items"])
    if tag == "dict":
        return {_hashable(decode(k)): decode(v) for k, v in data["items"]}
    if tag == "set":
        return {_hashable(decode(item)) for item in data["items"]}
    if tag == "frozenset":
        return frozenset(_hashable(decode(item)) for item in data["items"])
    if tag == "float":
        return float(data["text"])
    if tag == "opaque":
        return Opaque(str(data.get("type")), str(data.get("text")))
    raise ValueError(f"unknown wire tag {tag!r}")


def _hashable(value):
    return Opaque("unhashable", repr(value)) if isinstance(value, (list, dict, set)) else value


def dumps(message) -> bytes:
    return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode()


def loads(raw: bytes):
    if len(raw) > MAX_MESSAGE_BYTES:
        raise ValueError(f"message of {len(raw)} bytes is larger than {MAX_MESSAGE_BYTES}")
    return json.loads(raw)
