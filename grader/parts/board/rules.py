"""Part B tasks: the rules of ``agstate/board.py``, one check per rule (LAB-SPEC §4)."""

from hypothesis import strategies as st

from grader.checking import Failure, Raised, show
from grader.parts.board.model import (
    DEFECTS,
    EMPTY,
    board_with_card,
    boards,
    card_ids,
    card_moves,
    column_moves,
    garbage,
    ghost_ops,
    invariant_problems,
    model_apply,
    model_problems,
    op_sequences,
    ops_on,
    removes,
    schema_defects,
)
from grader.tasks import task

TYPE_DEFECTS = ["priority_str", "priority_float", "priority_bool", "count_str", "columns_dict", "op_id_int"]
EXTRA_DEFECTS = ["card_extra", "column_extra", "board_extra", "op_extra"]
ID_DEFECTS = ["empty_card_id", "op_empty_id", "missing_title", "op_missing"]
HOSTILE = ["huge string", "many columns", "deep list", "deep board", "cycle", "huge id"]


# -- shared checks ------------------------------------------------------------------------
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


def counterexample(current, update, expected, got) -> dict:
    return {"call": "board_reducer", "args": [current, update], "expected": expected, "got": got}


def reduce(check, current, update, as_instance=False) -> dict:
    got = check.probe("board_reduce", current, update, as_instance)
    if isinstance(got, Raised):
        raise Failure(f"{reducer_text(current, update, as_instance)} raised {got.sentence()}; a reducer never raises",
                      counterexample(current, update, "no exception", f"raised {got.type}"), status="error")
    return got


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
    got = reduce(check, current, update, as_instance)
    text = reducer_text(current, update, as_instance)
    if not got["is_current"]:
        same = " (an equal copy is not enough: return current itself)" if got["result"] == current else ""
        raise Failure(f"{text} returned {brief(got['result'])}; expected current itself, the same object, "
                      f"because the update is invalid{same}", counterexample(current, update, current, got["result"]))
    expect_pure(got, current, update, as_instance)
    return got


def parse(check, raw, as_instance=False) -> dict:
    return check.probe("board_parse", raw, as_instance)


def require_parse(check):
    """parse_update on a fixed valid op: the stub's NotImplementedError stops the rule here."""
    parse(check, {"type": "remove", "from_column": "todo"})


def expect_board_error(check, raw, why: str):
    require_parse(check)
    got = parse(check, raw)
    if "raised" not in got:
        raise Failure(f"parse_update({show(raw)}) returned {got['type']} {show(got['dump'])}; expected BoardError: {why}",
                      {"call": "parse_update", "args": [raw], "expected": "BoardError", "got": got["dump"]})
    if "BoardError" not in got["mro"] or "ValueError" not in got["mro"]:
        raise Failure(f"parse_update({show(raw)}) raised {got['raised']}; expected BoardError (a ValueError)",
                      {"call": "parse_update", "args": [raw], "expected": "BoardError", "got": got["raised"]})
    if not got["message"].strip():
        raise Failure(f"parse_update({show(raw)}) raised BoardError with no message; say what is wrong")
    return got


def each_defect(check, test, examples: int = 3):
    """``test(board, update)`` on updates with each kind of defect: every kind is tried on every seed.

    One example holds one case of every kind, so a few examples cover them all.
    """
    def every_kind(cases):
        for case in cases:
            test(*case)

    every_kind.__name__ = f"every_defect_in_{test.__name__}"  # its own examples, drawn from its own seed
    one_each = st.tuples(*[board_with_card().flatmap(lambda board, k=kind: st.tuples(st.just(board),
                                                                                    schema_defects(board, [k])))
                           for kind in DEFECTS])
    check.forall(one_each, examples=examples)(every_kind)


def defects(kinds):
    return st.tuples(boards(min_columns=1), st.sampled_from(kinds)).flatmap(
        lambda pair: schema_defects(pair[0], [pair[1]]))


# -- board.models ----------------------------------------------------------------------------
models = task("board.models")


