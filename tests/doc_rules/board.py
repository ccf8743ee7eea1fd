"""Part B's documented sentences (solutions/agstate/board.py) and the grader rule that checks each."""
from doc_rules import checked, explains

TABLE = {
    ('module', 'Part B — operations, not replacements: change a nested state with small typed operations.'):
        explains("the part's title: it names the lesson and promises no behaviour"),
    # also: 'derived' is the promise: every card_count is recomputed from the cards (sentence 7 checks it after
    #   operations too)
    ('module', "The agent's state is a kanban board: columns holding cards, and a derived card count per column."):
        checked('board.replace', 'card_count is derived: recomputed from the cards, whatever the update claimed'),
    ('module',
     ("Tools that return the whole board overwrite each other's edits; a model's malformed output can "
      'replace the board with garbage.')):
        explains('the motivation: the bug notebook 07 shows (whole-board writes, garbage output), not a behaviour of '
                 'this module'),
    # also: the reducer rejecting a bad update and keeping the state as it was
    ('module',
     ('Here every change is a small operation (``MoveOp``, ``RemoveOp``) or a whole board, validated at '
      'the boundary and applied by one reducer that rejects a bad update and keeps the state as it was.')):
        checked('board.reject', 'an invalid update returns current itself (the same object), unchanged'),
    ('module', 'Rules ``board_reducer`` follows:'):
        explains('a heading: each rule of the list below is its own entry'),
    # also: never mutating current or the update: board.sequence, 'no step mutates current or the update', and every
    #   expect_board / expect_rejected call
    ('module', '- it never raises, whatever ``update`` is, and never mutates ``current`` or ``update``;'):
        checked('board.reject',
                'the reducer never raises, whatever it is given: garbage, None current, huge or self-referencing '
                'payloads'),
    # also: 'returns current itself': board.reject, 'an invalid update returns current itself (the same object),
    #   unchanged'
    ('module',
     ('- an invalid update returns ``current`` itself (the same object) and logs a warning with the '
      'reason on the logger ``agstate.board``;')):
        checked('board.reject', "a rejected update logs a warning with the reason on the logger 'agstate.board'"),
    # also: 'a move never loses or duplicates a card': board.sequence, 'cards are conserved: ...'
    ('module',
     ("- after every accepted update each column's ``card_count == len(cards)``, and a move never loses "
      'or duplicates a card.')):
        checked('board.sequence',
                "after every accepted update each column's card_count == len(cards) and every id is unique"),
    ('module', 'Notebooks: 07_replacement_bug … 12_board_widget.'):
        explains('a pointer to the notebooks that teach this part'),
    ('module', 'Check with ``check("board")``.'):
        explains('how to run the grader on this part, not a behaviour of the module'),
    # also: board.models, 'the models themselves are strict, and Board() is the empty board', checks
    #   Board.model_validate({})
    ('Board', 'A kanban board; ``Board()`` is the empty board.'):
        checked('board.graph', 'DEMO_BOARD is a valid Board with cards, and Board() is the empty board'),
    # also: 'without a card, move the column itself': board.move, 'a move without card_id moves the column to the index
    #   to_column had; ...'
    ('MoveOp', 'Move card ``card_id`` to the end of ``to_column``; without a card, move the column itself.'):
        checked('board.move', 'a card moves out of from_column to the end of to_column'),
    # also: 'without a card, clear the column's cards': board.remove, 'remove without card_id clears the column's cards;
    #   the column stays'
    ('RemoveOp', "Remove card ``card_id`` from ``from_column``; without a card, clear the column's cards."):
        checked('board.remove', 'remove with card_id removes that card from from_column, and only it'),
    # also: 'an update that is not valid': every BoardError rule of board.models
    ('BoardError', 'An update that is not a valid board or operation; ``problems`` holds one sentence each.'):
        checked('board.models', "a BoardError's problems is a list of one-line sentences, one per problem"),
    # also: 'or BoardError saying what is wrong': the strictness rules of board.models (expect_board_error: a BoardError
    #   with a message)
    ('parse_update', 'The typed update ``raw`` stands for, or ``BoardError`` saying what is wrong with it.'):
        checked('board.models',
                'parse_update turns a valid board or operation (a dict or a model) into a Board, MoveOp or RemoveOp '
                'with the same data'),
    # also: 'a dict with type is an operation, a dict with columns a whole board': parse_valid
    ('parse_update',
     ('``raw`` is a Board or op instance (validated again: a model can be built without '
      'validation), or a plain dict as a tool emits it: a dict with ``type`` is an operation, a '
      'dict with ``columns`` a whole board.')):
        checked('board.models',
                'a model instance is validated again: one built without validation (model_construct) is a BoardError'),
    ('parse_update', 'A board needs unique column ids and card ids unique across the board.'):
        checked('board.models',
                'a board needs unique column ids and card ids unique across the board: a repeat is a BoardError'),
    ('parse_update', 'Always a new object, never ``raw`` itself.'):
        checked('board.models', 'parse_update always returns a new object, never raw itself'),
    # also: 'one sentence per problem': board.validate, 'each problem is one readable sentence naming what is wrong:
    #   ...'
    ('validate_update',
     ('``[]`` exactly when ``board_reducer(current, update)`` accepts ``update``; else one '
      'sentence per problem.')):
        checked('board.validate', 'validate_update returns [] exactly when board_reducer accepts the update'),
    # also: 'an operation edits a copy': board.move/board.remove (expect_board: current unchanged, a new Board)
    ('board_reducer', 'Apply one update to the board: a whole board replaces it, an operation edits a copy.'):
        checked('board.replace', 'a valid whole board replaces the board, whether current is None or a board'),
    # also: 'returns current itself': reject_identity; 'with no board yet': the no_board test (None stays None, with a
    #   warning); 'never raises': reject_never_raises
    ('board_reducer',
     ('An invalid update (or an operation with no board yet) returns ``current`` itself and logs '
      'a warning on ``agstate.board``; this function never raises.')):
        checked('board.reject', "a rejected update logs a warning with the reason on the logger 'agstate.board'"),
    ('board_reducer', 'Not commutative: operations apply in the order they arrive.'):
        checked('board.sequence', "every step's result equals the model's: the fold of the updates in order"),
    ('BoardState', "The board agent's state."):
        explains("introduces the table of the state's keys that follows"),
    # also: 'rejected ... operator.add': board.graph, 'rejected holds one reason per command ...' (parallel writes to a
    #   plain key would raise)
    ('BoardState',
     ('board Annotated[Board, board_reducer] typed Board, not Board | None: LangGraph then starts '
      'the channel at Board() and runs the reducer on the first write too commands list[dict] raw '
      "operations, as the model's tools emit them rejected Annotated[list[str], operator.add] "
      'reasons, visible to the agent')):
        checked('board.graph',
                'BoardState.board is typed Board with board_reducer: a garbage first write is rejected, not stored'),
    # also: the final board the calls give: board.graph, 'the final board is the fold of board_reducer over the
    #   commands, in list order'
    ('build_board_graph', 'The board agent: ``build_board`` → one parallel tool call per command → END.'):
        checked('board.graph', "each command runs as its own apply_command call, which returns {'board': command}"),
    ('build_board_graph',
     ('Input ``{"commands": [...]}`` and optionally ``"board"`` (through the reducer like '
      'any write).')):
        checked('board.graph',
                'an empty or garbage starting board becomes DEMO_BOARD; a starting board goes through the reducer'),
    ('build_board_graph', '``build_board`` puts ``DEMO_BOARD`` in place when the board is empty.'):
        checked('board.graph',
                'an empty or garbage starting board becomes DEMO_BOARD; a starting board goes through the reducer'),
    # also: 'one reason in rejected': board.graph, 'rejected holds one reason per command that was invalid ...'
    ('build_board_graph',
     ('Each command runs as its own ``Send`` to ``apply_command``, which returns ``{"board": '
      'command}`` and, when the command is invalid against the board it was issued on, one '
      'reason in ``rejected``.')):
        checked('board.graph', "each command runs as its own apply_command call, which returns {'board': command}"),
    ('build_board_graph',
     ('Sends apply in list order: the final board is the fold of ``board_reducer`` over the '
      'commands.')):
        checked('board.graph', 'the final board is the fold of board_reducer over the commands, in list order'),
    # -- private helpers: provided (their behaviour is part of parse_update's) or completed by the learner ---------
    ('_where', "A pydantic location as a path: ('columns', 0, 'cards', 1) -> columns[0].cards[1]."):
        checked('board.validate',
                'each problem is one readable sentence naming what is wrong: the column, the card, the operation type'),
    ('_sentences', 'One readable sentence per pydantic error: where, what was expected, what arrived.'):
        checked('board.models', "a BoardError's problems is a list of one-line sentences, one per problem"),
    ('_duplicates', 'The ids that occur more than once, in order of first occurrence (linear: boards can be huge).'):
        checked('board.models',
                'a board needs unique column ids and card ids unique across the board: a repeat is a BoardError'),
    ('_op_problems', 'What makes a well-formed operation impossible on ``current``.'):
        checked('board.reject',
                'a card or column that is not there makes the operation invalid, and so does no board yet: None stays None'),
    # also: after a move and a remove: every board.move and board.remove rule compares the whole board, counts
    #   included (checks.expect_board)
    ('_replace',
     '``board`` with every derived ``card_count`` recomputed from its cards: after a move, a remove, a whole board.'):
        checked('board.replace', 'card_count is derived: recomputed from the cards, whatever the update claimed'),
    # also: 'edits a deep copy': every board.move and board.remove rule checks that current is unchanged
    ('_apply',
     'A valid typed update applied: a whole board replaces ``current``, an operation edits a deep copy of it.'):
        checked('board.replace', 'a valid whole board replaces the board, whether current is None or a board'),
    ('_move', '``board`` (a copy, free to change) after a valid move.'):
        checked('board.move', 'a card moves out of from_column to the end of to_column'),
    ('_remove', '``board`` (a copy, free to change) after a valid remove.'):
        checked('board.remove', 'remove with card_id removes that card from from_column, and only it'),
}

