"""The torch comparison helper passes what matches and fails, by name, on what does not."""

import re

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


def _columns(text, row=1):
    """The cells of a row of a check table's text (columns are 2+ spaces apart)."""
    return re.split(r"\s{2,}", text.splitlines()[row])


def _torch_elements(values):
    """The elements of torch's print of ``values`` (float64), trailing zeros trimmed."""
    text = str(torch.tensor(values, dtype=torch.float64))
    text = text[text.index("(") + 1:text.rindex("]") + 1]
    out = []
    for item in re.findall(r"-?(?:[\d.]+(?:e[+-]\d+)?|nan|inf)", text):
        if "e" in item and item not in ("inf", "-inf"):
            mantissa, exponent = item.split("e")
            item = mantissa.rstrip("0").rstrip(".") + "e" + exponent
        elif "." in item:
            item = item.rstrip("0").rstrip(".")
        out.append("0" if item in ("-0", "") else item)
    return out


@pytest.mark.parametrize("values", [
    [4.0, 3.0000000000000004], [1 / 3, -2 / 3, 0.5], [[0.1, 0.25, 1.5], [2.0, -3.125, 0.0]],
    [1e-5, 2500.0], [123.456789, 0.5, -7.25], [1e9, 0.5], [0.00012345, 0.1], [np.inf, 0.5],
    [np.nan, 1.25, -np.inf],
], ids=lambda v: str(v)[:20])
def test_small_arrays_are_shown_in_full_rounded_as_torch_prints_them(values):
    ours = repr(check("v", np.array(values), torch.tensor(values), equal_nan=True))
    value = _columns(ours)[2]
    assert re.findall(r"[^\[\], ]+", value) == _torch_elements(values)
    assert f"torch {value}" in ours


def test_the_gradient_of_chapter_02_reads_as_a_list_in_text_and_html():
    table = check("gradient(L, 2, 4)", np.array([4.0, 3.0]), torch.tensor([4.0, 3.0]))
    assert repr(table).splitlines()[1].split() == ["gradient(L,", "2,", "4)", "(2,)", "[4,",
                                                   "3]", "torch", "[4,", "3]", "0", "pass"]
    assert "<td>[4, 3]</td><td>torch [4, 3]</td>" in table._repr_html_()


def test_the_shape_column_is_the_values_shape_as_a_tuple():
    assert repr(check("s", 2.0, torch.tensor(2.0))).splitlines()[1].split()[1] == "()"
    text = repr(check("m", np.ones((2, 3)), torch.ones(2, 3)))
    assert _columns(text)[1] == "(2, 3)"
    assert "[[1, 1, 1], [1, 1, 1]]" in text
    html = check("m", np.ones((2, 3)), torch.ones(2, 3))._repr_html_()
    assert "<td>(2, 3)</td><td>[[1, 1, 1],<br>[1, 1, 1]]</td>" in html  # a row a line


def test_a_bigger_array_is_summarized_by_its_range():
    x = np.linspace(-1.5, 2.25, 13)
    text = repr(check("x", x, torch.tensor(x)))
    assert "min -1.5, max 2.25" in text and "torch min -1.5, max 2.25" in text
    assert "all 0" in repr(check("z", np.zeros((4, 4)), torch.zeros(4, 4)))
    y = np.array([np.nan] * 3 + list(range(12)), dtype=float)
    assert "min 0, max 11, 3 NaN" in repr(check("y", y, torch.tensor(y), equal_nan=True))


def test_booleans_show_as_true_and_false():
    text = repr(check("y.grad is None", True, True))
    assert text.splitlines()[1].split()[-5:] == ["True", "torch", "True", "0", "pass"]
    text = repr(check("mask", torch.tensor([True, False]), np.array([True, False])))
    assert "[True, False]" in text and "torch [True, False]" in text


def test_brief_is_one_line_naming_the_values():
    line = check("grad", np.array([4.0, 3.0]), torch.tensor([4.0, 3.0]), brief=True)
    assert repr(line) == "\N{CHECK MARK} same as torch: grad [4, 3], max diff 0"
    assert line.passed and "\n" not in line._repr_html_()
    assert "same as torch: grad [4, 3], max diff 0" in line._repr_html_()
    line = check_all({"W.grad": (np.ones((8, 4)), torch.ones(8, 4)), "loss": (2.5, 2.5 + 1e-12),
                      "h": (2.0, 2.0, "formula")}, brief=True)
    assert repr(line) == ("\N{CHECK MARK} same as torch: W.grad shape (8, 4), loss 2.5, "
                          "h 2 (formula), max diff < 1e-11")


def test_brief_raises_the_same_message_as_the_table():
    messages = []
    for brief in (False, True):
        with pytest.raises(AssertionError) as info:
            check_all({"a": (np.array([1.0, 2.0]), torch.tensor([1.0, 2.5])), "b": (1.0, 1.0)},
                      brief=brief)
        messages.append(str(info.value))
    assert messages[0] == messages[1] and "first at (1,): minigrad 2.0, torch 2.5" in messages[0]


def test_rounding_noise_next_to_big_elements_shows_as_zero():
    noisy = np.array([4.0, 3.0, 2.7755575615628914e-17])
    assert "[4, 3, 0]" in repr(check("g", noisy, torch.tensor([4.0, 3.0, 0.0])))
    assert "[1e-17, -3e-17]" in repr(check("g", np.array([1e-17, -3e-17]), np.zeros(2),
                                           atol=1e-12))