@models.rule("parse_update turns a valid board or operation (a dict or a model) into a Board, MoveOp or RemoveOp with the same data")
def parse_valid(check):
    require_parse(check)

    @check.forall(st.one_of(boards(), ops_on(None)), st.booleans())
    def typed(raw, as_instance):
        got = parse(check, raw, as_instance)
        expected_type = {"move": "MoveOp", "remove": "RemoveOp"}.get(raw.get("type"), "Board")
        if "raised" in got:
            raise Failure(f"parse_update({'a model of ' if as_instance else ''}{show(raw)}) raised {got['raised']}: "
                          f"{got['message']}; expected a {expected_type}: the update is valid",
                          {"call": "parse_update", "args": [raw], "expected": expected_type, "got": got["raised"]})
        if expected_type == "Board":
            expected = model_apply(None, raw)[0]
            same = got["type"] == "Board" and _without_counts(got["dump"]) == _without_counts(expected)
        else:
            expected = {"card_id": None, **raw}
            same = got["type"] == expected_type and got["dump"] == expected
        if not same:
            raise Failure(f"parse_update({show(raw)}) returned {got['type']} {show(got['dump'])}; expected a "
                          f"{expected_type} with the same data", {"call": "parse_update", "args": [raw],
                                                                    "expected": expected, "got": got["dump"]})
        if got["raw_changed"]:
            raise Failure(f"parse_update({show(raw)}) changed its argument; validation never mutates the input")


def _without_counts(board):
    try:
        return [{**column, "card_count": None} for column in board["columns"]]
    except (TypeError, KeyError):
        return board


@models.rule("wrong types are rejected, not coerced: \"3\" is not a priority (a BoardError)")
def parse_types(check):
    @check.forall(defects(TYPE_DEFECTS))
    def strict_types(raw):
        expect_board_error(check, raw, "a value of the wrong type is rejected, not coerced (strict=True)")


@models.rule("unknown fields are rejected (extra=\"forbid\")")
def parse_extra(check):
    @check.forall(defects(EXTRA_DEFECTS))
    def no_extras(raw):
        expect_board_error(check, raw, "a field the model does not declare is an error, not silently dropped")


@models.rule("ids are non-empty strings and required fields must be there")
def parse_ids(check):
    @check.forall(defects(ID_DEFECTS))
    def ids(raw):
        expect_board_error(check, raw, "ids are non-empty strings, and required fields are required")


@models.rule("the op's type discriminates: an unknown type is a BoardError naming it")
def parse_unknown_type(check):
    @check.forall(defects(["unknown_type"]))
    def unknown(raw):
        got = expect_board_error(check, raw, f"there is no operation {raw['type']!r}")
        if repr(raw["type"]) not in got["message"] and (not raw["type"] or raw["type"] not in got["message"]):
            raise Failure(f"parse_update({show(raw)}) raised BoardError({got['message']!r}); the message must name "
                          f"the unknown type {raw['type']!r}")


@models.rule("anything else (None, a str, a list, a number, a dict with neither type nor columns) is a BoardError")
def parse_garbage(check):
    @check.forall(garbage)
    def rejected(raw):
        expect_board_error(check, raw, "an update is an operation (a dict with 'type') or a board (a dict with 'columns')")


@models.rule("the models themselves are strict, and Board() is the empty board")
def models_strict(check):
    require_parse(check)
    empty = check.probe("board_model_class", "Board", {})
    if empty.get("dump") != EMPTY:
        raise Failure(f"Board.model_validate({{}}) gave {show(empty)}; expected the empty board {EMPTY}")
    cases = [("Card", {"card_id": "T-1", "title": "t", "priority": "3"}),
             ("Card", {"card_id": "", "title": "t", "priority": 3}),
             ("Column", {"column_id": "todo", "title": "To do", "wip": 3}),
             ("MoveOp", {"type": "move", "from_column": "a", "to_column": 2}),
             ("RemoveOp", {"type": "remove", "from_column": "a", "card_id": ""})]
    for name, data in cases:
        got = check.probe("board_model_class", name, data)
        if "raised" not in got:
            raise Failure(f"{name}.model_validate({show(data)}) returned {show(got['dump'])}; expected a "
                          "ValidationError: the model itself must be strict, not only parse_update")


