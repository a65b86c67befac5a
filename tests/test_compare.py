"""The torch comparison helper passes what matches and fails, by name, on what does not."""

import numpy as np
import pytest
import torch

from minigrad import Value, check, check_all
from minigrad.course.compare import to_numpy


def test_matching_results_pass_and_render():
    table = check("x.grad", np.array([2.0, 4.0, 6.0]), torch.tensor([2.0, 4.0, 6.0]))
    assert table.passed
    text = repr(table)
    assert "x.grad" in text and "(3,)" in text and "pass" in text
    assert "<table>" in table._repr_html_() and "x.grad" in table._repr_html_()


def test_value_float_and_tensor_requiring_grad_are_accepted():
    x = torch.tensor(3.0, requires_grad=True)
    y = x ** 2
    assert check("y", Value(9.0), y).passed
    assert check("number", 9, 9.0).passed


def test_real_mismatch_raises_naming_the_result_and_the_element():
    with pytest.raises(AssertionError) as info:
        check("w.grad", np.array([[1.0, 2.0], [3.0, 4.0]]), torch.tensor([[1.0, 2.0], [3.0, 4.5]]))
    message = str(info.value)
    assert "w.grad" in message and "(1, 1)" in message and "4.0" in message and "4.5" in message


def test_shape_mismatch_raises_even_when_broadcastable():
    with pytest.raises(AssertionError, match=r"shape \(3,\) in minigrad but \(3, 1\) in torch"):
        check("b.grad", np.ones(3), torch.ones(3, 1))


def test_nan_raises():
    with pytest.raises(AssertionError, match="NaN"):
        check("loss", float("nan"), torch.tensor(1.0))
    with pytest.raises(AssertionError, match="NaN"):
        check("loss", np.array([1.0, np.nan]), torch.tensor([1.0, float("nan")]))
    assert check("loss", np.array([1.0, np.nan]), torch.tensor([1.0, float("nan")]),
                 equal_nan=True).passed


def test_tolerances_can_be_set():
    with pytest.raises(AssertionError):
        check("slope", 6.001, 6.0)
    assert check("slope", 6.001, 6.0, atol=1e-2).passed
    assert check("slope", 6.001, 6.0, rtol=1e-3).passed
    with pytest.raises(AssertionError):
        check("slope", 6.0 + 1e-9, 6.0, rtol=0, atol=1e-12)


def test_check_all_reports_every_mismatch():
    with pytest.raises(AssertionError) as info:
        check_all({"a": (1.0, 1.0), "b": (2.0, 3.0), "c": (np.ones(2), np.ones(3))})
    message = str(info.value)
    assert "b:" in message and "c:" in message and "a:" not in message


def test_none_grad_is_refused_with_a_hint():
    with pytest.raises(TypeError, match="backward"):
        to_numpy(None)


def test_shown_diff_is_a_stable_bound():
    text = repr(check("x", 1.0 + 3e-9, 1.0))
    assert "< 1e-8" in text


def test_equal_infinities_match_without_a_warning(recwarn):
    values = [np.inf, -np.inf, 1.0]
    table = check("overflow", np.array(values), torch.tensor(values))
    assert table.passed and "0" in repr(table)
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]
    with pytest.raises(AssertionError):
        check("overflow", np.array([np.inf]), torch.tensor([-np.inf]))


def test_the_reference_column_names_the_reference_and_shows_single_numbers():
    text = repr(check("slope", 6.0, torch.tensor(6.0)))
    assert text.splitlines()[0].split() == ["name", "shape", "value", "reference", "max",
                                            "abs", "diff", "result"]
    assert "torch 6" in text and "  6  " in text
    text = repr(check_all({"w": (np.ones((2, 2)), np.ones((2, 2))),
                           "by hand": (2.0, 2.0, "formula")}))
    assert "formula 2" in text and "torch" in text
    with pytest.raises(AssertionError, match="minigrad 1.0, formula 2.0"):
        check("x", 1.0, 2.0, against="formula")
