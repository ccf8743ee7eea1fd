"""Part B's judging of ``parse_update``: the typed result, the BoardError and its problems, a new object.

``parse`` asks the learner's process, ``require_parse`` stops a rule at the
stub; ``expect_board_error`` judges ``parse_update`` on a broken update
(``expect_problems_listed`` its ``problems``, ``expect_new_object`` a valid
one); ``said`` is all the learner's exception said.
"""

from grader.engine.checking import Counterexample, Failure, Raised
from grader.engine.showing import show
from grader.i18n import _, ngettext
from grader.parts.board.model import model_problems

__all__ = ["parse", "require_parse", "said", "expect_board_error", "expect_problems_listed", "expect_new_object"]


def parse(check, raw, as_instance=False) -> dict:
    """``board_parse``'s reply: ``parsed`` (the typed result's dump, or the ``Raised``), ``type``, ``raw_changed``."""
    return check.probe("board_parse", raw, as_instance)


def require_parse(check):
    """parse_update on a fixed valid op: the stub's NotImplementedError stops the rule here."""
    parse(check, {"type": "remove", "from_column": "todo"})


def said(raised: Raised) -> str:
    """All the learner's exception said, as ``str(exc)`` gives it (up to 500 characters).

    ``Raised.message`` is its first line only, and a BoardError built from
    pydantic's text names the unknown type further down. ``board_parse``
    sends the exception's ``args`` too: ``str(exc)`` is made of them, unless
    its class says otherwise (``KeyError`` quotes its key), and then the
    first line is all there is.
    """
    args = raised.attrs.get("args")
    if type(args) is not tuple:
        return raised.message
    text = str(args[0]) if len(args) == 1 else str(args) if args else ""
    return text[:500] if text.strip().split("\n")[0][:500] == raised.message else raised.message


def expect_board_error(check, raw, why: str, as_instance=False) -> Raised:
    """parse_update raises a BoardError (a ValueError) with a message on ``raw``; what it raised.

    ``as_instance="unvalidated"``: ``raw`` built into the learner's model with ``model_construct``.
    """
    require_parse(check)
    got = parse(check, raw, as_instance)
    raised = got["parsed"]
    shown = _("<a model built with model_construct from {raw}>").format(raw=show(raw)) if as_instance else show(raw)
    if not isinstance(raised, Raised):
        raise Failure(_("parse_update({raw}) returned {type} {value}; expected BoardError: {why}").format(
            raw=shown, type=got["type"], value=show(raised), why=why),
                      Counterexample("parse_update", [raw], "BoardError", raised))
    if not raised.is_a("BoardError") or not raised.is_a("ValueError"):
        raise Failure(_("parse_update({raw}) raised {type}; expected BoardError (a ValueError)").format(raw=shown, type=raised.type),
                      Counterexample("parse_update", [raw], "BoardError", f"raised {raised.type}"))
    if not said(raised).strip():
        raise Failure(_("parse_update({raw}) raised BoardError with no message; say what is wrong").format(raw=shown))
    return raised


def expect_problems_listed(raw, raised: Raised):
    """The BoardError ``parse_update`` raised on ``raw`` holds ``problems``: one one-line sentence per problem."""
    problems = raised.attrs.get("problems")
    if type(problems) is not list or not problems or any(
            type(p) is not str or not p.strip() or "\n" in p for p in problems):
        raise Failure(_("parse_update({raw}) raised a BoardError whose problems is {problems}; expected a list of one-line "
                        "sentences (str), one per problem").format(raw=show(raw), problems=show(problems)),
                      Counterexample("parse_update", [raw], "problems: a list of sentences", problems))
    wanted = len(model_problems(None, raw))
    if len(problems) < wanted:
        raise Failure(ngettext("parse_update({raw}) raised a BoardError whose problems is {problems}; the update has "
                               "{count} problems: one sentence each",
                               "parse_update({raw}) raised a BoardError whose problems is {problems}; the update has "
                               "{count} problems: one sentence each", wanted).format(raw=show(raw), problems=show(problems),
                                                                                     count=wanted),
                      Counterexample("parse_update", [raw], f"{wanted} sentences", problems))


def expect_new_object(check, raw):
    """``parse_update`` on ``raw`` built into the learner's model returns a new object, not the model itself."""
    got = parse(check, raw, True)
    if not isinstance(got["parsed"], Raised) and got["is_raw"]:  # raising on a valid update is parse_valid's failure
        raise Failure(_("parse_update(a model of {raw}) returned the model itself; expected a new {type}: the reducer "
                        "stores what parse_update returns, and the caller keeps raw").format(raw=show(raw), type=got["type"]),
                      Counterexample("parse_update", [raw], "a new object", "raw itself"))