# -- board.replace ------------------------------------------------------------------------------
replace = task("board.replace")


@replace.rule("a valid whole board replaces the board, whether current is None or a board")
def replace_valid(check):
    @check.forall(st.one_of(st.none(), board_with_card()), boards(claim_counts=False))
    def replaced(current, update):
        expect_board(check, current, update, "a valid board replaces the stored one")


@replace.rule("card_count is derived: recomputed from the cards, whatever the update claimed")
def replace_counts(check):
    @check.forall(st.one_of(st.none(), board_with_card()), board_with_card().map(_claim_wrong_counts))
    def recomputed(current, update):
        expect_board(check, current, update, "card_count == len(cards) in every column, whatever the writer claimed")


def _claim_wrong_counts(board):
    return {"columns": [{**column, "card_count": column["card_count"] + 3} for column in board["columns"]]}


@replace.rule("a Board model is accepted too, and the reducer never mutates it")
def replace_instance(check):
    @check.forall(st.one_of(st.none(), board_with_card()), board_with_card().map(_claim_wrong_counts))
    def from_model(current, update):
        expect_board(check, current, update, "a Board instance is a replacement too", as_instance=True)


# -- board.move ----------------------------------------------------------------------------------
move = task("board.move")


@move.rule("a card moves out of from_column to the end of to_column")
def move_card(check):
    @check.forall(card_moves(), st.booleans())
    def moved(case, as_instance):
        expect_board(check, *case, "the card leaves from_column and is appended to to_column", as_instance)


@move.rule("a move within one column puts the card at the end of that column, losing nothing")
def move_same_column(check):
    @check.forall(card_moves(same_column=True))
    def to_end(case):
        expect_board(check, *case, "same column: the card moves to its end, it is not lost or duplicated")


@move.rule("a move without card_id moves the column to the index to_column had; the others keep their order")
def move_column(check):
    @check.forall(column_moves())
    def reordered(case):
        expect_board(check, *case, "the column takes to_column's index")


@move.rule("an operation with no board yet (current is None) returns None")
def move_on_none(check):
    @check.forall(ops_on(None).filter(lambda op: op["type"] == "move"))
    def nothing(op):
        expect_board(check, None, op, "there is nothing to operate on")


# -- board.remove ----------------------------------------------------------------------------------
remove = task("board.remove")


@remove.rule("remove with card_id removes that card from from_column, and only it")
def remove_card(check):
    @check.forall(removes(), st.booleans())
    def removed(case, as_instance):
        expect_board(check, *case, "only that card is removed", as_instance)


@remove.rule("remove without card_id clears the column's cards; the column stays")
def remove_clear(check):
    @check.forall(removes(clear=True))
    def cleared(case):
        expect_board(check, *case, "the column stays, with no cards")


@remove.rule("a remove with no board yet (current is None) returns None")
def remove_on_none(check):
    @check.forall(ops_on(None).filter(lambda op: op["type"] == "remove"))
    def nothing(op):
        expect_board(check, None, op, "there is nothing to operate on")


# -- board.reject ----------------------------------------------------------------------------------
reject = task("board.reject")

invalid_updates = board_with_card().flatmap(lambda board: st.tuples(st.just(board), st.one_of(
    schema_defects(board), garbage, ghost_ops().map(lambda case: case[1]))))


@reject.rule("an invalid update returns current itself (the same object), unchanged")
def reject_identity(check):
    def rejected(current, update):
        expect_rejected(check, current, update)

    each_defect(check, rejected)

    @check.forall(invalid_updates)
    def invalid(case):
        expect_rejected(check, *case)


@reject.rule("a card or column that is not there makes the operation invalid")
def reject_ghosts(check):
    @check.forall(ghost_ops())
    def ghosts(case):
        expect_rejected(check, *case)


