"""minigrad.course.raised: a named mistake told by its error's type and message."""

import pytest

from minigrad.course.grading import ExerciseFailed, graded
from minigrad.course.raised import raised


def test_an_error_matches_by_type_and_phrase():
    freed = raised(RuntimeError, "a second time")
    assert isinstance(RuntimeError("backward through the graph a second time"), freed)
    assert not isinstance(RuntimeError("does not require grad"), freed)
    assert not isinstance(ValueError("a second time"), freed)
    either = raised(ValueError, "(3,1) (4,1)", "(4,1) (3,1)")
    assert isinstance(ValueError("shapes (4,1) (3,1) "), either)
    assert not isinstance(ValueError("shapes (2,1) (3,1) "), either)


def test_a_call_names_the_mistake_whose_error_it_raised():
    def twice():
        raise RuntimeError("Trying to backward through the graph a second time")

    mistakes = {"no-grad": ("?", raised(RuntimeError, "does not require grad")),
                "graph-freed": ("what did the first call do to the graph?",
                                raised(RuntimeError, "a second time"))}
    with pytest.raises(ExerciseFailed) as info, graded("Exercise 0.1") as g:
        g.call(twice, mistakes=mistakes)
    assert info.value.mistake == "graph-freed"
    with pytest.raises(ExerciseFailed) as info, graded("Exercise 0.1") as g:
        g.call(twice, mistakes={"no-grad": mistakes["no-grad"]})
    assert info.value.mistake is None
