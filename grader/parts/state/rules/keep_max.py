"""Notebook 04, keep_max: the larger value, ``None`` as absence, its laws; ``State.best_score`` uses it."""

from grader.engine.checking import Failure
from grader.engine.expectations import expect_value
from grader.engine.registry import task
from grader.engine.showing import show
from grader.i18n import N_, _
from grader.parts.state import strategies as gen
from grader.parts.state.checks import state_key_graph
from grader.parts.state.model import MISSING, model_keep_max

keep_max_task = task("state.keep_max")


@keep_max_task.rule(N_("keep_max returns the larger of two values (ints, floats or strs)"))
def keep_max_larger(check):
    def larger(pair):
        expect_value(check, "keep_max", pair, model_keep_max(*pair))

    # Zero against a negative first: a truthiness test (`old or new`) fails here on every seed, not only on the seeds
    # whose random pairs hold a zero (so neighbours with --seed-per-student lose the same marks for it).
    check.each([((0, -1),), ((0.0, -1.5),)])(larger)
    check.forall(gen.comparable_pairs)(larger)


@keep_max_task.rule(N_("None means absent: keep_max(None, x) == x, keep_max(x, None) == x, keep_max(None, None) is None"))
def keep_max_none(check):
    @check.forall(gen.maybe_scores, gen.none_first)
    def absent(value, none_first):
        args = (None, value) if none_first else (value, None)
        expect_value(check, "keep_max", args, value)


@keep_max_task.rule(N_("zero and negative numbers are values, not absence"))
def keep_max_zero(check):
    @check.forall(gen.non_positive, gen.non_positive)
    def non_positive(old, new):
        expect_value(check, "keep_max", (old, new), max(old, new))


@keep_max_task.rule(N_("keep_max is commutative, associative and idempotent"))
def keep_max_laws(check):
    @check.forall(gen.comparable_triples)
    def laws(triple):
        a, b, c = triple
        ab = check.value("keep_max", a, b).result
        ba = check.value("keep_max", b, a).result
        if ab != ba:
            raise Failure(_("keep_max({a}, {b}) is {ab} but keep_max({b}, {a}) is {ba}; the order of writes must not matter "
                            "(commutative)").format(a=show(a), b=show(b), ab=show(ab), ba=show(ba)))
        left = check.value("keep_max", ab, c).result
        bc = check.value("keep_max", b, c).result
        right = check.value("keep_max", a, bc).result
        if left != right:
            raise Failure(_("keep_max(keep_max({a}, {b}), {c}) is {left} but keep_max({a}, keep_max({b}, {c})) is {right} "
                            "(associative)").format(a=show(a), b=show(b), c=show(c), left=show(left), right=show(right)))
        again = check.value("keep_max", a, a).result
        if again != a:
            raise Failure(_("keep_max({a}, {a}) is {again}; a repeated write must change nothing (idempotent)").format(
                              a=show(a), again=show(again)))


# An int channel starts at 0, and max(0, -3) is 0: the first score must be int | None.
_SWALLOWED = N_("an int channel starts at 0 and swallows a first negative score; use int | None")


@keep_max_task.rule(N_("State.best_score keeps the best score, a first negative score included"))
def best_score_graph(check):
    @check.forall(gen.graph_case("best_score", gen.graph_scores), examples=check.budget("graph"),
                  first=gen.small_graph("best_score", -3, -7, -5))
    def best(case):
        state_key_graph(check, "State", "best_score", *case, start=MISSING, reducer=model_keep_max, why=_(_SWALLOWED))

    @check.forall(gen.supersteps(max_width=1, max_steps=1), gen.negative_scores, examples=check.budget("graph"))
    def first_negative(steps, score):
        writes = {steps[0][0]: {"best_score": score}}
        state_key_graph(check, "State", "best_score", steps, writes, {}, start=MISSING, reducer=model_keep_max,
                        why=_(_SWALLOWED))