@reject.rule("a rejected update logs a warning with the reason on the logger 'agstate.board'")
def reject_logs(check):
    @check.forall(invalid_updates)
    def invalid(case):  # the same examples as the identity rule: their answers are known already
        got = expect_rejected(check, *case)
        if not any(message.strip() for message in got["warnings"]):
            raise Failure(f"{reducer_text(*case)} rejected the update without a warning; log the reason with "
                          "logging.getLogger('agstate.board').warning(...)")


@reject.rule("the reducer never raises, whatever it is given: garbage, None current, huge or self-referencing payloads")
def reject_never_raises(check):
    @check.forall(st.one_of(st.none(), board_with_card()), garbage)
    def garbage_in(current, update):
        expect_rejected(check, current, update)

    for kind in HOSTILE:
        got = check.probe("board_hostile", {"columns": [{"column_id": "a", "title": "A", "cards": []}]}, kind, limit=5.0)
        if isinstance(got, Raised):
            raise Failure(f"board_reducer(board, <{kind}>) raised {got.sentence()}; a reducer never raises",
                          {"call": "board_reducer", "args": ["board", kind], "expected": "current", "got": got.type},
                          status="error")
        if not got["is_current"] or got["current_changed"]:
            raise Failure(f"board_reducer(board, <{kind}>) returned a {got['type']}; expected current itself, unchanged")


# -- board.validate ---------------------------------------------------------------------------------
validate = task("board.validate")

any_updates = board_with_card().flatmap(lambda board: st.tuples(st.just(board), st.one_of(
    ops_on(board), boards(), schema_defects(board), garbage, ghost_ops().map(lambda case: case[1]))))


def problems_of(check, current, update) -> list:
    got = check.probe("board_validate", current, update, False)
    text = f"validate_update({brief(current)}, {show(update)})"
    if isinstance(got, Raised):
        raise Failure(f"{text} raised {got.sentence()}; it returns the problems instead",
                      {"call": "validate_update", "args": [current, update], "expected": "a list", "got": got.type},
                      status="error")
    if type(got) is not list or any(type(item) is not str for item in got):
        raise Failure(f"{text} returned {show(got)}; expected a list of sentences (str)")
    return got


@validate.rule("validate_update returns [] exactly when board_reducer accepts the update")
def validate_agrees(check):
    def agreed(current, update):
        agree(check, current, update)

    each_defect(check, agreed)

    @check.forall(any_updates)
    def agrees(case):
        agree(check, *case)


def agree(check, current, update):
    """validate_update and board_reducer agree with each other and with the model."""
    problems = problems_of(check, current, update)
    got = reduce(check, current, update)
    accepted = not got["is_current"] or got["current_changed"]  # editing current in place is board.move's fault
    if not accepted and not model_problems(current, update) and model_apply(current, update)[0] == current:
        accepted = True  # a valid no-op returned as current itself: board.move judges that, not validate
    if (problems == []) != accepted:
        verdict = "accepts" if accepted else "rejects"
        raise Failure(f"validate_update({brief(current)}, {show(update)}) returned {show(problems)} but "
                      f"board_reducer {verdict} that update; [] exactly when the reducer accepts",
                      {"call": "validate_update", "args": [current, update],
                       "expected": "[]" if accepted else "problems", "got": problems})
    if (problems == []) != (not model_problems(current, update)):
        raise Failure(f"validate_update({brief(current)}, {show(update)}) returned {show(problems)}; "
                      f"expected {'[]: the update is valid' if problems else 'the problems: the update is invalid'}",
                      {"call": "validate_update", "args": [current, update],
                       "expected": [] if problems else "problems", "got": problems})


# A card that is on the board, but not in the column the move names: random ghost ops never draw it, so every
# seed checks its sentence on this case first.
CARD_ELSEWHERE = ({"columns": [{"column_id": "todo", "title": "To do", "cards": [{"card_id": "T-1", "title": "a", "priority": 1}]},
                               {"column_id": "done", "title": "Done", "cards": []}]},
                  {"type": "move", "card_id": "T-1", "from_column": "done", "to_column": "todo"})


