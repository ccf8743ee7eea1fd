"""Provided helper (not an exercise, never graded): a board view bound to a compiled graph and thread.

The person and the agent change one state through one reducer. The view
draws the board stored in the graph's checkpoint; its buttons emit
``MoveOp`` / ``RemoveOp`` through ``graph.update_state``, so a person's edit
meets ``board_reducer`` exactly like a tool's. A rejected op leaves the board
as it was and its reasons are shown (and added to ``rejected``, where the
agent reads them). Works without a browser too: ``view.text()`` and
``repr(view)`` render the board as plain text (notebook 12).
"""

import html
import re

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.graph import END

from agstate.board import Board, MoveOp, RemoveOp, validate_update

__all__ = ["BoardView", "board_checkpointer"]


def board_checkpointer() -> InMemorySaver:
    """An in-memory checkpointer that knows the board's models.

    LangGraph warns each time it reads a checkpoint holding a class it was
    not told about; these are ours, so say so once here.
    """
    allowed = [("agstate.board", name) for name in ("Board", "Column", "Card", "MoveOp", "RemoveOp")]
    return InMemorySaver(serde=JsonPlusSerializer(allowed_msgpack_modules=allowed))


def _css(value: str) -> str:
    """An id as a CSS class fragment (browser tests find cards and columns by it)."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", value)


class BoardView:
    """The board of ``graph``'s thread ``config``, with controls that send operations to it.

    ``as_node``: the node the person's edits count as written by. Default: a
    node whose only successor is END, so an edit does not re-trigger the
    graph's routing (``build_board`` would fan its commands out again).
    """

    def __init__(self, graph, config: dict, as_node: str | None = None):
        self.graph = graph
        self.config = config
        self.as_node = as_node or next((a for a, b in sorted(graph.builder.edges) if b == END), None)
        self.reasons: list[str] = []  # why the person's last op was rejected ([] when accepted)
        self.last_op: str = ""
        self._drawn = None  # the board dump last drawn
        self._root = None  # the ipywidgets tree, built on first display

    # -- state -------------------------------------------------------------------------
    @property
    def board(self) -> Board:
        """The board stored in the thread's latest checkpoint (``Board()`` before the first run)."""
        board = self.graph.get_state(self.config).values.get("board")
        return board if isinstance(board, Board) else Board()

    def apply(self, op: MoveOp | RemoveOp) -> list[str]:
        """Send ``op`` through the graph's reducer; the reasons it was rejected, or [] when accepted."""
        self.reasons = validate_update(self.board, op)
        update = {"board": op}
        if self.reasons:
            update["rejected"] = [f"the person's {op.type} was rejected: {'; '.join(self.reasons)}"]
        self.graph.update_state(self.config, update, as_node=self.as_node)
        self.last_op = _describe(op)
        self.refresh(force=True)
        return self.reasons

    def move(self, card_id: str, from_column: str, to_column: str) -> list[str]:
        return self.apply(MoveOp(type="move", card_id=card_id, from_column=from_column, to_column=to_column))

    def remove(self, card_id: str, from_column: str) -> list[str]:
        return self.apply(RemoveOp(type="remove", card_id=card_id, from_column=from_column))

    def move_column(self, column_id: str, to_column: str) -> list[str]:
        return self.apply(MoveOp(type="move", from_column=column_id, to_column=to_column))

    def invoke(self, graph_input: dict) -> dict:
        """Run the agent (the graph) on this thread, then redraw."""
        out = self.graph.invoke(graph_input, self.config)
        self.refresh()
        return out

    def refresh(self, force: bool = False) -> bool:
        """Redraw when the stored board changed (or ``force``); True when redrawn."""
        dump = self.board.model_dump(mode="json")
        if dump == self._drawn and not force:
            return False
        self._drawn = dump
        if self._root is not None:
            self._draw()
        return True

    # -- plain text -----------------------------------------------------------------------
    def text(self) -> str:
        """The board as plain text, one line per column and card, then the last op's outcome."""
        lines = []
        for column in self.board.columns:
            lines.append(f"{column.title} [{column.column_id}] ({column.card_count} card{'s' * (column.card_count != 1)})")
            lines += [f"  - {card.card_id}  {card.title}  (priority {card.priority})" for card in column.cards]
        lines = lines or ["(empty board)"]
        if self.last_op:
            lines.append(f"{self.last_op}: " + ("rejected: " + "; ".join(self.reasons) if self.reasons else "accepted"))
        return "\n".join(lines)

    def __repr__(self) -> str:
        return self.text()

    # -- the widget ------------------------------------------------------------------------------
    @property
    def widget(self):
        """The ipywidgets view (built on first use: importing this module needs no kernel)."""
        if self._root is None:
            import ipywidgets as w

            self._columns = w.HBox(layout=w.Layout(align_items="flex-start"))
            self._status = w.HTML()
            self._status.add_class("agstate-status")
            refresh = w.Button(description="refresh", icon="refresh", tooltip="redraw from the graph's state")
            refresh.on_click(lambda _: self.refresh(force=True))
            self._root = w.VBox([self._columns, w.HBox([refresh, self._status])])
            self._root.add_class("agstate-board")
            self._draw()
        return self._root

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)

    def _draw(self) -> None:
        import ipywidgets as w

        board = self.board
        self._drawn = board.model_dump(mode="json")
        ids = [column.column_id for column in board.columns]
        boxes = []
        for index, column in enumerate(board.columns):
            left = ids[index - 1] if index > 0 else None
            right = ids[index + 1] if index + 1 < len(ids) else None
            header = w.HBox([self._button("◀", f"move column {column.column_id} to {left}", left,
                                          lambda _, c=column.column_id, t=left: self.move_column(c, t)),
                             w.HTML(f"<b>{html.escape(column.title)}</b> ({column.card_count})"),
                             self._button("▶", f"move column {column.column_id} to {right}", right,
                                          lambda _, c=column.column_id, t=right: self.move_column(c, t))])
            rows = [header]
            for card in column.cards:
                # The op names the column the card was drawn in: if the agent moved it since, it is rejected.
                row = w.HBox([
                    self._button("◀", f"move {card.card_id} to {left}", left,
                                 lambda _, k=card.card_id, c=column.column_id, t=left: self.move(k, c, t)),
                    w.HTML(f"<code>{html.escape(card.card_id)}</code> {html.escape(card.title)} "
                           f"<small>p{card.priority}</small>"),
                    self._button("▶", f"move {card.card_id} to {right}", right,
                                 lambda _, k=card.card_id, c=column.column_id, t=right: self.move(k, c, t)),
                    self._button("✕", f"remove {card.card_id}", column.column_id,
                                 lambda _, k=card.card_id, c=column.column_id: self.remove(k, c)),
                ])
                row.add_class("agstate-card")
                row.add_class(f"agstate-card-{_css(card.card_id)}")
                rows.append(row)
            box = w.VBox(rows, layout=w.Layout(border="1px solid #ccc", padding="6px", min_width="240px"))
            box.add_class("agstate-column")
            box.add_class(f"agstate-column-{_css(column.column_id)}")
            boxes.append(box)
        self._columns.children = boxes
        if not self.last_op:
            self._status.value = ""
        elif self.reasons:
            self._status.value = (f"<span style='color:#b00'>{html.escape(self.last_op)} rejected: "
                                  f"{html.escape('; '.join(self.reasons))}</span>")
        else:
            self._status.value = f"<span style='color:#070'>{html.escape(self.last_op)} accepted</span>"

    @staticmethod
    def _button(label: str, tooltip: str, target, on_click):
        import ipywidgets as w

        button = w.Button(description=label, tooltip=tooltip, disabled=target is None,
                          layout=w.Layout(width="32px"))
        button.on_click(on_click)
        return button


def _describe(op: MoveOp | RemoveOp) -> str:
    if op.type == "remove":
        return f"remove {op.card_id} from {op.from_column}" if op.card_id else f"clear {op.from_column}"
    return f"move {op.card_id or 'column ' + op.from_column} to {op.to_column}"
