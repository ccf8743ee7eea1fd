"""Part B's judging helpers, shared by the rules of several tasks and notebooks.

The reducer is every task's subject: ``reduce`` calls it in the learner's
process, ``expect_board`` and ``expect_rejected`` judge an accepted and a
rejected update against the model (``parse_update`` is judged in
``checks_parse``), ``problems_of`` reads
``validate_update``'s list (``agree`` holds it to the reducer),
``expect_reason_logged`` a rejection's warning, and ``each_defect`` tries
every kind of defect on every seed. ``brief`` and ``reducer_text`` are how a board and a call
read in feedback. Each helper raises the ``Failure`` the learner reads.
"""

from grader.engine.checking import Counterexample, Failure, no_raise
from grader.engine.showing import show
from grader.i18n import _
from grader.parts.board.model import model_apply, model_problems
from grader.parts.board.strategies import one_of_each_defect

__all__ = ["brief", "reducer_text", "counterexample", "reduce", "expect_pure", "expect_board", "expect_rejected",
           "problems_of", "each_defect", "expect_reason_logged", "mentions", "agree"]


# -- how boards and calls read in feedback ------------------------------------------------------
def brief(board) -> str:
    """A board dump in one line: ``[backlog(2): T-1, T-2 | done(0): ]``; anything else as a short repr."""
    try:
        return "[" + " | ".join(f"{c['column_id']}({c['card_count']}): {', '.join(k['card_id'] for k in c['cards'])}"
                                for c in board["columns"]) + "]"
    except (TypeError, KeyError):
        return show(board)


def _stale_count(board) -> str | None:
    """Why a board whose cards are right is still wrong: a column's card_count (the ``(n)`` shown) is stale."""
    try:
        column = next(c for c in board["columns"] if c["card_count"] != len(c["cards"]))
    except (TypeError, KeyError, StopIteration):
        return None
    return _("column {column} has card_count {count} (the number in brackets) but holds {cards} card(s): card_count is "
             "derived from cards, so a new board must recompute it").format(
        column=repr(column["column_id"]), count=column["card_count"], cards=len(column["cards"]))


def reducer_text(current, update, as_instance=False) -> str:
    shown = _("a model of {update}").format(update=show(update)) if as_instance else show(update)
    return f"board_reducer({'None' if current is None else brief(current)}, {shown})"


def counterexample(current, update, expected, got) -> Counterexample:
    """A reducer call that breaks a rule."""
    return Counterexample("board_reducer", [current, update], expected, got)


# -- the reducer ----------------------------------------------------------------------------------
def reduce(check, current, update, as_instance=False) -> dict:
    """``board_reduce``'s reply: the result and what the call did; a reducer that raises fails the rule."""
    got = check.probe("board_reduce", current, update, as_instance)
    return no_raise(got, lambda: reducer_text(current, update, as_instance), hint=_("a reducer never raises"),
                    example=counterexample(current, update, "no exception", None))


def expect_pure(got, current, update, as_instance=False):
    if got["current_changed"]:
        raise Failure(_("{call} changed its argument current; build a new board (model_copy(deep=True)) instead").format(
            call=reducer_text(current, update, as_instance)), counterexample(current, update, "current unchanged", "current changed"))
    if got["update_changed"]:
        raise Failure(_("{call} changed its argument update; the reducer never mutates its arguments").format(
            call=reducer_text(current, update, as_instance)), counterexample(current, update, "update unchanged", "update changed"))


def expect_board(check, current, update, why: str, as_instance=False):
    """The reducer accepts ``update``: a new Board equal to the model's, arguments untouched."""
    expected = model_apply(current, update)[0]
    got = reduce(check, current, update, as_instance)
    accepted = got["type"] == "Board" and not got["is_current"] and got["result"] == expected
    if accepted and expected is not None:  # the common case, judged without writing any feedback
        expect_pure(got, current, update, as_instance)
        return got
    text = reducer_text(current, update, as_instance)
    if expected is None:
        if got["type"] != "None":
            raise Failure(_("{call} returned {got}; expected None ({why})").format(call=text, got=brief(got["result"]), why=why),
                          counterexample(current, update, None, got["result"]))
        return got
    if current is not None and got["is_current"] and not got["current_changed"]:
        logged = _(" (it logged {warning})").format(warning=show(got["warnings"][0])) if got["warnings"] else ""
        # Current itself is how the reducer says "rejected"; a reducer editing current in place and returning it
        # looks the same when the edit changes nothing (a card moved to the end of its own column): say both.
        raise Failure(_("{call} returned current itself (the same object), which means rejected{logged}; expected "
                        "{expected} ({why}): an accepted update returns a new board, model_copy(deep=True), even when "
                        "nothing moves").format(call=text, logged=logged, expected=brief(expected), why=why),
                      counterexample(current, update, expected, "current itself"))
    if got["type"] != "Board" or got["result"] != expected:
        kind = "" if got["type"] == "Board" else _(" (a {type}, not a Board)").format(type=got["type"])
        why = _stale_count(got["result"]) or why
        raise Failure(_("{call} returned {got}{kind}; expected {expected} ({why})").format(
            call=text, got=brief(got["result"]), kind=kind, expected=brief(expected), why=why),
                      counterexample(current, update, expected, got["result"]))
    if current is not None and got["is_current"]:
        raise Failure(_("{call} changed current and returned it; build a new board (model_copy(deep=True)) instead").format(call=text),
                      counterexample(current, update, "a new Board", "current itself, changed"))
    expect_pure(got, current, update, as_instance)
    return got


