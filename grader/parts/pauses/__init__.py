"""Part F: pauses and upgrades — ``agstate/pauses.py``. Its folder: see ``grader.parts``."""

from grader.i18n import N_
from grader.parts.descriptor import Part, TaskSpec

PART = Part(
    name="pauses",
    letter="F",
    title=N_("Pauses and upgrades"),
    module="pauses",
    first_notebook="33_approve_once.ipynb",
    tasks=(
        TaskSpec("pauses.approval", 30, "33_approve_once.ipynb",
                 "build_approval_graph over random requests, answers and crashes inside the fakes: every effect once"),
        TaskSpec("pauses.edits", 20, "34_human_edits.ipynb",
                 "edit_update on random ReviewStates and edits, applied to a paused thread; invalid edits refused"),
        TaskSpec("pauses.questions", 20, "35_questions_by_position.ipynb",
                 "build_intake_graph with random needed questions, a stock that changes after the first pause"),
        TaskSpec("pauses.migrate", 15, "36_migrations.ipynb",
                 "upgrade and migrate on random states of each release: nothing lost, identity, composition, purity"),
        TaskSpec("pauses.upgrade", 15, "37_old_threads_resume.ipynb",
                 "threads paused under each release, upgraded with upgrade_update, resumed by build_order_graph"),
    ),
    # What each probe stands for, in the learner's words: a timeout or a crash names this, never the probe.
    calls={
        "approval_run": "build_approval_graph(...) run to its end",
        "edit_run": "edit_update(...) applied with update_state",
        "intake_run": "build_intake_graph(...) run to its end",
        "upgrade_run": "upgrade_update(...) and build_order_graph(...)",
    },
)
