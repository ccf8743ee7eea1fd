"""Mutants of part B: realistic buggy variants of ``solutions/agstate/board.py``.

Same shape as ``state_mutants``: each mutant is exact text edits of the
reference, and ``breaks`` is the set of part-B task ids the grader must fail
for it — exactly those; every other task keeps full marks. When one mistake
breaks several tasks (the reducer is shared by all of them), ``why`` says so.
"""

from support.corpus import Mutant
from support.corpus import mutant as _m

__all__ = ["MUTANTS", "EXAMPLES", "MIN_MUTANTS"]

MODELS, REPLACE, MOVE, REMOVE = "board.models", "board.replace", "board.move", "board.remove"
REJECT, VALIDATE, SEQUENCE, GRAPH = "board.reject", "board.validate", "board.sequence", "board.graph"

EXAMPLES = 30  # random examples per rule when the corpus is graded
MIN_MUTANTS = 15


DEEP_COPY = "return edit(current.model_copy(deep=True), update)"
REJECT_RETURN = '''    logger.warning("board update rejected: %s", "; ".join(problems))
    return current
'''
CARD_MOVE = '''    source.cards.remove(card)
    target.cards.append(card)  # after the removal: a move within one column goes to its end
'''

MUTANTS: list[Mutant] = [
    # -- mutation and identity ------------------------------------------------------------
    _m("mutates_current", {MOVE, REMOVE, SEQUENCE},
       [(DEEP_COPY, "return edit(current, update)")],
       "edits the stored board in place: every accepted op changes current (the sequence sees it too)"),
    _m("shallow_copy", {MOVE, REMOVE, SEQUENCE},
       [(DEEP_COPY, "return edit(current.model_copy(), update)")],
       "a shallow copy shares the columns' card lists, so a move or remove still edits current"),
    _m("equal_copy_on_reject", {REJECT, VALIDATE, SEQUENCE},
       [(REJECT_RETURN, '''    logger.warning("board update rejected: %s", "; ".join(problems))
    return current.model_copy(deep=True) if isinstance(current, Board) else current
''')],
       "returns an equal copy instead of current itself on reject; validate's rule reads acceptance from identity"),
    _m("raises_on_garbage", {REJECT, VALIDATE, SEQUENCE, GRAPH},
       [(REJECT_RETURN, '''    logger.warning("board update rejected: %s", "; ".join(problems))
    if not isinstance(update, dict):
        raise BoardError(problems)
    return current
''')],
       "raises BoardError for a non-dict update: the run stops (validate calls the reducer; a graph's first write of None)"),
    _m("no_warning", {REJECT},
       [(REJECT_RETURN, "    return current\n")],
       "rejects silently: the agent and the person never learn why"),

    # -- validation at the boundary ----------------------------------------------------------
    _m("coerces_priority", {MODELS, REJECT, VALIDATE},
       [('STRICT = ConfigDict(strict=True, extra="forbid")', 'STRICT = ConfigDict(extra="forbid")')],
       "lax models coerce \"3\" into 3 and 3.0 into 3: a model's sloppy output is accepted"),
    _m("accepts_extra_fields", {MODELS, REJECT, VALIDATE},
       [('STRICT = ConfigDict(strict=True, extra="forbid")', 'STRICT = ConfigDict(strict=True)')],
       "extra fields are silently dropped, so a hallucinated field passes"),
    _m("empty_ids", {MODELS, REJECT, VALIDATE},
       [("Id = Annotated[str, Field(min_length=1)]", "Id = str")],
       "ids may be empty strings"),
    _m("accepts_garbage", {MODELS, REJECT, VALIDATE, SEQUENCE},
       [('''    if isinstance(raw, (Board, MoveOp, RemoveOp)):
        raw = raw.model_dump(warnings=False)
    if not isinstance(raw, dict) or not ("type" in raw or "columns" in raw):''', '''    if isinstance(raw, (Board, MoveOp, RemoveOp)):
        raw = raw.model_dump(warnings=False)
    if not isinstance(raw, dict):
        return Board()
    if not ("type" in raw or "columns" in raw):''')],
       "treats a non-dict update (None, a str, a number) as the empty board: garbage wipes the board"),
    _m("duplicate_cards_allowed", {MODELS, REJECT, VALIDATE},
       [('''        problems += [f"card id {c!r} is used by more than one card"
                     for c in _duplicates([card.card_id for column in parsed.columns for card in column.cards])]
''', "")],
       "a replacement may hold the same card twice (parse_update returns it: its docs say a board needs unique card ids)"),
    _m("ghost_card_accepted", {REJECT, VALIDATE, SEQUENCE},
       [('''    if op.card_id is not None and source is not None and all(card.card_id != op.card_id for card in source.cards):
        problems.append(f"card {op.card_id!r} is not in column {op.from_column!r}")
''', "")],
       "does not check that the card is in from_column: a remove of a ghost card is accepted as a no-op copy"),
    _m("problems_joined", {MODELS},
       [("        self.problems = problems\n", '        self.problems = ["; ".join(problems)]\n')],
       "BoardError.problems holds one sentence of every problem joined, not one sentence each"),
    _m("duplicates_checked_in_validate_only", {MODELS},
       [('''    if isinstance(parsed, Board):
        problems = [f"column id {c!r} is used by more than one column"
                    for c in _duplicates([column.column_id for column in parsed.columns])]
        problems += [f"card id {c!r} is used by more than one card"
                     for c in _duplicates([card.card_id for column in parsed.columns for card in column.cards])]
        if problems:
            raise BoardError(problems)
    return parsed''', "    return parsed"),
        ('''    if isinstance(parsed, Board):
        return []
    return _op_problems(current, parsed)''', '''    if isinstance(parsed, Board):
        return ([f"column id {c!r} is used by more than one column"
                 for c in _duplicates([column.column_id for column in parsed.columns])]
                + [f"card id {c!r} is used by more than one card"
                   for c in _duplicates([card.card_id for column in parsed.columns for card in column.cards])])
    return _op_problems(current, parsed)''')],
       "repeated ids are caught by validate_update only: the reducer still rejects them, parse_update returns the board"),
    _m("trusts_instances", {MODELS},
       [('''    if isinstance(raw, (Board, MoveOp, RemoveOp)):
        raw = raw.model_dump(warnings=False)''', '''    if isinstance(raw, (Board, MoveOp, RemoveOp)):
        return raw.model_copy(deep=True)''')],
       "a model instance is taken as valid: one built with model_construct slips through unvalidated"),
    _m("returns_op_itself", {MODELS},
       [('''    if isinstance(raw, (Board, MoveOp, RemoveOp)):
        raw = raw.model_dump(warnings=False)''', '''    original = raw
    if isinstance(raw, (Board, MoveOp, RemoveOp)):
        raw = raw.model_dump(warnings=False)'''),
        ('''            raise BoardError(problems)
    return parsed''', '''            raise BoardError(problems)
    return original if isinstance(original, (MoveOp, RemoveOp)) else parsed''')],
       "a valid op instance is validated, then returned itself: the caller's object, not a new one"),
    _m("silent_without_board", {REJECT},
       [('''    try:
        problems = validate_update(current, update)''', '''    if current is None and isinstance(update, dict) and "type" in update:
        return None  # nothing to operate on: nothing to say
    try:
        problems = validate_update(current, update)''')],
       "an operation with no board yet returns None without a warning"),
    _m("warning_without_reason", {REJECT},
       [('''    logger.warning("board update rejected: %s", "; ".join(problems))''',
         '''    logger.warning("board update rejected")''')],
       "logs that an update was rejected, not why"),
    _m("vague_sentences", {VALIDATE},
       [('''        problems.append(f"card {op.card_id!r} is not in column {op.from_column!r}")''',
         '''        problems.append("the card is not there")''')],
       "a sentence that names neither the card nor the column does not help the agent retry"),

    # -- operations -------------------------------------------------------------------------------
    _m("forgets_card_count", {MOVE, REMOVE, SEQUENCE},
       [('''    target.cards.append(card)  # after the removal: a move within one column goes to its end
    return _replace(board)''', '''    target.cards.append(card)  # after the removal: a move within one column goes to its end
    return board'''),
        ('''    source.cards = [card for card in source.cards if op.card_id is not None and card.card_id != op.card_id]
    return _replace(board)''', '''    source.cards = [card for card in source.cards '''
         '''if op.card_id is not None and card.card_id != op.card_id]
    return board''')],
       "moves and removes leave card_count stale"),
    _m("replace_keeps_claimed_counts", {REPLACE, SEQUENCE},
       [('''        return _replace(update)''', '''        return update''')],
       "a replacement keeps the card_count the writer claimed"),
    _m("same_column_move_loses_card", {MOVE, SEQUENCE},
       [(CARD_MOVE, '''    remaining = [other for other in source.cards if other.card_id != op.card_id]
    target.cards.append(card)
    source.cards = remaining
''')],
       "filters the source first and assigns it last: within one column the appended card is overwritten and lost"),
    _m("column_reorder_off_by_one", {MOVE, SEQUENCE},
       [('''        index = board.columns.index(target)
        board.columns.remove(source)
        board.columns.insert(index, source)''', '''        board.columns.remove(source)
        index = board.columns.index(target)
        board.columns.insert(index, source)''')],
       "takes the target's index after removing the column: a move to the right lands one place short"),
    _m("remove_clears_on_card", {REMOVE, SEQUENCE},
       [('''    source.cards = [card for card in source.cards if op.card_id is not None and card.card_id != op.card_id]''',
         '''    source.cards = []''')],
       "a remove of one card clears the whole column"),
    _m("move_to_front", {MOVE, SEQUENCE},
       [(CARD_MOVE, '''    source.cards.remove(card)
    target.cards.insert(0, card)
''')],
       "puts the moved card at the top of the target column instead of its end"),

    # -- the graph ----------------------------------------------------------------------------------
    _m("first_write_bypass", {GRAPH},
       [("    board: Annotated[Board, board_reducer]\n", "    board: Annotated[Board | None, board_reducer]\n")],
       "Board | None: LangGraph stores the first write without calling the reducer, so garbage becomes the state"),
    _m("commands_replace_board", {GRAPH},
       [('''        return {"board": call["command"], "rejected": reasons}''',
         '''        board = board_reducer(call["board"], call["command"])
        return {"board": board, "rejected": reasons}''')],
       "each tool call returns the whole board it computed: parallel edits overwrite each other"),
    _m("one_call_for_all_commands", {GRAPH},
       [('''        return [Send("apply_command", {"command": command, "board": board, "number": number})
                for number, command in enumerate(state.get("commands") or [], 1)]''',
         '''        return [Send("apply_command", {"commands": state.get("commands") or [], "board": board})]'''),
        ('''        problems = validate_update(call["board"], call["command"])
        reasons = [f"command {call['number']} rejected: {'; '.join(problems)}"] if problems else []
        return {"board": call["command"], "rejected": reasons}''',
         '''        board, reasons = call["board"], []
        for number, command in enumerate(call["commands"], 1):
            problems = validate_update(call["board"], command)
            reasons += [f"command {number} rejected: {'; '.join(problems)}"] if problems else []
            board = board_reducer(board, command)
        return {"board": board, "rejected": reasons}''')],
       "one tool call folds every command and returns the whole board: the same end, but not one call per command"),
    _m("rejected_not_reported", {GRAPH},
       [('''        return {"board": call["command"], "rejected": reasons}''',
         '''        return {"board": call["command"]}''')],
       "the agent never sees why a command was rejected"),
    _m("setup_node_misnamed", {GRAPH},
       [('builder.add_node("build_board", build_board)', 'builder.add_node("setup", build_board)'),
        ('builder.add_edge(START, "build_board")', 'builder.add_edge(START, "setup")'),
        ('builder.add_conditional_edges("build_board", fan_out', 'builder.add_conditional_edges("setup", fan_out')],
       "the same graph with its first node named setup: the docstring's build_board is not there"),
]
