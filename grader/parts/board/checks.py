"""Part B's judging helpers, shared by the rules of several tasks and notebooks.

The reducer is every task's subject: ``reduce`` calls it in the learner's
process, ``expect_board`` and ``expect_rejected`` judge an accepted and a
rejected update against the model. ``expect_board_error`` judges
``parse_update`` on a broken update, ``problems_of`` reads
``validate_update``'s list, and ``each_defect`` tries every kind of defect
on every seed. ``brief`` and ``reducer_text`` are how a board and a call
read in feedback. Each helper raises the ``Failure`` the learner reads.
"""

from grader.checking import Counterexample, Failure, Raised, no_raise, show
from grader.parts.board.model import model_apply
from grader.parts.board.strategies import one_of_each_defect

__all__ = ["brief", "reducer_text", "counterexample", "reduce", "expect_pure", "expect_board", "expect_rejected",
           "parse", "require_parse", "said", "expect_board_error", "problems_of", "each_defect"]


# -- how boards and calls read in feedback ------------------------------------------------------
def brief(board) -> str:
    """A board dump in one line: ``[backlog(2): T-1, T-2 | done(0): ]``; anything else as a short repr."""
    try:
        return "[" + " | ".join(f"{c['column_id']}({c['card_count']}): {', '.join(k['card_id'] for k in c['cards'])}"
                                for c in board["columns"]) + "]"
    except (TypeError, KeyError):
        return show(board)


def reducer_text(current, update, as_instance=False) -> str:
    shown = f"{'a model of ' if as_instance else ''}{show(update)}"
    return f"board_reducer({'None' if current is None else brief(current)}, {shown})"


def counterexample(current, update, expected, got) -> Counterexample:
    """A reducer call that breaks a rule."""
    return Counterexample("board_reducer", [current, update], expected, got)


# -- the reducer ----------------------------------------------------------------------------------
def reduce(check, current, update, as_instance=False) -> dict:
    """``board_reduce``'s reply: the result and what the call did; a reducer that raises fails the rule."""
    got = check.probe("board_reduce", current, update, as_instance)
    return no_raise(got, reducer_text(current, update, as_instance), hint="a reducer never raises",
                    example=counterexample(current, update, "no exception", None))


def expect_pure(got, current, update, as_instance=False):
    text = reducer_text(current, update, as_instance)
    if got["current_changed"]:
        raise Failure(f"{text} changed its argument current; build a new board (model_copy(deep=True)) instead",
                      counterexample(current, update, "current unchanged", "current changed"))
    if got["update_changed"]:
        raise Failure(f"{text} changed its argument update; the reducer never mutates its arguments",
                      counterexample(current, update, "update unchanged", "update changed"))


def expect_board(check, current, update, why: str, as_instance=False):
    """The reducer accepts ``update``: a new Board equal to the model's, arguments untouched."""
    expected, _ = model_apply(current, update)
    got = reduce(check, current, update, as_instance)
    text = reducer_text(current, update, as_instance)
    if expected is None:
        if got["type"] != "None":
            raise Failure(f"{text} returned {brief(got['result'])}; expected None ({why})",
                          counterexample(current, update, None, got["result"]))
        return got
    if current is not None and got["is_current"] and not got["current_changed"]:
        logged = f" (it logged {show(got['warnings'][0])})" if got["warnings"] else ""
        raise Failure(f"{text} returned current itself, as if the update were invalid{logged}; expected "
                      f"{brief(expected)} ({why})", counterexample(current, update, expected, "current itself"))
    if got["type"] != "Board" or got["result"] != expected:
        kind = "" if got["type"] == "Board" else f" (a {got['type']}, not a Board)"
        raise Failure(f"{text} returned {brief(got['result'])}{kind}; expected {brief(expected)} ({why})",
                      counterexample(current, update, expected, got["result"]))
    if current is not None and got["is_current"]:
        raise Failure(f"{text} changed current and returned it; build a new board (model_copy(deep=True)) instead",
                      counterexample(current, update, "a new Board", "current itself, changed"))
    expect_pure(got, current, update, as_instance)
    return got


def expect_rejected(check, current, update, as_instance=False):
    """The reducer rejects ``update``: current itself, the same object, arguments untouched."""
    got = reduce(check, current, update, as_instance)
    text = reducer_text(current, update, as_instance)
    if not got["is_current"]:
        same = " (an equal copy is not enough: return current itself)" if got["result"] == current else ""
        raise Failure(f"{text} returned {brief(got['result'])}; expected current itself, the same object, "
                      f"because the update is invalid{same}", counterexample(current, update, current, got["result"]))
    expect_pure(got, current, update, as_instance)
    return got


# -- parse_update and validate_update ----------------------------------------------------------------
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


def expect_board_error(check, raw, why: str) -> Raised:
    """parse_update raises a BoardError (a ValueError) with a message on ``raw``; what it raised."""
    require_parse(check)
    got = parse(check, raw)
    raised = got["parsed"]
    if not isinstance(raised, Raised):
        raise Failure(f"parse_update({show(raw)}) returned {got['type']} {show(raised)}; expected BoardError: {why}",
                      Counterexample("parse_update", [raw], "BoardError", raised))
    if not raised.is_a("BoardError") or not raised.is_a("ValueError"):
        raise Failure(f"parse_update({show(raw)}) raised {raised.type}; expected BoardError (a ValueError)",
                      Counterexample("parse_update", [raw], "BoardError", f"raised {raised.type}"))
    if not said(raised).strip():
        raise Failure(f"parse_update({show(raw)}) raised BoardError with no message; say what is wrong")
    return raised


def problems_of(check, current, update) -> list:
    """validate_update's problems: a list of sentences (str), never an exception."""
    text = f"validate_update({brief(current)}, {show(update)})"
    got = no_raise(check.probe("board_validate", current, update, False), text, hint="it returns the problems instead",
                   example=Counterexample("validate_update", [current, update], "a list", None))
    if type(got) is not list or any(type(item) is not str for item in got):
        raise Failure(f"{text} returned {show(got)}; expected a list of sentences (str)")
    return got


# -- every kind of defect ----------------------------------------------------------------------------
def each_defect(check, test, examples: int = 3):
    """``test(board, update)`` on updates with each kind of defect: every kind is tried on every seed.

    One example holds one case of every kind, so a few examples cover them all.
    """
    def every_kind(cases):
        for case in cases:
            test(*case)

    every_kind.__name__ = f"every_defect_in_{test.__name__}"  # its own examples, drawn from its own seed
    check.forall(one_of_each_defect, examples=examples)(every_kind)
