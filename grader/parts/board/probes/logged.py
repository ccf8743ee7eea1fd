"""Child side: the warnings the learner's board code logs on ``agstate.board`` during a call (imported by the part's probes).

A rejected update must say why in a warning; the probes capture them here,
whatever logging state the learner's module left behind. Like the probes, it
runs in the learner's process and imports nothing of the grading side.
"""

import logging
from contextlib import contextmanager

__all__ = ["warnings_logged"]


class _Warnings(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages = []

    def emit(self, record):
        try:
            self.messages.append(record.getMessage())
        except Exception:  # a message whose %-args do not fit is still a warning
            self.messages.append(str(record.msg))


@contextmanager
def warnings_logged():
    """The warnings logged on ``agstate.board`` meanwhile, whatever logging state the child inherited.

    Its level and logging's global switch are changed (and put back) only where they would hide a warning:
    each change empties every logger's cache, and the reducer is called thousands of times.
    """
    log, handler = logging.getLogger("agstate.board"), _Warnings()
    level, disabled, floor = log.level, log.disabled, logging.root.manager.disable
    hidden = log.getEffectiveLevel() > logging.WARNING
    if hidden:
        log.setLevel(logging.WARNING)
    log.disabled = False
    if floor != logging.NOTSET:
        logging.disable(logging.NOTSET)
    log.addHandler(handler)
    try:
        yield handler.messages
    finally:
        log.removeHandler(handler)
        if hidden:
            log.setLevel(level)
        log.disabled = disabled
        if floor != logging.NOTSET:
            logging.disable(floor)
