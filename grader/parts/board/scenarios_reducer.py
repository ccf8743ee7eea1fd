"""Part B's reducer, called from the grading process: one call, a fold of calls, a payload the wire cannot carry.

Each step is ``board_reducer`` called through the call server, on boards the
learner's own ``Board`` built over there (``board_made``) and named here by
handle. What the rules read of a call is made here from what the learner's
code returned: the result's dump and kind (``board_dump``), whether it is
``current`` itself (the call's ``returned_an_argument``), whether an argument
changed (its dump before and after, or the call's ``args_after``), and the
warnings it logged on ``agstate.board``, each heard here as it is logged (a
log lent for the call, ``lend_log``). A fold is composed here, each step's
``current`` the object the step before returned. One call is two or three
round trips: the reducer's call and the dumps around it go in one batch.
"""

import copy

from grader.engine.handles import Callback, Handle, LearnerRaised, Raised
from grader.engine.remote import Remote, scenario
from grader.i18n import _

__all__ = ["board_reduce", "board_fold", "board_hostile"]

_LOG = "agstate.board"


def _dump(remote: Remote, outcome) -> dict:
    """A ``board_dump`` outcome of a batch: ``{"board", "type"}``; anything else is its process's fault."""
    dumped = remote.outcome(outcome)
    if not isinstance(dumped, dict) or not {"board", "type"} <= set(dumped):
        raise LearnerRaised.saying("ProtocolError", _("the process running your code answered a board's dump with something "
                                                      "else"))
    return dumped


def _made(remote: Remote, *requests):
    """What ``board_made`` (or ``board_payload``) made over there, in one round trip: a Handle each, or plain data."""
    return [remote.outcome(outcome) for outcome in remote.batch(list(requests))]


def _call(remote: Remote, current, update, shown: dict | None = None, dump_update: bool = True) -> tuple[dict, object, dict]:
    """``board_reducer(current, update)`` over there: the facts the rules read, the result itself and its dump.

    ``current`` and ``update``: Handles of the learner's objects, or plain data. ``shown``: ``current``'s dump, when it
    is known already (a fold's step before gave it). ``dump_update``: whether a held update's change is looked at.
    """
    heard = []

    def warned(message):
        heard.append(message if isinstance(message, str) else str(message))

    held_current, held_update = isinstance(current, Handle), isinstance(update, Handle) and dump_update
    dump_current, dump_held = [("board_dump", [current])] if held_current else [], [("board_dump", [update])] if held_update else []
    before = (dump_current if shown is None else []) + dump_held
    # The reducer's call and the dumps around it in one round trip; the log is lent for the call alone.
    outcomes = iter(remote.batch([*before, ("lend_log", [_LOG, Callback("agstate.board warning", warned)]),
                                  ("invoke", ["board_reducer", [current, update], {}]), ("take_back", []), *dump_current, *dump_held]))
    current_before = (_dump(remote, next(outcomes)) if shown is None else shown) if held_current else None
    update_before = _dump(remote, next(outcomes)) if held_update else None
    remote.outcome(next(outcomes))
    facts = remote.outcome(next(outcomes))
    remote.outcome(next(outcomes))
    current_after = _dump(remote, next(outcomes)) if held_current else None
    update_after = _dump(remote, next(outcomes)) if held_update else None
    if not isinstance(facts, dict) or not {"result", "args_after", "returned_an_argument"} <= set(facts) or \
            not isinstance(facts["returned_an_argument"], list) or len(facts["returned_an_argument"]) != 2:
        raise LearnerRaised.saying("ProtocolError", _("the process running your code answered a call with something else "
                                                      "than the call's result"))
    result = facts["result"]
    is_current, is_update = (same is True for same in facts["returned_an_argument"])
    if is_current and held_current:
        shown_result = current_after
    elif is_update and held_update:
        shown_result = update_after
    elif result is None:
        shown_result = {"board": None, "type": "None"}
    else:
        shown_result = _dump(remote, remote.batch([("board_dump", [result])])[0])
    after = facts["args_after"]
    # A plain current (a dict a wrong step returned) is compared with itself, as the reducer's own object always was;
    # a plain update with what was sent, as the call server saw it after the call.
    update_changed = update_before != update_after if held_update else \
        (after is not None and isinstance(after, list) and len(after) == 2 and after[1] != update)
    return {
        "result": shown_result["board"],
        "type": shown_result["type"],
        "is_current": is_current,
        "current_changed": held_current and current_before != current_after,
        "update_changed": update_changed,
        "warnings": heard,
    }, result, shown_result


@scenario
def board_reduce(remote: Remote, current, update, as_instance):
    """``board_reducer(current, update)``; ``current`` is board data or None, built into the learner's Board over there,
    and ``update`` too when ``as_instance`` (``"unvalidated"``: with ``model_construct``, which validates nothing)."""
    wanted = [("board_made", [current, True])] if current is not None else []
    if as_instance:
        wanted.append(("board_made", [update, as_instance]))
    made = _made(remote, *wanted) if wanted else []
    board = made.pop(0) if current is not None else None
    return _call(remote, board, made.pop(0) if as_instance else update)[0]


@scenario
def board_fold(remote: Remote, updates):
    """``board_reducer`` folded over ``updates`` from None, one record per step; a step that raised is its ``Raised``, and
    the last.

    Each step's ``current`` is the object the step before returned (a Handle over there), and its update the grader's:
    composed here, the learner's process sees one call of its reducer at a time.
    """
    steps, current, shown = [], None, None
    for update in updates:
        done = remote.attempt(lambda update=update, current=current, shown=shown: _call(remote, current, copy.deepcopy(update), shown))
        if isinstance(done, Raised):
            steps.append(done)  # the rules name this step: "at step 3, board_reducer(...) raised ..."
            break
        step, current, shown = done
        steps.append(step)
    return steps


@scenario
def board_hostile(remote: Remote, current, kind):
    """The reducer on a hostile payload (``board_payload``: made over there, huge or self-referencing): must return
    ``current`` itself, untouched, without raising."""
    board, payload = _made(remote, ("board_made", [current, True]), ("board_payload", [kind]))
    got, _result, _dumped = _call(remote, board, payload, dump_update=False)
    return {"is_current": got["is_current"], "current_changed": got["current_changed"], "warned": bool(got["warnings"]),
            "type": got["type"]}