@validate.rule("each problem is one readable sentence naming what is wrong: the column, the card, the operation type")
def validate_sentences(check):
    @check.forall(st.one_of(ghost_ops(), board_with_card().flatmap(
        lambda board: st.tuples(st.just(board), schema_defects(board, ["unknown_type"])))), first=(CARD_ELSEWHERE,))
    def named(case):
        current, update = case
        problems = problems_of(check, current, update)
        if not problems or any(not p.strip() or "\n" in p for p in problems):
            raise Failure(f"validate_update({brief(current)}, {show(update)}) returned {show(problems)}; expected "
                          "one non-empty, one-line sentence per problem")
        for fact in model_problems(current, update):
            names = [str(value) for value in fact[1:] if value]
            if names and not any(all(_names(p, name) for name in names) for p in problems):
                raise Failure(f"validate_update({brief(current)}, {show(update)}) returned {show(problems)}; "
                              f"expected a sentence naming {' and '.join(repr(n) for n in names)} ({fact[0]})")


def _names(sentence: str, name: str) -> bool:
    """The sentence names ``name``, as it is or as its repr shows it (escaped control characters)."""
    return name in sentence or repr(name)[1:-1] in sentence


# -- board.sequence ---------------------------------------------------------------------------------
sequence = task("board.sequence")


# A fixed sequence tried before the random ones: every kind of update once, on a board with room for each.
TOUR = ({"columns": [
    {"column_id": "todo", "title": "To do", "card_count": 9, "cards": [
        {"card_id": "T-1", "title": "a", "priority": 1}, {"card_id": "T-2", "title": "b", "priority": 2},
        {"card_id": "T-3", "title": "c", "priority": 3}]},
    {"column_id": "doing", "title": "Doing", "cards": [{"card_id": "T-4", "title": "d", "priority": 4}]},
    {"column_id": "done", "title": "Done", "cards": []}]}, [
    {"type": "move", "card_id": "T-1", "from_column": "todo", "to_column": "doing"},
    {"type": "move", "card_id": "T-2", "from_column": "todo", "to_column": "todo"},
    {"type": "move", "from_column": "todo", "to_column": "done"},
    {"type": "remove", "card_id": "T-4", "from_column": "doing"},
    {"type": "teleport", "card_id": "T-1"},
    {"type": "remove", "card_id": "T-9", "from_column": "doing"},
    None,
    {"type": "move", "from_column": "done", "to_column": "doing"},
    {"type": "remove", "from_column": "todo"},
    {"columns": [{"column_id": "new", "title": "New", "card_count": 5, "cards": []}]},
])


def fold(check, updates) -> list:
    steps = check.probe("board_fold", updates)
    if isinstance(steps, Raised):
        raise Failure(f"folding board_reducer over {show(updates)} raised {steps.sentence()}; a reducer never raises",
                      {"call": "board_reducer", "args": updates, "expected": "no exception", "got": steps.type},
                      status="error")
    return steps


def walk(check, case):
    """Each step of the learner's fold beside the model's: (number, update, before, model result, accepted, got)."""
    start, updates = case
    updates = [start, *updates]
    steps, board = fold(check, updates), None
    for number, (update, got) in enumerate(zip(updates, steps), 1):
        expected, accepted = model_apply(board, update)
        yield number, update, board, expected, accepted, got
        board = expected


def _at(number, update, before) -> str:
    return f"at step {number}, board_reducer({brief(before) if before is not None else 'None'}, {show(update)})"


@sequence.rule("after every accepted update each column's card_count == len(cards) and every id is unique")
def sequence_invariants(check):
    @check.forall(op_sequences(), first=(TOUR,))
    def sequence(case):
        for number, update, before, _, accepted, got in walk(check, case):
            broken = invariant_problems(got["result"]) if accepted and got["type"] == "Board" else []
            if broken:
                raise Failure(f"{_at(number, update, before)} returned {brief(got['result'])}: {broken[0]}",
                              counterexample(before, update, "invariants hold", got["result"]))


