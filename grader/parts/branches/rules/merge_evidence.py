"""Notebook 21, branches.merge_evidence: ``merge_evidence`` is the union of two branches' evidence by id."""

from grader.engine.expectations import expect_pure
from grader.engine.registry import task
from grader.i18n import N_, _
from grader.parts.branches.checks import expect_raises, expect_records
from grader.parts.branches.model import model_union
from grader.parts.branches.strategies import colliding_pair, consistent_lists

merge_task = task("branches.merge_evidence")


@merge_task.rule(N_("merge_evidence returns the union of both lists by id, sorted by id"))
def merge_union(check):
    @check.forall(consistent_lists(2))
    def union(lists):
        expect_records(check, "merge_evidence", lists, model_union(*lists))


@merge_task.rule(N_("the same id with identical content is kept once, also when one list repeats it"))
def merge_identical(check):
    @check.forall(consistent_lists(2), first=([[{"id": "e1", "v": 1}], [{"id": "e1", "v": 1}]],))
    def kept_once(lists):
        left, right = lists
        expect_records(check, "merge_evidence", [left + right, right + left], model_union(left, right))


@merge_task.rule(N_("the same id with different content raises EvidenceCollision naming the id (its evidence_id)"))
def merge_collision(check):
    @check.forall(colliding_pair())
    def collides(pair):
        left, right, shared = pair
        expect_raises(check, "merge_evidence", [left, right], "EvidenceCollision", {"evidence_id": shared},
                      _("two branches disagree about {shared} and nobody may pick one silently").format(shared=repr(shared)))


@merge_task.rule(N_("merge_evidence returns a new list and never mutates its arguments"))
def merge_pure(check):
    @check.forall(consistent_lists(2))
    def pure(lists):
        expect_pure(check, "merge_evidence", *lists, params=("left", "right"))  # its parameters, in the learner's words


@merge_task.rule(N_("None counts as no evidence: merging None with a list gives that list's union, sorted by id"))
def merge_none(check):
    @check.forall(consistent_lists(1))
    def none_is_empty(lists):
        records = lists[0]
        expected = model_union(records)
        for args in ([None, records], [records, None]):
            expect_records(check, "merge_evidence", args, expected)
        expect_records(check, "merge_evidence", [None, None], [])
