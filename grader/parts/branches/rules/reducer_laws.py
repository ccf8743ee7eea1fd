"""Notebook 22, branches.laws: ``merge_evidence`` is commutative, associative and idempotent.

So the order branches finish in, and a redelivered result, cannot change the
merged evidence. A call that raises here is the learner's error (``check.value``),
except where a collision must raise whichever way round.
"""

from grader.engine.checking import Failure, Raised
from grader.engine.registry import task
from grader.engine.showing import show
from grader.i18n import N_, _
from grader.parts.branches.checks import catching
from grader.parts.branches.strategies import colliding_pair, consistent_lists

laws = task("branches.laws")


def merged(check, left, right):
    return check.value("merge_evidence", left, right).result


@laws.rule(N_("commutative: merge_evidence(a, b) == merge_evidence(b, a), so completion order cannot matter"))
def law_commutative(check):
    @check.forall(consistent_lists(2))
    def commutes(lists):
        a, b = lists
        ab, ba = merged(check, a, b), merged(check, b, a)
        if ab != ba:
            raise Failure(_("merge_evidence({a}, {b}) is {ab} but merge_evidence({b}, {a}) is {ba}; the order branches finish in "
                            "must not matter (commutative)").format(a=show(a), b=show(b), ab=show(ab), ba=show(ba)))

    @check.forall(colliding_pair())
    def both_raise(pair):
        a, b, _skip = pair
        outcomes = [catching(check, "merge_evidence", args, [], pure=False) for args in ([a, b], [b, a])]
        raised = [isinstance(outcome, Raised) for outcome in outcomes]
        if raised[0] != raised[1] or (not raised[0] and outcomes[0] != outcomes[1]):
            shown = ["raises " + o.type if isinstance(o, Raised) else "returns " + show(o) for o in outcomes]
            raise Failure(_("merge_evidence({a}, {b}) {shown} but with the arguments swapped it {shown2}; a collision must be a "
                            "collision whichever branch finished first (commutative)").format(
                              a=show(a), b=show(b), shown=shown[0], shown2=shown[1]))


@laws.rule(N_("associative: merging (a, b) then c equals merging a with (b, c)"))
def law_associative(check):
    @check.forall(consistent_lists(3))
    def associates(lists):
        a, b, c = lists
        left = merged(check, merged(check, a, b), c)
        right = merged(check, a, merged(check, b, c))
        if left != right:
            raise Failure(_("merge_evidence(merge_evidence(a, b), c) is {left} but merge_evidence(a, merge_evidence(b, c)) is "
                            "{right} for a={a}, b={b}, c={c} (associative)").format(
                              left=show(left), right=show(right), a=show(a), b=show(b), c=show(c)))


@laws.rule(N_("idempotent: merging a result again, or redelivering a branch's evidence, changes nothing"))
def law_idempotent(check):
    @check.forall(consistent_lists(2))
    def idempotent(lists):
        a, b = lists
        m = merged(check, a, b)
        for again, text in ((merged(check, m, m), "merge_evidence(m, m)"), (merged(check, m, b), f"merge_evidence(m, {show(b)})")):
            if again != m:
                raise Failure(_("with m = merge_evidence({a}, {b}) = {m}, {text} is {again}; a redelivered result must change "
                                "nothing (idempotent)").format(a=show(a), b=show(b), m=show(m), text=text, again=show(again)))