@sequence.rule("cards are conserved: moves never lose or duplicate a card, only removes and replacements change the set")
def sequence_conservation(check):
    @check.forall(op_sequences(), first=(TOUR,))
    def sequence(case):
        for number, update, before, expected, _, got in walk(check, case):
            have = sorted(card_ids(got["result"])) if got["type"] == "Board" else None
            want = sorted(card_ids(expected)) if expected is not None else None
            if have != want:
                raise Failure(f"{_at(number, update, before)} left the cards {show(have)}; expected {show(want)}",
                              counterexample(before, update, want, have))


@sequence.rule("every step's result equals the model's: the fold of the updates in order")
def sequence_model(check):
    @check.forall(op_sequences(), first=(TOUR,))
    def sequence(case):
        for number, update, before, expected, _, got in walk(check, case):
            if got["result"] != expected or got["type"] != ("None" if expected is None else "Board"):
                raise Failure(f"{_at(number, update, before)} returned {brief(got['result'])}; expected {brief(expected)}",
                              counterexample(before, update, expected, got["result"]))


@sequence.rule("no step mutates current or the update")
def sequence_pure(check):
    @check.forall(op_sequences(), first=(TOUR,))
    def sequence(case):
        for number, update, before, _, _, got in walk(check, case):
            if got["current_changed"] or got["update_changed"]:
                which = "current" if got["current_changed"] else "the update"
                raise Failure(f"{_at(number, update, before)} changed {which}; a reducer never mutates its arguments",
                              counterexample(before, update, "arguments unchanged", f"{which} changed"))


@sequence.rule("every rejected step returns current itself (the same object)")
def sequence_identity(check):
    @check.forall(op_sequences(), first=(TOUR,))
    def sequence(case):
        for number, update, before, _, accepted, got in walk(check, case):
            if not accepted and not got["is_current"]:
                raise Failure(f"{_at(number, update, before)} returned {brief(got['result'])} for an invalid update; "
                              "expected current itself", counterexample(before, update, before, got["result"]))


# -- board.graph -------------------------------------------------------------------------------------
graph = task("board.graph")


def run_graph(check, board, has_board, as_instance, commands) -> dict:
    got = check.probe("board_graph", board, has_board, as_instance, commands)
    text = f"build_board_graph().invoke({_graph_input(board, has_board, commands)})"
    if isinstance(got, Raised):
        raise Failure(f"{text} raised {got.sentence()}",
                      {"call": "build_board_graph", "args": [board, commands], "expected": "a run", "got": got.type},
                      status="error")
    return got


def _graph_input(board, has_board, commands) -> str:
    return "{" + (f"'board': {show(board)}, " if has_board else "") + f"'commands': {show(commands)}" + "}"


def require_graph(check):
    """build_board_graph on no commands: the stub's NotImplementedError stops the rule here."""
    check.probe("board_graph", None, False, False, [])


# Two commands that each change a different column: replacements would keep only one of them.
TWO_MOVES = ({"columns": [{"column_id": "todo", "title": "To do", "cards": [
    {"card_id": "T-1", "title": "a", "priority": 1}, {"card_id": "T-2", "title": "b", "priority": 2}]},
    {"column_id": "done", "title": "Done", "cards": []}]},
    [{"type": "move", "card_id": "T-1", "from_column": "todo", "to_column": "done"},
     {"type": "remove", "card_id": "T-2", "from_column": "todo"}])


def learner_demo(check) -> dict:
    got = check.probe("board_demo")
    if isinstance(got, Raised):
        raise Failure(f"reading DEMO_BOARD and Board() raised {got.sentence()}", status="error")
    return got


