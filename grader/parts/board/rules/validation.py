"""Notebook 10_validation: the rules of board.models, board.reject and board.validate.

``parse_update`` and the models are judged on what they return or raise
(``board_parse`` and ``board_model_class`` reply with the result's dump or
the ``Raised``); the reducer's rejections through ``checks.expect_rejected``;
``validate_update`` against the reducer it must agree with and the model.
"""

from grader.engine.checking import Counterexample, Failure, Raised, no_raise
from grader.engine.registry import task
from grader.engine.showing import show
from grader.i18n import N_, _
from grader.parts.board.checks import agree, brief, each_defect, expect_reason_logged, expect_rejected, mentions, problems_of
from grader.parts.board.checks_parse import (
    expect_board_error,
    expect_new_object,
    expect_problems_listed,
    parse,
    require_parse,
    said,
)
from grader.parts.board.model import EMPTY, model_apply, model_problems, without_counts
from grader.parts.board.strategies import (
    EXTRA_DEFECTS,
    ID_DEFECTS,
    NOT_STRICT,
    TYPE_DEFECTS,
    UNIQUE_DEFECTS,
    UNVALIDATED_DEFECTS,
    any_updates,
    broken,
    currents,
    defects,
    garbage,
    ghost_ops,
    ghosts_and_unknown_types,
    instance_flags,
    invalid_updates,
    ops_without_board,
    valid_raw,
)

# -- board.models ----------------------------------------------------------------------------
models = task("board.models")


@models.rule(N_("parse_update turns a valid board or operation (a dict or a model) into a Board, MoveOp or RemoveOp with the same data"))
def parse_valid(check):
    require_parse(check)

    @check.forall(valid_raw, instance_flags)
    def typed(raw, as_instance):
        got = parse(check, raw, as_instance)
        parsed = got["parsed"]
        expected_type = {"move": "MoveOp", "remove": "RemoveOp"}.get(raw.get("type"), "Board")
        if isinstance(parsed, Raised):  # "failed", not no_raise's "error": the rule has always said so
            shown = _("a model of {update}").format(update=show(raw)) if as_instance else show(raw)
            raise Failure(_("parse_update({raw}) raised {type}: {message}; expected a {expected}: the update is valid").format(
                raw=shown, type=parsed.type, message=said(parsed), expected=expected_type),
                          Counterexample("parse_update", [raw], expected_type, f"raised {parsed.type}"))
        if expected_type == "Board":
            expected = model_apply(None, raw)[0]
            same = got["type"] == "Board" and without_counts(parsed) == without_counts(expected)
        else:
            expected = {"card_id": None, **raw}
            same = got["type"] == expected_type and parsed == expected
        if not same:
            raise Failure(_("parse_update({raw}) returned {type} {value}; expected a {expected} with the same data").format(
                raw=show(raw), type=got["type"], value=show(parsed), expected=expected_type),
                          Counterexample("parse_update", [raw], expected, parsed))
        if got["raw_changed"]:
            raise Failure(_("parse_update({raw}) changed its argument; validation never mutates the input").format(raw=show(raw)))


@models.rule(N_("wrong types are rejected, not coerced: \"3\" is not a priority (a BoardError)"))
def parse_types(check):
    @check.forall(defects(TYPE_DEFECTS))
    def strict_types(raw):
        expect_board_error(check, raw, _("a value of the wrong type is rejected, not coerced (strict=True)"))


@models.rule(N_("unknown fields are rejected (extra=\"forbid\")"))
def parse_extra(check):
    @check.forall(defects(EXTRA_DEFECTS))
    def no_extras(raw):
        expect_board_error(check, raw, _("a field the model does not declare is an error, not silently dropped"))


@models.rule(N_("ids are non-empty strings and required fields must be there"))
def parse_ids(check):
    @check.forall(defects(ID_DEFECTS))
    def ids(raw):
        expect_board_error(check, raw, _("ids are non-empty strings, and required fields are required"))


@models.rule(N_("the op's type discriminates: an unknown type is a BoardError naming it"))
def parse_unknown_type(check):
    @check.forall(defects(["unknown_type"]))
    def unknown(raw):
        raised = expect_board_error(check, raw, _("there is no operation {type}").format(type=repr(raw["type"])))
        message = said(raised)
        if repr(raw["type"]) not in message and (not raw["type"] or raw["type"] not in message):
            raise Failure(_("parse_update({raw}) raised BoardError({message}); the message must name the unknown type {type}")
                          .format(raw=show(raw), message=repr(message), type=repr(raw["type"])))


@models.rule(N_("anything else (None, a str, a list, a number, a dict with neither type nor columns) is a BoardError"))
def parse_garbage(check):
    @check.forall(garbage)
    def rejected(raw):
        expect_board_error(check, raw, _("an update is an operation (a dict with 'type') or a board (a dict with 'columns')"))


@models.rule(N_("the models themselves are strict, and Board() is the empty board"))
def models_strict(check):
    require_parse(check)
    empty = check.probe("board_model_class", "Board", {})
    if empty != EMPTY:
        shown = {"raised": empty.type} if isinstance(empty, Raised) else {"dump": empty}  # the words it always used
        raise Failure(_("Board.model_validate({empty_dict}) gave {got}; expected the empty board {empty}").format(
            empty_dict="{}", got=show(shown), empty=EMPTY))
    for name, data in NOT_STRICT:
        got = check.probe("board_model_class", name, data)
        if not isinstance(got, Raised):
            raise Failure(_("{model}.model_validate({data}) returned {got}; expected a ValidationError: the model itself must "
                            "be strict, not only parse_update").format(model=name, data=show(data), got=show(got)))


