"""Scalar engine benchmark (``make bench-scalar``): minigrad.Value against micrograd.

The model and loss of micrograd's demo: ``MLP(2, [16, 16, 1])`` (337 parameters, relu
hidden layers, linear output) on 100 points of ``make_moons``, an SVM max-margin loss
plus L2 regularization. The same weights go into both libraries; one training step
(zero grads, forward, backward) is timed for each, interleaved, and the medians are
compared. The inputs are plain Python floats for both; micrograd's demo feeds numpy
rows, which makes its every number a slower ``np.float64`` (shown on a second line).
Then a 100,000-node chain: minigrad's time, micrograd's RecursionError.

Needs the ``bench`` extra (``pip install -e '.[bench]'``) for micrograd.
"""

import gc
import random
import statistics
import sys
import time

import numpy as np
from micrograd.engine import Value as MicroValue
from micrograd.nn import MLP as MicroMLP
from sklearn.datasets import make_moons

from minigrad import Value

REPEATS = 7
CHAIN = 100_000


class Neuron:
    """micrograd.nn.Neuron on minigrad.Value, with given weights."""

    def __init__(self, w, b, nonlin):
        self.w, self.b, self.nonlin = [Value(x) for x in w], Value(b), nonlin

    def __call__(self, x):
        act = sum((wi * xi for wi, xi in zip(self.w, x, strict=True)), self.b)
        return act.relu() if self.nonlin else act

    def parameters(self):
        return self.w + [self.b]


class MLP:
    """micrograd.nn.MLP on minigrad.Value, copying a micrograd model's weights."""

    def __init__(self, micro_model):
        self.layers = [[Neuron([w.data for w in n.w], n.b.data, n.nonlin) for n in layer.neurons]
                       for layer in micro_model.layers]

    def __call__(self, x):
        for layer in self.layers:
            x = [n(x) for n in layer]
        return x[0]

    def parameters(self):
        return [p for layer in self.layers for n in layer for p in n.parameters()]


def loss(model, value, X, y):
    """micrograd demo's loss: SVM max-margin plus 1e-4 * L2."""
    inputs = [list(map(value, row)) for row in X]
    scores = list(map(model, inputs))
    losses = [(1 + -yi * score).relu() for yi, score in zip(y, scores, strict=True)]
    data_loss = sum(losses) * (1.0 / len(losses))
    reg_loss = 1e-4 * sum(p * p for p in model.parameters())
    return data_loss + reg_loss


def train_step(model, value, X, y, collector):
    """Zero the grads, forward, backward; return the loss node and the seconds taken."""
    gc.collect()  # start every run from a clean heap (micrograd leaves cyclic garbage)
    if not collector:
        gc.disable()
    try:
        start = time.perf_counter()
        for p in model.parameters():
            p.grad = 0.0
        total = loss(model, value, X, y)
        total.backward()
        return total, time.perf_counter() - start
    finally:
        gc.enable()


def compare_step(micro_model, mini_model, X, y, collector=True):
    """Interleaved timings of both libraries; check they agree; return the medians.

    ``collector=False`` pauses Python's cyclic garbage collector during each step: that
    is the cost of the arithmetic and the graph alone.
    """
    mine, theirs = [], []
    for _ in range(REPEATS):
        mini_loss, t = train_step(mini_model, Value, X, y, collector)
        mine.append(t)
        micro_loss, t = train_step(micro_model, MicroValue, X, y, collector)
        theirs.append(t)
    grads_mini = [p.grad for p in mini_model.parameters()]
    grads_micro = [float(p.grad) for p in micro_model.parameters()]
    assert np.isclose(mini_loss.data, float(micro_loss.data), rtol=1e-12, atol=0)
    assert np.allclose(grads_mini, grads_micro, rtol=1e-9, atol=1e-15), "grads differ"
    return statistics.median(mine), statistics.median(theirs), mini_loss.data


def chain(value, n):
    """Build ``x + x + ... + x`` (n additions, depth n), backpropagate; return seconds."""
    start = time.perf_counter()
    x = value(0.5)
    v = x
    for _ in range(n):
        v = v + x
    v.backward()
    seconds = time.perf_counter() - start
    assert np.isclose(x.grad, n + 1)
    return seconds


def main():
    random.seed(1337)  # micrograd's demo seeds
    np.random.seed(1337)
    X, y = make_moons(n_samples=100, noise=0.1)
    y = y * 2 - 1
    micro_model = MicroMLP(2, [16, 16, 1])
    mini_model = MLP(micro_model)
    n_params = len(mini_model.parameters())
    assert n_params == len(micro_model.parameters()) == 337

    print(f"python {sys.version.split()[0]}; MLP(2, [16, 16, 1]), {n_params} parameters, "
          f"{len(X)} points; median of {REPEATS} interleaved train steps (zero, forward, "
          "backward)")
    floats, labels = X.tolist(), [int(v) for v in y]
    mine, theirs, value = compare_step(micro_model, mini_model, floats, labels)
    print(f"float inputs:  minigrad {mine * 1e3:7.1f} ms  micrograd {theirs * 1e3:7.1f} ms  "
          f"ratio {theirs / mine:4.1f}x  (same loss {value:.6f} and grads)")
    mine, theirs, _ = compare_step(micro_model, mini_model, X, y)
    print(f"numpy inputs:  minigrad {mine * 1e3:7.1f} ms  micrograd {theirs * 1e3:7.1f} ms  "
          f"ratio {theirs / mine:4.1f}x  (micrograd's demo feeds numpy rows)")
    mine, theirs, _ = compare_step(micro_model, mini_model, floats, labels, collector=False)
    print(f"no cyclic GC:  minigrad {mine * 1e3:7.1f} ms  micrograd {theirs * 1e3:7.1f} ms  "
          f"ratio {theirs / mine:4.1f}x  (float inputs; most of micrograd's time is the "
          "collector chasing its closures' reference cycles)")

    gc.collect()
    seconds = chain(Value, CHAIN)
    try:
        chain(MicroValue, CHAIN)
        micro = "ok"
    except RecursionError:
        micro = "RecursionError"
    print(f"{CHAIN:,}-node chain, build + backward: minigrad {seconds:.2f} s, "
          f"micrograd {micro} (recursion limit {sys.getrecursionlimit()})")


if __name__ == "__main__":
    main()