@graph.rule("BoardState.board is typed Board with board_reducer: a garbage first write is rejected, not stored")
def graph_first_write(check):
    require_graph(check)

    @check.forall(garbage, examples=check.budget("payload"), first=("garbage",))
    def first_write(value):
        got = check.probe("board_first_write", value)
        if isinstance(got, Raised):
            raise Failure(f"a graph over BoardState whose first node writes {{'board': {show(value)}}} raised "
                          f"{got.sentence()}", status="error")
        if got["type"] != "Board" or got["board"] != EMPTY:
            raise Failure(f"a graph over BoardState whose first node writes {{'board': {show(value)}}} ended with "
                          f"board = {show(got['board'])}; expected Board() (the garbage rejected): with Board | None "
                          "LangGraph stores a first write without calling the reducer",
                          {"call": "graph", "args": [value], "expected": EMPTY, "got": got["board"]})


@graph.rule("DEMO_BOARD is a valid Board with cards, and Board() is the empty board")
def graph_demo(check):
    require_graph(check)
    got = learner_demo(check)
    if got["empty_type"] != "Board" or got["empty"] != EMPTY:
        raise Failure(f"Board() is {show(got['empty'])}; expected the empty board {EMPTY}")
    demo = got["demo"]
    if got["type"] != "Board" or model_problems(None, demo) or invariant_problems(demo) or not card_ids(demo):
        raise Failure(f"DEMO_BOARD is {brief(demo)}; expected a valid Board with cards, counts right, ids unique")


@graph.rule("the final board is the fold of board_reducer over the commands, in list order")
def graph_fold(check):
    @check.forall(op_sequences(min_steps=0, max_steps=5), st.booleans(), examples=check.budget("sequence"), first=(TWO_MOVES, False))
    def folded(case, as_instance):
        start, commands = case
        got = run_graph(check, start, True, as_instance, commands)
        if got["type"] != "Board" or got["board"] != got["own_fold"]:
            raise Failure(f"build_board_graph().invoke({_graph_input(start, True, commands)}) ended with board "
                          f"{brief(got['board'])}; expected {brief(got['own_fold'])}, your board_reducer folded over "
                          "the commands in list order: each command returns {'board': command}, not a whole board",
                          {"call": "build_board_graph", "args": [start, commands], "expected": got["own_fold"],
                           "got": got["board"]})


@graph.rule("rejected holds one reason per command that was invalid against the board the commands were issued on")
def graph_rejected(check):
    @check.forall(op_sequences(min_steps=0, max_steps=5), examples=check.budget("sequence"), first=(TWO_MOVES,))
    def reasons(case):
        start, commands = case
        got = run_graph(check, start, True, False, commands)
        rejected = got["rejected"] if got["rejected"] is not None else []
        if type(rejected) is not list or len(rejected) != got["own_invalid"] or any(
                type(r) is not str or not r.strip() for r in rejected):
            raise Failure(f"build_board_graph().invoke({_graph_input(start, True, commands)}) gave rejected = "
                          f"{show(rejected)}; expected {got['own_invalid']} reason(s), one per command your "
                          "board_reducer rejects on the board the commands were issued on",
                          {"call": "build_board_graph", "args": [start, commands], "expected": got["own_invalid"],
                           "got": rejected})


@graph.rule("an empty or garbage starting board becomes DEMO_BOARD; a starting board goes through the reducer")
def graph_start(check):
    @check.forall(st.one_of(st.just(EMPTY), garbage, board_with_card().map(_claim_wrong_counts)), st.booleans(),
                  st.lists(ops_on(None), max_size=3), examples=check.budget("sequence"))
    def started(board, has_board, commands):
        got = run_graph(check, board, has_board, False, commands)
        if got["type"] != "Board" or got["board"] != got["own_fold"]:
            raise Failure(f"build_board_graph().invoke({_graph_input(board, has_board, commands)}) ended with board "
                          f"{brief(got['board'])}; expected {brief(got['own_fold'])}: the input board goes through "
                          "board_reducer, and an empty board becomes DEMO_BOARD",
                          {"call": "build_board_graph", "args": [board, commands], "expected": got["own_fold"],
                           "got": got["board"]})