# A repeated column id and a repeated card id: two problems, two sentences.
TWO_PROBLEMS = {"columns": [{"column_id": "a", "title": "A", "cards": [{"card_id": "T-1", "title": "x", "priority": 1}]},
                            {"column_id": "a", "title": "B", "cards": [{"card_id": "T-1", "title": "y", "priority": 2}]}]}


@models.rule(N_("a board needs unique column ids and card ids unique across the board: a repeat is a BoardError"))
def parse_unique(check):
    @check.forall(defects(UNIQUE_DEFECTS), first=(TWO_PROBLEMS,))
    def unique_ids(raw):
        expect_board_error(check, raw, _("a column id or a card id used twice makes the board invalid"))


@models.rule(N_("a BoardError's problems is a list of one-line sentences, one per problem"))
def parse_problems(check):
    @check.forall(broken, first=(TWO_PROBLEMS,))
    def problems_listed(raw):
        expect_problems_listed(raw, expect_board_error(check, raw, _("the update is invalid")))


@models.rule(N_("a model instance is validated again: one built without validation (model_construct) is a BoardError"))
def parse_unvalidated(check):
    @check.forall(defects(UNVALIDATED_DEFECTS))
    def unvalidated(raw):
        expect_board_error(check, raw, _("a model can be built without validation, so validate an instance again "
                                         "(dump it, then validate the dump)"), as_instance="unvalidated")


@models.rule(N_("parse_update always returns a new object, never raw itself"))
def parse_new_object(check):
    @check.forall(valid_raw)
    def new_object(raw):
        expect_new_object(check, raw)


# -- board.reject ----------------------------------------------------------------------------------
reject = task("board.reject")

HOSTILE = ["huge string", "many columns", "deep list", "deep board", "cycle", "huge id"]  # made by board_hostile


@reject.rule(N_("an invalid update returns current itself (the same object), unchanged"))
def reject_identity(check):
    each_defect(check, lambda current, update: expect_rejected(check, current, update))

    @check.forall(invalid_updates)
    def invalid(case):
        expect_rejected(check, *case)


@reject.rule(N_("a card or column that is not there makes the operation invalid, and so does no board yet: None stays None"))
def reject_ghosts(check):
    @check.forall(ghost_ops())
    def ghosts(case):
        expect_rejected(check, *case)

    @check.forall(ops_without_board)
    def no_board(op):
        expect_rejected(check, None, op)


@reject.rule(N_("a rejected update logs a warning with the reason on the logger 'agstate.board'"))
def reject_logs(check):
    @check.forall(invalid_updates)
    def invalid(case):  # the same examples as the identity rule: their answers are known already
        expect_reason_logged(check, *case, expect_rejected(check, *case))

    @check.forall(ops_without_board)
    def no_board(op):  # an operation with no board yet is rejected too: None stays, and the log says why
        expect_reason_logged(check, None, op, expect_rejected(check, None, op))


@reject.rule(N_("the reducer never raises, whatever it is given: garbage, None current, huge or self-referencing payloads"))
def reject_never_raises(check):
    @check.forall(currents, garbage)
    def garbage_in(current, update):
        expect_rejected(check, current, update)

    for kind in HOSTILE:
        got = check.probe("board_hostile", {"columns": [{"column_id": "a", "title": "A", "cards": []}]}, kind, limit=5.0)
        got = no_raise(got, _("board_reducer(board, <{kind}>)").format(kind=kind), hint=_("a reducer never raises"),
                       example=Counterexample("board_reducer", ["board", kind], "current", None))
        if not got["is_current"] or got["current_changed"]:
            raise Failure(_("board_reducer(board, <{kind}>) returned a {type}; expected current itself, unchanged").format(
                kind=kind, type=got["type"]))


# -- board.validate ---------------------------------------------------------------------------------
validate = task("board.validate")


@validate.rule(N_("validate_update returns [] exactly when board_reducer accepts the update"))
def validate_agrees(check):
    each_defect(check, lambda current, update: agree(check, current, update))

    @check.forall(any_updates)
    def agrees(case):
        agree(check, *case)


# A card that is on the board, but not in the column the move names: random ghost ops never draw it, so every
# seed checks its sentence on this case first.
CARD_ELSEWHERE = ({"columns": [{"column_id": "todo", "title": "To do", "cards": [{"card_id": "T-1", "title": "a", "priority": 1}]},
                               {"column_id": "done", "title": "Done", "cards": []}]},
                  {"type": "move", "card_id": "T-1", "from_column": "done", "to_column": "todo"})


@validate.rule(N_("each problem is one readable sentence naming what is wrong: the column, the card, the operation type"))
def validate_sentences(check):
    @check.forall(ghosts_and_unknown_types, first=(CARD_ELSEWHERE,))
    def named(case):
        current, update = case
        problems = problems_of(check, current, update)
        if not problems or any(not p.strip() or "\n" in p for p in problems):
            raise Failure(_("validate_update({current}, {update}) returned {problems}; expected one non-empty, one-line "
                            "sentence per problem").format(current=brief(current), update=show(update), problems=show(problems)))
        for fact in model_problems(current, update):
            names = [str(value) for value in fact[1:] if value]
            if names and not any(all(mentions(p, name) for name in names) for p in problems):
                raise Failure(_("validate_update({current}, {update}) returned {problems}; expected a sentence naming "
                                "{names} ({problem})").format(current=brief(current), update=show(update),
                                                              problems=show(problems),
                                                              names=_(" and ").join(repr(n) for n in names), problem=_(fact[0])))
