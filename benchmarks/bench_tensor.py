"""Time one training step of minigrad, PyTorch (CPU) and hand-written numpy (chapter 10).

The course's workload: an MLP 64-128-10 (Linear, ReLU, Linear) on scikit-learn's
digits, batches of 128, cross-entropy, SGD with lr 0.1, float32, one thread. One step
is forward, loss, zero_grad, backward, step. The three run interleaved (round robin,
``--repeats`` rounds of ``--inner`` steps each) and the medians are compared as ratios.
Then it checks that minigrad's and torch's losses agree for a few steps from the same
initial weights, and runs ``--steps`` minigrad steps to show that memory does not grow.

Run with ``make bench-tensor`` (or ``python benchmarks/bench_tensor.py``).

Measured on the course machine (2 shared cores, numpy 2.4.6 with OpenBLAS, torch 2.13.0
CPU), default settings::

    minigrad 147 us/step, torch 220 us/step, numpy 116 us/step
    minigrad/torch 0.67, minigrad/numpy 1.27, torch/numpy 1.90
    10000 minigrad steps: resident memory 377.0 MB before and after (+0.0 MB)

minigrad's step is the hand-written numpy step plus about 25 us of Python bookkeeping
(four graph nodes: two fused linear layers, ReLU, fused cross-entropy). Here torch
takes about 2x the hand-written numpy, not 3x, so "half of torch" would mean faster
than the hand-written numpy itself, which the same numpy kernels cannot be.
"""

import argparse
import os

for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_name] = "1"

import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402
from sklearn.datasets import load_digits  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import minigrad  # noqa: E402

torch.set_num_threads(1)
LR = 0.1
BATCH = 128


def batches():
    """The digits as float32 batches of 128 (features scaled to [0, 1]) and int64 labels."""
    digits = load_digits()
    x = (digits.data / 16.0).astype(np.float32)
    y = digits.target.astype(np.int64)
    order = np.random.default_rng(0).permutation(len(x))
    x, y = x[order], y[order]
    n = len(x) // BATCH
    return [(x[i * BATCH:(i + 1) * BATCH], y[i * BATCH:(i + 1) * BATCH]) for i in range(n)]


def initial_weights(seed=0):
    """torch's init distribution, U(-1/sqrt(in), 1/sqrt(in)), drawn once with numpy."""
    rng = np.random.default_rng(seed)
    shapes = [((128, 64), 64), ((128,), 64), ((10, 128), 128), ((10,), 128)]
    return [rng.uniform(-1 / np.sqrt(n), 1 / np.sqrt(n), s).astype(np.float32) for s, n in shapes]


class MinigradRunner:
    def __init__(self, weights, data):
        nn = minigrad.nn
        self.model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
        params = list(self.model.parameters())
        for p, w in zip(params, weights, strict=True):
            p.data = minigrad.tensor(w)
        self.opt = minigrad.optim.SGD(params, lr=LR)
        self.data = [(minigrad.tensor(x), minigrad.tensor(y)) for x, y in data]

    def step(self, i):
        x, y = self.data[i % len(self.data)]
        loss = minigrad.nn.functional.cross_entropy(self.model(x), y)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss


class TorchRunner:
    def __init__(self, weights, data):
        nn = torch.nn
        self.model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
        with torch.no_grad():
            for p, w in zip(self.model.parameters(), weights, strict=True):
                p.copy_(torch.from_numpy(w))
        self.opt = torch.optim.SGD(self.model.parameters(), lr=LR)
        self.data = [(torch.from_numpy(x), torch.from_numpy(y)) for x, y in data]

    def step(self, i):
        x, y = self.data[i % len(self.data)]
        loss = torch.nn.functional.cross_entropy(self.model(x), y)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss


class NumpyRunner:
    """The same step written by hand: forward, loss, the backward of each layer, update."""

    def __init__(self, weights, data):
        self.w1, self.b1, self.w2, self.b2 = (w.copy() for w in weights)
        self.data = data
        self.rows = np.arange(BATCH)

    def step(self, i):
        x, y = self.data[i % len(self.data)]
        w1, b1, w2, b2, rows = self.w1, self.b1, self.w2, self.b2, self.rows
        h = x @ w1.T
        h += b1
        a = np.maximum(h, 0)
        z = a @ w2.T
        z += b2
        shifted = z - z.max(axis=1, keepdims=True)
        e = np.exp(shifted)
        total = e.sum(axis=1, keepdims=True)
        loss = (np.log(total[:, 0]) - shifted[rows, y]).mean()
        dz = e / total
        dz[rows, y] -= 1
        dz *= 1 / len(y)
        dw2, db2 = dz.T @ a, dz.sum(0)
        da = dz @ w2
        da *= a > 0
        dw1, db1 = da.T @ x, da.sum(0)
        w1 -= LR * dw1
        b1 -= LR * db1
        w2 -= LR * dw2
        b2 -= LR * db2
        return loss


def rss_mb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def time_steps(runner, start, inner):
    t0 = time.perf_counter()
    for i in range(start, start + inner):
        runner.step(i)
    return (time.perf_counter() - t0) / inner


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=50)
    parser.add_argument("--inner", type=int, default=100)
    parser.add_argument("--steps", type=int, default=10_000)
    args = parser.parse_args()

    data = batches()
    weights = initial_weights()
    runners = {"minigrad": MinigradRunner(weights, data), "torch": TorchRunner(weights, data),
               "numpy": NumpyRunner(weights, data)}

    # Same init, same batches: the losses of the first steps must agree.
    fresh = {name: type(r)(weights, data) for name, r in runners.items()}
    curves = {name: [r.step(i).item() for i in range(5)] for name, r in fresh.items()}
    agree = all(np.allclose(curves["minigrad"], curves[o], rtol=1e-4) for o in ("torch", "numpy"))

    for runner in runners.values():  # warm up
        time_steps(runner, 0, args.inner)
    times = {name: [] for name in runners}
    for rep in range(args.repeats):
        for name, runner in runners.items():
            times[name].append(time_steps(runner, rep * args.inner, args.inner))
    med = {name: statistics.median(ts) for name, ts in times.items()}

    print(f"MLP 64-128-10 on digits, batch {BATCH}, float32, 1 thread; median of "
          f"{args.repeats} rounds x {args.inner} steps")
    print(f"{'':10} {'us/step':>9}")
    for name, t in med.items():
        print(f"{name:10} {t * 1e6:9.1f}")
    print(f"minigrad/torch  {med['minigrad'] / med['torch']:.2f}")
    print(f"minigrad/numpy  {med['minigrad'] / med['numpy']:.2f}")
    print(f"torch/numpy     {med['torch'] / med['numpy']:.2f}")
    print("losses, first 5 steps, same init:")
    for name, curve in curves.items():
        print(f"  {name:9}" + " ".join(f"{v:.6f}" for v in curve))
    print(f"  minigrad agrees with torch and numpy (rtol 1e-4): {agree}")

    runner = MinigradRunner(weights, data)
    for i in range(100):
        runner.step(i)
    before = rss_mb()
    t0 = time.perf_counter()
    for i in range(args.steps):
        loss = runner.step(i)
    seconds = time.perf_counter() - t0
    after = rss_mb()
    print(f"{args.steps} minigrad steps in {seconds:.1f} s, final loss {float(loss):.4f}; "
          f"resident memory {before:.1f} MB before, {after:.1f} MB after "
          f"({after - before:+.1f} MB)")


if __name__ == "__main__":
    main()