# The "Your exercise" sections of part B's notebooks (solutions/notebooks/09_operations.py … 12_board_widget.py).
NOTEBOOKS = {
    # also: '_move and _remove': board.remove's rules; 'returns it through _replace': the counts every move and
    #   remove rule compares (checks.expect_board)
    ('09_operations',
     "In `agstate/board.py`, complete `_replace`, which sets every column's `card_count` to its number of cards, and "
     "`_move` and `_remove`: each receives a deep copy of the board, free to change, and returns it through "
     "`_replace`."):
        checked('board.move', 'a card moves out of from_column to the end of to_column'),
    ('09_operations',
     '`board_reducer` is given as a seed that parses an operation and hands it to them (`_apply` makes the copy); it '
     'checks nothing else yet, and notebook 10 makes it validate, reject and take whole boards.'):
        explains('what the learner is given: the seed the stub holds (tests/test_notebook_order.py grades notebook '
                 '09 on it)'),
    ('09_operations', 'The grader checks, on valid operations:'):
        explains('a heading: each rule of the list below is its own entry'),
    # also: 'within one column to its end': board.move, 'a move within one column puts the card at the end ...'
    ('09_operations', '- a card moves to the end of `to_column`; within one column to its end;'):
        checked('board.move', 'a card moves out of from_column to the end of to_column'),
    ('09_operations', "- a column move takes `to_column`'s index; the others keep their order;"):
        checked('board.move',
                'a move without card_id moves the column to the index to_column had; the others keep their order'),
    # also: 'without, clears the column': board.remove, "remove without card_id clears the column's cards; ..."
    ('09_operations', '- remove with `card_id` removes that card only; without, clears the column;'):
        checked('board.remove', 'remove with card_id removes that card from from_column, and only it'),
    # also: every board.move and board.remove rule (checks.expect_board: a new board, the model's counts, pure)
    ('09_operations',
     '- the board returned is a new one, with every `card_count` right, and the board given is unchanged.'):
        checked('board.move', 'a card moves out of from_column to the end of to_column'),
    ('09_operations', 'This cell needs your `_replace`, `_move` and `_remove`.'):
        explains('what the next cell runs'),
    ('09_operations', '### Checking against a model'):
        explains('a sub-heading'),
    ('09_operations',
     "Once the reducer is complete (notebook 11), the grader compares it with a tiny model of the board (plain dicts, "
     "a few lines per operation), on random sequences of updates drawn against the board as it evolves — the idea "
     "of Hypothesis's stateful testing."):
        checked('board.sequence', "every step's result equals the model's: the fold of the updates in order"),
    ('09_operations', 'After every step it checks what must *always* hold, whatever the sequence.'):
        checked('board.sequence',
                "after every accepted update each column's card_count == len(cards) and every id is unique"),
    ('09_operations', 'Here is the same idea on a few hundred random moves:'):
        explains('introduces the demo cell that follows'),
    ('10_validation',
     'Complete `STRICT`/`Id`, `parse_update`, `_op_problems`, `validate_update` and `board_reducer` (in place of its '
     'seed: it takes whole boards too) in `agstate/board.py`.'):
        explains("what to complete; their rules are the docstrings' (checked by board.models, board.reject and "
                 "board.validate, sentence by sentence in TABLE)"),
    ('10_validation', 'An operation with no board yet (`current is None`) is invalid too: the reducer returns None.'):
        checked('board.reject',
                'a card or column that is not there makes the operation invalid, and so does no board yet: None stays None'),
    # also: 'the board preserved': board.reject, 'an invalid update returns current itself ...'; 'the reason':
    #   board.validate, 'each problem is one readable sentence naming what is wrong ...'
    ('10_validation',
     'This cell needs them: three things a model really emits, each rejected, the board preserved, the reason ready '
     'to show the agent.'):
        checked('board.reject', 'an invalid update returns current itself (the same object), unchanged'),
    ('11_derived_fields',
     'Complete the whole-board branch of `_apply` in `agstate/board.py`: a valid whole board is stored through '
     '`_replace` (notebook 09), as moves and removes already are.'):
        checked('board.replace', 'card_count is derived: recomputed from the cards, whatever the update claimed'),
    ('11_derived_fields', 'This cell needs it.'):
        explains('what the next cell runs'),
    ('11_derived_fields', '### The whole reducer, against a model'):
        explains('a sub-heading'),
    ('11_derived_fields', 'Your reducer is complete: whole boards, moves and removes, valid or not.'):
        explains('where the learner is: every piece of the reducer is written'),
    ('11_derived_fields',
     'The grader folds it over random sequences of every kind of update — stale ids, garbage, boards with wrong '
     'counts — and compares each step with its model of the board, as notebook 09 did on random moves.'):
        checked('board.sequence', "every step's result equals the model's: the fold of the updates in order"),
    # also: cards conserved, nothing mutated, current itself on reject: board.sequence's other rules, each by name
    ('11_derived_fields',
     'After every step: the invariants hold, cards are conserved, nothing is mutated, and a rejected update returns '
     '`current` itself.'):
        checked('board.sequence',
                "after every accepted update each column's card_count == len(cards) and every id is unique"),
    # also: build_board first: the same rule checks the node's name; DEMO_BOARD: board.graph, 'an empty or garbage
    #   starting board becomes DEMO_BOARD ...'; typed Board: 'BoardState.board is typed Board ...'; list order: 'the
    #   final board is the fold ...'; rejected: 'rejected holds one reason per command ...'
    ('12_board_widget',
     'Complete `BoardState` and `build_board_graph` in `agstate/board.py`: `board` typed `Board` (notebook 08), a '
     'node `build_board` that puts `DEMO_BOARD` in place when the board is empty, then one `Send` per command in list '
     'order, each returning `{"board": command}` and one reason in `rejected` when the command is invalid against the '
     'board it was issued on.'):
        checked('board.graph', "each command runs as its own apply_command call, which returns {'board': command}"),
    ('12_board_widget', 'The cells below need them.'):
        explains('what the next cells run'),
    ('12_board_widget',
     'The agent proposes a board: a whole board is a valid update, validated by the reducer like any other (its '
     'counts recomputed).'):
        checked('board.replace', 'a valid whole board replaces the board, whether current is None or a board'),
    ('12_board_widget',
     'The board, live: ◀ ▶ move a card (or, in a header, the column), ✕ removes a card.'):
        explains("the provided widget's buttons (agstate/board_widget.py, not the learner's code)"),
    ('12_board_widget', 'Each click is an operation sent through the reducer.'):
        explains("how the provided widget works, tested in tests/test_board_widget.py, not a rule of the learner's code"),
    ('12_board_widget', 'The person moves `T-42` to `doing` (the same as clicking ▶ on it):'):
        explains('narrates the demo cell that follows'),
    ('12_board_widget',
     "The agent's next step, with its stale plan for `T-42` and a valid command for `T-39`: the stale move is "
     "rejected, the person's edit kept, and the reason is in the state for the agent to read."):
        checked('board.graph',
                'rejected holds one reason per command that was invalid against the board the commands were issued on'),
    ('12_board_widget', "A person's stale click is rejected the same way, and shown in the view:"):
        explains("the provided widget's view of a rejection (agstate/board_widget.py), shown by the demo cell"),
}
