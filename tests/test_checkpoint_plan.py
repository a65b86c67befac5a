"""Exercise 16.4's measurement: plans of any segment lengths, against the counting model
(kept = segments, or 2 depth + 1 unchecked; peak = kept + 2 x the longest segment)."""

import itertools

import pytest

from minigrad.course.checkpoint_plan import measure_plan


def compositions(n):
    for cuts in itertools.product([0, 1], repeat=n - 1):
        lengths, run = [], 1
        for cut in cuts:
            if cut:
                lengths.append(run)
                run = 0
            run += 1
        yield [*lengths, run]


@pytest.mark.parametrize("depth", [1, 2, 3, 5])
def test_every_plan_measures_as_counted(depth):
    assert measure_plan(depth, []) == {"kept": 2 * depth + 1, "peak": 2 * depth + 1,
                                       "recomputed": 0}
    for lengths in compositions(depth):
        assert measure_plan(depth, lengths) == {
            "kept": len(lengths), "peak": len(lengths) + 2 * max(lengths),
            "recomputed": depth}, lengths


def test_uneven_plans_of_a_deep_network():
    assert measure_plan(12, [5, 4, 3]) == {"kept": 3, "peak": 13, "recomputed": 12}
    assert measure_plan(9, [1, 7, 1]) == {"kept": 3, "peak": 17, "recomputed": 9}


def test_a_plan_must_cover_the_network():
    with pytest.raises(ValueError, match="add up to the depth"):
        measure_plan(4, [1, 2])
    with pytest.raises(ValueError, match="positive"):
        measure_plan(4, [4, 0])
