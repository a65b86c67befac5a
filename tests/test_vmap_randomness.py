"""vmap's ``randomness=`` as torch.func.vmap's docstring says (chapter 14): 'error' (the
default) refuses a random op, 'same' draws once for the whole batch, 'different' gives
each sample its own draw. The numbers cannot be compared with torch's (two generators),
so each case compares what can be: shapes, dtypes, which samples agree, which refuse."""

import numpy as np
import pytest
import torch

import minigrad

LIBS = [torch, minigrad]

PROGRAMS = {  # name: f(lib) -> output of a vmap over 3 samples of 4 ones
    "randn_different": lambda lib: lib.func.vmap(lambda a: a + lib.randn(4),
                                                 randomness="different")(lib.ones(3, 4)),
    "randn_same": lambda lib: lib.func.vmap(lambda a: a + lib.randn(4),
                                            randomness="same")(lib.ones(3, 4)),
    "rand_unbatched_output_different": lambda lib: lib.func.vmap(
        lambda a: lib.rand(2, dtype=lib.float64), randomness="different")(lib.ones(3, 4)),
    "rand_unbatched_output_same": lambda lib: lib.func.vmap(
        lambda a: lib.rand(2, dtype=lib.float64), randomness="same")(lib.ones(3, 4)),
    "rand_like_different": lambda lib: lib.func.vmap(lambda a: lib.rand_like(a),
                                                     randomness="different")(lib.ones(3, 4)),
    "randn_like_same": lambda lib: lib.func.vmap(lambda a: lib.randn_like(a),
                                                 randomness="same")(lib.ones(3, 4)),
    "randint_different": lambda lib: lib.func.vmap(lambda a: lib.randint(0, 1000, (4,)),
                                                   randomness="different")(lib.ones(3, 4)),
    "dropout_different": lambda lib: lib.func.vmap(
        lambda a: lib.nn.functional.dropout(a, 0.5), randomness="different")(lib.ones(3, 64)),
    "dropout_same": lambda lib: lib.func.vmap(
        lambda a: lib.nn.functional.dropout(a, 0.5), randomness="same")(lib.ones(3, 64)),
    "generator_different": lambda lib: lib.func.vmap(
        lambda a: lib.randn(4, generator=lib.Generator().manual_seed(1)),
        randomness="different")(lib.ones(3, 4)),
    "outer_same_inner_different": lambda lib: lib.func.vmap(lib.func.vmap(
        lambda a: a + lib.randn(()), randomness="different"), randomness="same")(
        lib.ones(3, 4)),
    "outer_different_inner_same": lambda lib: lib.func.vmap(lib.func.vmap(
        lambda a: a + lib.randn(()), randomness="same"), randomness="different")(
        lib.ones(3, 4)),
}


def _rows_equal(out):
    rows = out.detach().numpy()
    return [bool((rows[i] == rows[0]).all()) for i in range(1, len(rows))]


def _columns_equal(out):
    cols = out.detach().numpy().T
    return [bool((cols[i] == cols[0]).all()) for i in range(1, len(cols))]


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_randomness_matches_torch(name):
    torch.manual_seed(0)
    minigrad.manual_seed(0)
    theirs, ours = (PROGRAMS[name](lib) for lib in LIBS)
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    assert _rows_equal(ours) == _rows_equal(theirs)
    if name.startswith("outer"):
        assert _columns_equal(ours) == _columns_equal(theirs)


@pytest.mark.parametrize("lib", LIBS, ids=["torch", "minigrad"])
@pytest.mark.parametrize("op", ["randn", "rand_like", "dropout", "randint"])
def test_error_mode_refuses(lib, op):
    calls = {"randn": lambda a: a + lib.randn(4), "rand_like": lambda a: lib.rand_like(a),
             "dropout": lambda a: lib.nn.functional.dropout(a, 0.5),
             "randint": lambda a: lib.randint(0, 3, (4,))}
    with pytest.raises(RuntimeError, match="called random operation while in randomness "
                                           "error mode"):
        lib.func.vmap(calls[op])(lib.ones(3, 4))


def test_different_draws_follow_the_seed():
    minigrad.manual_seed(5)
    a = minigrad.func.vmap(lambda x: x + minigrad.randn(4), randomness="different")(
        minigrad.zeros(3, 4))
    minigrad.manual_seed(5)
    b = minigrad.randn(3, 4)  # the batch drawn at once, as the samples' numbers
    np.testing.assert_array_equal(a.numpy(), b.numpy())