def expect_rejected(check, current, update, as_instance=False):
    """The reducer rejects ``update``: current itself, the same object, arguments untouched."""
    got = reduce(check, current, update, as_instance)
    if not got["is_current"]:
        same = _(" (an equal copy is not enough: return current itself)") if got["result"] == current else ""
        raise Failure(_("{call} returned {got}; expected current itself, the same object, because the update is "
                        "invalid{same}").format(call=reducer_text(current, update, as_instance), got=brief(got["result"]),
                                                same=same), counterexample(current, update, current, got["result"]))
    expect_pure(got, current, update, as_instance)
    return got


# -- validate_update -----------------------------------------------------------------------------
def problems_of(check, current, update) -> list:
    """validate_update's problems: a list of sentences (str), never an exception."""
    def text():
        return f"validate_update({brief(current)}, {show(update)})"

    got = no_raise(check.probe("board_validate", current, update, False), text, hint=_("it returns the problems instead"),
                   example=Counterexample("validate_update", [current, update], "a list", None))
    if type(got) is not list or any(type(item) is not str for item in got):
        raise Failure(_("{call} returned {got}; expected a list of sentences (str)").format(call=text(), got=show(got)))
    return got


def agree(check, current, update):
    """validate_update and board_reducer agree with each other and with the model."""
    problems = problems_of(check, current, update)
    got = reduce(check, current, update)
    accepted = not got["is_current"] or got["current_changed"]  # editing current in place is board.move's fault
    if not accepted and not model_problems(current, update) and model_apply(current, update)[0] == current:
        accepted = True  # a valid no-op returned as current itself: board.move judges that, not validate
    if (problems == []) != accepted:
        said = _("validate_update({current}, {update}) returned {problems} but board_reducer accepts that update; [] "
                 "exactly when the reducer accepts") if accepted else \
            _("validate_update({current}, {update}) returned {problems} but board_reducer rejects that update; [] "
              "exactly when the reducer accepts")
        raise Failure(said.format(current=brief(current), update=show(update), problems=show(problems)),
                      Counterexample("validate_update", [current, update], "[]" if accepted else "problems", problems))
    if (problems == []) != (not model_problems(current, update)):
        said = _("validate_update({current}, {update}) returned {problems}; expected []: the update is valid") if problems \
            else _("validate_update({current}, {update}) returned {problems}; expected the problems: the update is invalid")
        raise Failure(said.format(current=brief(current), update=show(update), problems=show(problems)),
                      Counterexample("validate_update", [current, update], [] if problems else "problems", problems))


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


def expect_reason_logged(check, current, update, got):
    """The rejection logged a warning that gives the reason: what the model finds wrong, or validate_update's sentences."""
    if not any(message.strip() for message in got["warnings"]):
        raise Failure(_("{call} rejected the update without a warning; log the reason with "
                        "logging.getLogger('agstate.board').warning(...)").format(call=reducer_text(current, update)))
    text = "\n".join(got["warnings"])
    named = [[str(value) for value in fact[1:] if value] for fact in model_problems(current, update)]
    if all(any(mentions(text, name) for name in names) for names in named if names):
        return
    problems = check.probe("board_validate", current, update, False)  # the learner's own reasons will do too
    if type(problems) is list and problems and all(type(p) is str and p.strip() and p in text for p in problems):
        return
    missing = next(names for names in named if names and not any(mentions(text, name) for name in names))
    raise Failure(_("{call} logged {warnings}; the warning must give the reason: name {names}, as validate_update's "
                    "sentences do").format(call=reducer_text(current, update), warnings=show(got["warnings"]),
                                           names=_(" or ").join(repr(name) for name in missing)),
                  counterexample(current, update, "a warning with the reason", got["warnings"]))


def mentions(sentence: str, name: str) -> bool:
    """The sentence names ``name``, as it is or as its repr shows it (escaped control characters)."""
    return name in sentence or repr(name)[1:-1] in sentence
