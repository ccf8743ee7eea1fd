"""The grader's words in the learner's language: gettext catalogs, the language read at each call.

The language is ``AGSTATE_LANG`` when set, else the process's locale
(``LC_ALL``, ``LC_MESSAGES``, ``LANG``: the first one set, as POSIX reads
them), else English. ``_("...")`` translates a sentence, ``ngettext``
one whose words follow a number, and ``N_("...")`` only marks a sentence
kept in a constant, translated where it is shown (``_(CONSTANT)``): a
module's constants are made once, a language is read at every call.

The catalogs are ``grader/locale/<lang>/LC_MESSAGES/agstate.po``, made and
merged with Babel (``make translations``: extract, update, compile); the
compiled ``.mo`` beside each is committed, so a fresh clone, the wheels and
the course kit (staged by a Python with no Babel) read them with the
standard library's ``gettext``. ``tests/test_i18n.py`` holds every ``.mo``
to its ``.po``, and every catalog complete with its placeholders matching.
A sentence with ``{name}`` placeholders is translated first and formatted
after: ``_("next: {task}").format(task=...)``, so a catalog's sentence
may order them as its language needs.
"""

import gettext
import os
import re
import string
from functools import cache, lru_cache
from pathlib import Path
from typing import NamedTuple

__all__ = ["LANGUAGES", "LOCALES", "DOMAIN", "language", "translation", "_", "ngettext", "N_", "Sentence", "known", "source", "english"]

LOCALES = Path(__file__).resolve().parent / "locale"
DOMAIN = "agstate"
LANGUAGES = ("en", "es", "zh_CN", "ru")  # English is the source: it has no catalog
# How people write a language the lab has under another name (AGSTATE_LANG=zh, a zh_Hans locale).
_ALIASES = {"zh": "zh_CN", "zh_Hans": "zh_CN", "zh_SG": "zh_CN"}


def language() -> str:
    """The language the grader speaks now: one of ``LANGUAGES``."""
    for variable in ("AGSTATE_LANG", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(variable, "").strip()
        if value:
            return _known(value)
    return "en"


def _known(value: str) -> str:
    """``es_ES.UTF-8`` -> ``es``, ``zh-CN`` -> ``zh_CN``, ``C`` or a language the lab has not -> ``en``."""
    code = value.split(".", 1)[0].split("@", 1)[0].replace("-", "_")
    code = _ALIASES.get(code, code)
    if code in LANGUAGES:
        return code
    code = _ALIASES.get(code.split("_", 1)[0], code.split("_", 1)[0])
    return code if code in LANGUAGES else "en"


@cache
def translation(lang: str) -> gettext.NullTranslations:
    """The catalog of ``lang`` (English: none, every sentence as written)."""
    if lang == "en":
        return gettext.NullTranslations()
    return gettext.translation(DOMAIN, LOCALES, languages=[lang], fallback=True)


def _(message: str) -> str:
    """``message`` in the current language."""
    return translation(language()).gettext(message)


def ngettext(singular: str, plural: str, count: int) -> str:
    """The form of ``singular``/``plural`` that ``count`` takes in the current language (Russian has three)."""
    return translation(language()).ngettext(singular, plural, count)


def N_(message: str) -> str:
    """Mark ``message`` for the catalogs without translating it: a constant, translated where it is shown."""
    return message


class Sentence(NamedTuple):
    """A sentence said later, in a language chosen then (a server's answer, in each request's language): its English
    ``template`` (marked ``N_`` where it is written) and its placeholders' values, each a value or a ``Sentence``.
    ``str()`` is the English, for a log."""

    template: str
    fields: dict = {}

    def __str__(self) -> str:
        return self.said_in("en")

    def said_in(self, lang: str) -> str:
        text = translation(lang).gettext(self.template)
        if not self.fields:
            return text
        return text.format(**{name: value.said_in(lang) if isinstance(value, Sentence) else value
                              for name, value in self.fields.items()})


def known(value: str | None) -> str:
    """The lab's language named by ``value`` (``es-ES``, ``zh_CN.UTF-8``, an Accept-Language header's first tag), or
    English."""
    first = (value or "").split(",", 1)[0].split(";", 1)[0].strip()
    return _known(first) if first else "en"


def source(said: str) -> str:
    """The English sentence that ``said`` translates, in any of the lab's languages; ``said`` itself when it is
    English or no catalog has it. A report names a rule by its sentence in the language it was graded in: this is
    the rule's identity across languages (``grader.reports.class_summary`` groups a class's failures by it)."""
    return _sources().get(said, said)


@cache
def _sources() -> dict[str, str]:
    """Every catalog's translation -> its English (``_catalog``: the standard library's parsed ``.mo``; a plural
    entry, keyed by (msgid, form), names no rule and is left out)."""
    found: dict[str, str] = {}
    for lang in LANGUAGES:
        for msgid, said in getattr(translation(lang), "_catalog", {}).items():
            if isinstance(msgid, str) and msgid and said != msgid:
                found.setdefault(said, msgid)
    return found


@lru_cache(maxsize=8192)
def english(said: str) -> str:
    """``said``, a sentence of the grader's in any of the lab's languages, in English, its placeholders' values put
    back (each in English too, when it is a sentence of the grader's): ``source`` for a formatted sentence, as a
    feedback is. ``said`` itself when it is English or no catalog's sentence has its frame. The class report reads a
    mistake's shape in it, whatever language the student was graded in."""
    found = source(said)
    if found != said:
        return found
    for fragment, pattern, msgid in _frames():
        if fragment in said and (match := pattern.fullmatch(said)):
            try:
                return msgid.format(**{name: english(value) for name, value in match.groupdict().items()})
            except (KeyError, IndexError, ValueError):  # an English sentence that is not a template after all
                continue
    return said


@cache
def _frames() -> list[tuple[str, "re.Pattern[str]", str]]:
    """Every catalog's translation with placeholders, as a pattern whose groups are its placeholders' values, with its
    English and its longest literal piece (a quick test before the pattern): the longest frames first, so the most
    specific sentence is the one found. Frames of fewer than 2 letters around their placeholders are left out."""
    frames = []
    for lang in LANGUAGES:
        for msgid, said in getattr(translation(lang), "_catalog", {}).items():
            if not isinstance(msgid, str) or said == msgid or "{" not in msgid:
                continue
            try:
                parsed = list(string.Formatter().parse(said))  # {{ and }} read as the braces they print
            except ValueError:
                continue
            names = [name for _text, name, _spec, _conversion in parsed if name is not None]
            if not names or not all(name.isidentifier() and not spec and not conversion
                                    for _text, name, spec, conversion in parsed if name is not None):
                continue
            literals = [text for text, _name, _spec, _conversion in parsed]
            if sum(char.isalpha() for char in "".join(literals)) < 2:  # ": ", "（）": no frame to know a sentence by
                continue
            regex, seen = "", set()
            for text, name, _spec, _conversion in parsed:
                regex += re.escape(text)
                if name is not None:
                    regex += f"(?P={name})" if name in seen else f"(?P<{name}>.*?)"
                    seen.add(name)
            frames.append((len("".join(literals)), max(literals, key=len), re.compile(regex, re.DOTALL), msgid))
    frames.sort(key=lambda frame: -frame[0])
    return [(fragment, pattern, msgid) for _length, fragment, pattern, msgid in frames]
