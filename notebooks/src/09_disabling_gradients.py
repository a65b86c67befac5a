# %% [markdown]
# # 09 Disabling gradients
#
# Recording a graph is not free: every op on a tensor that requires grad keeps a node,
# and the arrays its backward will need, until `backward()` runs. During evaluation,
# inference, or any computation we will never differentiate, that is wasted memory and
# time. This chapter shows the switches that turn recording off (`no_grad`,
# `inference_mode`, `set_grad_enabled`) and the knife that cuts one tensor out of the
# graph (`detach`), runs the evaluation snippets of the course's reference tutorial
# (see [Sources](../book/sources.md)) with minigrad, and then *measures* what recording
# keeps: arrays, bytes and time, in minigrad and in PyTorch.
#
# **Learning goals.** After this chapter you can
#
# 1. say what changes for a tensor computed under `no_grad`: `requires_grad=False`,
#    `grad_fn=None`, the same values;
# 2. use `no_grad`, `inference_mode`, `enable_grad` and `set_grad_enabled` as context
#    managers and as decorators, and predict which one wins when they nest;
# 3. tell `model.eval()` from `no_grad()` and `inference_mode()`, and know what torch
#    refuses to do with a tensor made in inference mode;
# 4. use `detach()` to stop the gradient along one path, and say why changing a tensor
#    through `.data` gives wrong gradients where `detach()` does not;
# 5. measure what a graph saves for backward, and how that grows with the batch;
# 6. freeze a parameter with `requires_grad_(False)`, so that backward gives it no
#    gradient and the optimizer leaves it alone.

# %%
import threading
import time
import tracemalloc

import matplotlib.pyplot as plt
import torch
from IPython.display import display

import minigrad
from minigrad import check, check_all, show_source
from minigrad.course.widgets.grad_modes_view import QUANTITIES, ModesComparison, modes_widget
from minigrad.course.graph_memory import saved_arrays, saved_bytes, torch_saved_tensors
from minigrad.course.tensor_graph import draw_tensor_graph, graph_nodes, total_saved_bytes

# %% [markdown]
# ## 1. What recording builds
#
# A small computation, $y = w x + b$, with $w$ requiring grad. While recording is on
# (the default), the result remembers the op that made it: `requires_grad=True` and a
# `grad_fn`, the graph node backward will visit. We print the flags of both libraries
# side by side and compare them through `check` (a `True` counts as 1).

# %%
def flags(t):
    """requires_grad, the name of grad_fn (or None), is_leaf."""
    return t.requires_grad, None if t.grad_fn is None else t.grad_fn.name(), t.is_leaf


w = minigrad.tensor(2.0, requires_grad=True)
w_t = torch.tensor(2.0, requires_grad=True)
y = w * 3.0 + 1.0
y_t = w_t * 3.0 + 1.0
print("minigrad:", flags(y))
print("torch:   ", flags(y_t))
check_all({"y": (y, y_t), "y.requires_grad": (y.requires_grad, y_t.requires_grad)}, brief=True)

# %% [markdown]
# ## 2. `no_grad`: compute, but record nothing
#
# The same lines inside `with no_grad():`. The value is the same; the result is a
# plain tensor: no `grad_fn`, `requires_grad=False`, a leaf.

# %%
with minigrad.no_grad():
    y = w * 3.0 + 1.0
with torch.no_grad():
    y_t = w_t * 3.0 + 1.0
print("minigrad:", flags(y))
print("torch:   ", flags(y_t))
check_all({"y under no_grad": (y, y_t),
           "y.requires_grad": (y.requires_grad, y_t.requires_grad)}, brief=True)

# %% [markdown]
# With no graph there is nothing to walk back through, so `backward()` refuses, with
# the same message in both libraries (minigrad adds a line on the fix):

# %% tags=raises-exception
y_t.backward()

# %% tags=raises-exception
y.backward()

# %% [markdown]
# How does an op know? The switches set a flag, `GRAD_ENABLED`, and every op reads it.
# The flag holds two bits of state: grad mode (what `is_grad_enabled()` returns) and
# whether we are inside `inference_mode()`; ops record only when grad mode is on and
# inference mode is off. A switch saves the flag on entry and puts it back on exit:

# %%
display(show_source(minigrad.autograd.grad_mode._GradMode.__enter__))
display(show_source(minigrad.autograd.grad_mode._GradMode.__exit__))

# %% [markdown]
# (`no_grad` sets `mode = False`, `enable_grad` `mode = True`; `inference_mode` has its
# own `__enter__`, which turns grad mode off and inference mode on.) Every op goes through
# `Function.apply` (chapter 05), which reads the flag before it runs the forward pass.
# These lines of it (in `minigrad/autograd/function.py`) decide whether to record a
# node: some input must require grad, *and* the flag must allow recording.
#
# ```python
# requires_grad = False
# for a in args:
#     if isinstance(a, Tensor) and a._requires_grad:
#         requires_grad = True
#         break
# record = requires_grad and GRAD_ENABLED.enabled
# ```

# %% [markdown]
# The flag belongs to the thread that set it, in torch and in minigrad: a thread
# started inside `no_grad()` records as usual. We ask `is_grad_enabled()` in the main
# thread and in a new thread, both inside `no_grad()`:

# %%
def grad_enabled_here_and_in_a_thread(lib):
    """is_grad_enabled() inside lib.no_grad(), in this thread and in a new one."""
    seen = {}
    with lib.no_grad():
        worker = threading.Thread(target=lambda: seen.update(other=lib.is_grad_enabled()))
        worker.start()
        worker.join()
        seen["this"] = lib.is_grad_enabled()
    return [seen["this"], seen["other"]]


print("minigrad [this thread, new thread]:", grad_enabled_here_and_in_a_thread(minigrad))
print("torch    [this thread, new thread]:", grad_enabled_here_and_in_a_thread(torch))
check("is_grad_enabled() under no_grad, this thread and a new one",
      grad_enabled_here_and_in_a_thread(minigrad), grad_enabled_here_and_in_a_thread(torch),
      brief=True)

# %% [markdown]
# ## 3. The tutorial's evaluation snippets, with minigrad
#
# The course's reference tutorial (see [Sources](../book/sources.md)), a tutorial on
# gradient computation in PyTorch from derivatives to common gradient problems,
# evaluates a model with
#
# ```python
# model.eval()
# with torch.no_grad():
#     pred = model(X)
# ```
#
# We make a `Linear(3, 1)` in torch, copy its weights into minigrad's, and run the
# snippet with `torch` replaced by `minigrad` (in float32, torch's default, as the
# tutorial does).

# %%
torch.manual_seed(0)
model_t = torch.nn.Linear(3, 1)
X_t = torch.randn(8, 3)
model = minigrad.nn.Linear(3, 1).load_state_dict(model_t.state_dict())
X = minigrad.tensor(X_t.numpy())

model.eval()
with minigrad.no_grad():
    pred = model(X)

model_t.eval()
with torch.no_grad():
    pred_t = model_t(X_t)
print("minigrad:", flags(pred), " torch:", flags(pred_t))
check("pred", pred, pred_t, atol=1e-6, brief=True)

# %% [markdown]
# And the `inference_mode` version. For the computation itself it does what `no_grad`
# does: the same values, no graph. torch's `inference_mode` also marks the tensors it
# makes as *inference tensors* and skips some bookkeeping for them (version counters)
# to run faster. minigrad marks them too (`is_inference()`); the values are the same.

# %%
model.eval()
with minigrad.inference_mode():
    pred = model(X)

model_t.eval()
with torch.inference_mode():
    pred_t = model_t(X_t)
print("minigrad:", flags(pred), " torch:", flags(pred_t))
check_all({"pred": (pred, pred_t), "an inference tensor": (pred.is_inference(),
                                                            pred_t.is_inference())},
          atol=1e-6, brief=True)

# %% [markdown]
# What the mark costs later: an inference tensor `p` may still enter a recorded
# computation, as long as backward needs nothing of it. `p + w` works (the gradient of
# a sum needs neither operand):

# %%
def made_in_inference_mode(lib):
    """The tensor [6, 8], computed inside lib.inference_mode()."""
    with lib.inference_mode():
        return lib.tensor([3.0, 4.0]) * 2


p_t, p = made_in_inference_mode(torch), made_in_inference_mode(minigrad)
w_t = torch.tensor([1.0, 2.0], requires_grad=True)
w = minigrad.tensor([1.0, 2.0], requires_grad=True)
print("torch:   ", p_t + w_t, " p is an inference tensor:", p_t.is_inference())
print("minigrad:", p + w, " p is an inference tensor:", p.is_inference())
check("p + w", p + w, p_t + w_t, brief=True)

# %% [markdown]
# But torch refuses to *save* an inference tensor for backward: the gradient of
# `p * w` with respect to `w` is `p`, so `p` would have to be saved. minigrad refuses
# with torch's message and adds the fix:

# %% tags=raises-exception
p_t = made_in_inference_mode(torch)
p_t * w_t

# %% tags=raises-exception
p = made_in_inference_mode(minigrad)
p * w

# %% [markdown]
# And both refuse to change an inference tensor in place outside inference mode:

# %% tags=raises-exception
p_t = made_in_inference_mode(torch)
p_t.add_(1.0)

# %% tags=raises-exception
p = made_in_inference_mode(minigrad)
p.add_(1.0)

# %% [markdown]
# The fix both messages suggest, a `clone()` outside inference mode, makes a normal
# tensor, which may be saved and changed:

# %%
p_t, p = made_in_inference_mode(torch), made_in_inference_mode(minigrad)
q_t, q = p_t.clone(), p.clone()
product, product_t = q * w, q_t * w_t
q.add_(1.0)
q_t.add_(1.0)
print("minigrad:", product, q, q.is_inference())
print("torch:   ", product_t, q_t, q_t.is_inference())
check_all({"p.clone() * w": (product, product_t), "p.clone().add_(1)": (q, q_t),
           "the clone is an inference tensor": (q.is_inference(), q_t.is_inference())}, brief=True)

# %% [markdown]
# **`eval()` is not `no_grad()`.** `model.eval()` only sets `model.training = False`,
# which changes layers that behave differently in training (dropout, batch norm);
# it does not stop recording. Without `no_grad`, an evaluated model still builds a
# graph:

# %%
model.eval()
model_t.eval()
pred = model(X)
pred_t = model_t(X_t)
print("training:", model.training, model_t.training)
print("minigrad:", flags(pred), " torch:", flags(pred_t))
check_all({"pred": (pred, pred_t), "pred.requires_grad": (pred.requires_grad,
                                                          pred_t.requires_grad)},
          atol=1e-6, brief=True)

# %% [markdown]
# ## 4. Context managers, decorators, and nesting
#
# `no_grad`, `enable_grad` and `inference_mode` also work as decorators, with or
# without parentheses; `set_grad_enabled(mode)` too, with its argument. The function
# then always runs with recording off (or on), whatever the caller has set.

# %%
@minigrad.no_grad
def double(x):
    return x * 2


@torch.no_grad()
def double_t(x):
    return x * 2


a = minigrad.ones(3, requires_grad=True)
a_t = torch.ones(3, requires_grad=True)
print("minigrad:", flags(double(a)), " torch:", flags(double_t(a_t)))
check_all({"double(a)": (double(a), double_t(a_t)),
           "requires_grad": (double(a).requires_grad, double_t(a_t).requires_grad)}, brief=True)

# %% [markdown]
# `no_grad`, `enable_grad` and `set_grad_enabled` nest, and the innermost one wins;
# leaving a block restores what was in force before it. `set_grad_enabled(mode)` takes
# a bool, which makes it the switch for code shared by training (`True`) and
# evaluation (`False`). We record
# `is_grad_enabled()` at each level, in both libraries.

# %%
def nesting(lib):
    """is_grad_enabled() at each level of some nested switches."""
    levels = [lib.is_grad_enabled()]
    with lib.no_grad():
        levels.append(lib.is_grad_enabled())
        with lib.enable_grad():
            levels.append(lib.is_grad_enabled())
            with lib.set_grad_enabled(False):
                levels.append(lib.is_grad_enabled())
            levels.append(lib.is_grad_enabled())
        levels.append(lib.is_grad_enabled())
    levels.append(lib.is_grad_enabled())
    return levels


print("minigrad:", nesting(minigrad))
print("torch:   ", nesting(torch))
check("is_grad_enabled at each level", nesting(minigrad), nesting(torch), brief=True)

# %% [markdown]
# `inference_mode()` is the exception: a nested `enable_grad()` cannot switch recording
# back on inside it. `is_grad_enabled()` says True there, yet `w * 2` gets no `grad_fn`
# in torch. minigrad does the same, since an op records only when grad mode is on *and*
# inference mode is off (the flag of section 2):

# %%
def inside_inference_then_enable_grad(lib):
    """is_grad_enabled(), and does w * 2 record, under inference_mode() + enable_grad()?"""
    weight = lib.tensor([1.0, 2.0], requires_grad=True)
    with lib.inference_mode(), lib.enable_grad():
        doubled = weight * 2
        return [lib.is_grad_enabled(), doubled.grad_fn is not None, doubled.requires_grad]


print("minigrad [is_grad_enabled, grad_fn recorded, requires_grad]:",
      inside_inference_then_enable_grad(minigrad))
print("torch    [is_grad_enabled, grad_fn recorded, requires_grad]:",
      inside_inference_then_enable_grad(torch))
check("inference_mode() then enable_grad()", inside_inference_then_enable_grad(minigrad),
      inside_inference_then_enable_grad(torch), brief=True)

# %% [markdown]
# ## 5. `detach()`: cut one tensor out of the graph
#
# The switches act on everything computed inside them. `detach()` acts on one tensor:
# it returns the same numbers (the same memory, not a copy) as a leaf that does not
# require grad. Whatever is computed from the detached tensor is, for backward, a
# constant. Take $y = x \cdot \mathrm{detach}(x)$: the value is $x^2$, but the gradient
# only flows through the first factor, so it is $x$, not $2x$.

# %%
x = minigrad.tensor([1.0, 2.0, 3.0], dtype=minigrad.float64, requires_grad=True)
x_t = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
(x * x.detach()).sum().backward()
(x_t * x_t.detach()).sum().backward()
print(x.grad)  # x, not 2x
check("x.grad of sum(x * x.detach())", x.grad, x_t.grad)

# %% [markdown]
# The detached tensor shares memory with the original, and also its *version
# counter*: the count of in-place changes that backward uses to notice that a value it
# saved has changed (chapter 12). Here `y = sum(x ** 2)` saves `x`; we then change `x`
# through its detached copy `d`. `d` does not require grad, so no `no_grad()` is needed
# for `d.add_`; both tensors see the new values, and both versions go to 1:

# %%
x = minigrad.tensor([1.0, 2.0], requires_grad=True)
x_t = torch.tensor([1.0, 2.0], requires_grad=True)
y = (x ** 2).sum()
y_t = (x_t ** 2).sum()
d = x.detach()
d_t = x_t.detach()
print("minigrad:", flags(d), " torch:", flags(d_t))
d.add_(10.0)
d_t.add_(10.0)
print(f"minigrad: x._version {x._version}, d._version {d._version}")
print(f"torch:    x._version {x_t._version}, d._version {d_t._version}")
check_all({"x after d.add_(10)": (x, x_t), "x._version": (x._version, x_t._version),
           "d._version": (d._version, d_t._version)}, brief=True)

# %% [markdown]
# So backward knows that the `x` it saved is gone, and refuses, in both libraries:

# %% tags=raises-exception
y_t.backward()

# %% tags=raises-exception
y.backward()

# %% [markdown]
# **`detach()` versus `.data`.** Old code changes a tensor through `.data` instead.
# `.data` also shares the memory, but not the version counter: the change is invisible
# to autograd, and backward silently uses the new values. The same lines in both
# libraries (in both, `.data` is a tensor sharing the numbers, cut from the graph):

# %%
x = minigrad.tensor([1.0, 2.0], requires_grad=True)
x_t = torch.tensor([1.0, 2.0], requires_grad=True)
y = (x ** 2).sum()
y_t = (x_t ** 2).sum()
x.data += 10
x_t.data += 10
y.backward()
y_t.backward()
print("minigrad:", x.grad, " version", x._version)
print("torch:   ", x_t.grad, " version", x_t._version)
check_all({"x.grad after a change through .data": (x.grad, x_t.grad),
           "x._version": (x._version, x_t._version),
           "x.grad = 2 * (x after the change)": (x.grad, 2 * x.detach(), "formula")})

# %% [markdown]
# The gradient of $\sum x^2$ at the $x = [1, 2]$ the forward pass saw is $2x = [2, 4]$;
# both libraries give $[22, 24]$, twice the *changed* $x$, without a word. Change
# values through `detach()` (or under `no_grad()` on the tensor itself, as an
# optimizer does, after backward), and autograd can tell you when it matters.

# %% [markdown]
# ## 6. What is saved for backward, and what it costs
#
# To compute gradients, backward needs values from the forward pass: the derivative
# of $w x$ with respect to $w$ is $x$, so $x$ must be kept; a ReLU keeps its output to
# know where it was positive. Each op hands these to `ctx.save_for_backward`, and they
# live as long as the graph. Here is what a linear layer keeps:

# %%
show_source(minigrad.ops.linear.Linear.forward)

# %% [markdown]
# `minigrad.course.graph_memory` walks a graph and lists the saved arrays; for torch it
# installs torch's hooks on saved tensors (`torch.autograd.graph.saved_tensors_hooks`)
# and lists what torch packs. We leave out the parameters, which are in memory
# anyway. A two-layer network on a batch of 64:

# %%
torch.manual_seed(1)
mlp_t = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.ReLU(), torch.nn.Linear(256, 10))
mlp = minigrad.nn.Sequential(minigrad.nn.Linear(64, 256), minigrad.nn.ReLU(),
                             minigrad.nn.Linear(256, 10))
mlp.load_state_dict(mlp_t.state_dict())
batch_t = torch.randn(64, 64)
batch = minigrad.tensor(batch_t.numpy())

out = mlp(batch)
out_t, saved_t = torch_saved_tensors(lambda: mlp_t(batch_t), exclude=list(mlp_t.parameters()))
ours_saved = saved_arrays(out, exclude=list(mlp.parameters()))
print("minigrad saves:", [a.shape for a in ours_saved])
print("torch saves:   ", [shape for shape, _ in saved_t])
check_all({"out": (out, out_t),
           "bytes saved": (saved_bytes(out, list(mlp.parameters())),
                           sum(b for _, b in saved_t))}, atol=1e-6, brief=True)

# %% [markdown]
# Both keep the input batch (for the first layer's weight gradient) and the hidden
# activation (for the ReLU and the second layer): $64 \times (64 + 256)$ float32
# numbers, 80 KiB. Here are both graphs, drawn by `minigrad.course.tensor_graph`,
# minigrad's above torch's: one box per node, with what it saved and its bytes (`leaf`
# marks a parameter's data, held anyway). The two libraries save the same arrays;
# torch's graph has two nodes more (9 against 7), a `TBackward0` for each layer's
# transposed weight, which minigrad's fused linear node does without:

# %%
nodes, nodes_t = graph_nodes(out), graph_nodes(out_t)
print("nodes, minigrad:", [node.name for node in nodes])
print("nodes, torch:   ", [node.name for node in nodes_t])
display(check_all({
    "torch's nodes minus minigrad's: one TBackward0 per layer":
        (len(nodes_t) - len(nodes), 2, "by hand"),
    "TBackward0 nodes in torch's graph":
        (sum(node.name == "TBackward0" for node in nodes_t), 2, "by hand")}))
display(check("bytes saved, parameters left out", total_saved_bytes(nodes, leaves=False),
              total_saved_bytes(nodes_t, leaves=False), brief=True))
display(draw_tensor_graph(out, title="minigrad"))
draw_tensor_graph(out_t, title="torch")

# %% [markdown]
# Under `no_grad`, nothing: there is no graph to draw.

# %%
with minigrad.no_grad():
    out = mlp(batch)
with torch.no_grad():
    out_t, saved_t = torch_saved_tensors(lambda: mlp_t(batch_t))
print("minigrad:", flags(out), len(saved_arrays(out)), "arrays saved")
print("torch:   ", flags(out_t), len(saved_t), "tensors saved")
check_all({"out under no_grad": (out, out_t),
           "bytes saved under no_grad": (saved_bytes(out), sum(b for _, b in saved_t))},
          atol=1e-6, brief=True)

# %% [markdown]
# The saved activations grow in step with the batch (and with the depth of the
# network), while the parameters stay the same size. For a large batch, the graph, not
# the model, is what fills the memory:

# %%
batch_sizes = [1, 16, 64, 256, 1024]
ours_kib, torch_kib = [], []
for n in batch_sizes:
    rows_t = torch.randn(n, 64)
    ours_kib.append(saved_bytes(mlp(minigrad.tensor(rows_t.numpy())),
                                list(mlp.parameters())) / 1024)
    _, saved_t = torch_saved_tensors(lambda r=rows_t: mlp_t(r), exclude=list(mlp_t.parameters()))
    torch_kib.append(sum(b for _, b in saved_t) / 1024)
param_kib = sum(p.detach().numpy().nbytes for p in mlp.parameters()) / 1024

fig, ax = plt.subplots(figsize=(6, 3.5))
ax.loglog(batch_sizes, ours_kib, "o-", label="saved for backward, minigrad")
ax.loglog(batch_sizes, torch_kib, "k:", label="saved for backward, torch")
ax.axhline(param_kib, color="gray", ls="--", label="the parameters")
ax.set(xlabel="batch size", ylabel="KiB", title="memory a recorded forward pass keeps")
ax.legend()
plt.show()
check("saved KiB at each batch size", ours_kib, torch_kib, brief=True)

# %% [markdown]
# When training must record and the activations still do not fit, the standard answer
# is *activation checkpointing* (`torch.utils.checkpoint`, chapter 16): record only
# some of the activations, and recompute the others from them during backward, trading
# a second forward pass through a segment for its memory.

# %% [markdown]
# `backward()` frees the saved arrays as it goes (unless `retain_graph=True`): that is
# why a second `backward()` through the same graph fails (chapter 12).

# %%
mlp.zero_grad()  # gradients from this batch alone
mlp_t.zero_grad()
loss = mlp(batch).sum()
loss_t = mlp_t(batch_t).sum()
before = saved_bytes(loss)
loss.backward()
loss_t.backward()
print(f"saved (weights included) before backward: {before / 1024:.0f} KiB, "
      f"after: {saved_bytes(loss)} bytes")
check("first layer's weight.grad", mlp[0].weight.grad, mlp_t[0].weight.grad, atol=1e-4, brief=True)

# %% [markdown]
# **Measured: memory.** The counts above are what the graph holds by construction.
# Python's `tracemalloc` (which sees numpy's allocations) measures it directly: the
# memory still held after a forward pass of a batch of 1024, with and without
# recording. The numbers depend on the machine, so they are not compared.

# %% tags=nbval-ignore-output
def held_after_forward(grad_enabled):
    """KiB still allocated while the output of a forward pass is alive."""
    rows = minigrad.randn(1024, 64)
    tracemalloc.start()
    with minigrad.set_grad_enabled(grad_enabled):
        result = mlp(rows)
    held = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    del result
    return held / 1024


minigrad.manual_seed(0)
print(f"recording on:  {held_after_forward(True):7.0f} KiB held")
print(f"recording off: {held_after_forward(False):7.0f} KiB held")

# %% [markdown]
# With recording on, the forward pass keeps about 1 MiB alive: the hidden activation
# ($1024 \times 256$ float32 numbers, as counted above) plus the output (40 KiB; the
# input was allocated before the measurement started). With it off, only the output.
#
# **Measured: time.** Recording costs time too: a node per op, and the arrays kept
# alive. We time 20 forward passes of a batch of 64 in each library, best of 3.

# %% tags=nbval-ignore-output
def best_time(forward, repeat=3, number=20):
    """Best of `repeat` timings of `number` calls, in microseconds per call."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            forward()
        times.append((time.perf_counter() - start) / number)
    return min(times) * 1e6


for lib, net, rows in [(minigrad, mlp, batch), (torch, mlp_t, batch_t)]:
    with lib.enable_grad():
        on = best_time(lambda net=net, rows=rows: net(rows))
    with lib.no_grad():
        off = best_time(lambda net=net, rows=rows: net(rows))
    print(f"{lib.__name__:8s}  recording on {on:6.0f} us   off {off:6.0f} us")

# %% [markdown]
# On a network this small, the matrix products dominate and recording adds little
# time; the memory is the larger cost. For evaluation, wrap the forward pass in
# `no_grad()` (or `inference_mode()`) anyway: it costs nothing and saves both.
#
# ## 7. Four switches, side by side
#
# `no_grad()`, `inference_mode()`, `detach()` and `model.eval()` are easy to confuse.
# We run one batch of 8 through a network with a dropout layer (`Linear(16, 32)`,
# `ReLU`, `Dropout(0.5)`, `Linear(32, 4)`, the same weights in both libraries) under
# each, and measure in both: does the output have a `grad_fn`, does it require grad,
# is it an inference tensor, how many bytes did the forward pass save for backward
# (parameters left out), and did dropout change anything? minigrad's `nn.Dropout` works
# as torch's does on the CPU: it multiplies by a random mask of zeros and
# $1 / (1 - p) = 2$, and the product's node (`MulBackward0`) saves the mask. The table
# shows torch's values; minigrad's are checked against them below it.
#
# The measuring is done by `ModesComparison` (in `minigrad.course.widgets`, so that the
# widget below can redo it): it runs the batch through both networks under the chosen
# switches, and reads the output's `grad_fn`, `requires_grad` and `is_inference()`;
# "bytes saved" is section 6's count (what the graph holds for backward, parameters
# left out: `saved_bytes` in minigrad, the saved-tensor hooks in torch); and "dropout
# active" compares the dropout layer's input with its output.

# %%
settings = [(), ("no_grad",), ("inference_mode",), ("detach",), ("eval",)]
four_switches = ModesComparison(seed=0)
measured = {modes: four_switches.run(modes, batch=8) for modes in settings}


def shown(value):
    return ("yes" if value else "no") if isinstance(value, bool) else value


print(f"{'torch':28s}" + "".join(f"{', '.join(m) or 'training':>16s}" for m in settings))
for i, quantity in enumerate(QUANTITIES):
    print(f"{quantity:28s}" + "".join(f"{shown(measured[m][i].torch):>16}" for m in settings))
check_all({f"{quantity}, in each column": ([measured[m][i].minigrad for m in settings],
                                           [measured[m][i].torch for m in settings])
           for i, quantity in enumerate(QUANTITIES) if quantity != "inference tensor"}, brief=True)

# %% [markdown]
# Read it column by column:
#
# - **`no_grad()`**: no graph and nothing saved; dropout still drops, since the model
#   is still in training mode.
# - **`inference_mode()`**: the same, and torch marks the output as an inference tensor.
# - **`detach()`** on the output: the result has no `grad_fn`, but the forward pass
#   had already saved its 3,584 bytes. Detaching afterwards does not spare them (they go
#   when the graph is no longer referenced); switch recording off *before* the forward.
# - **`eval()`**: recording goes on (a `grad_fn`, and bytes saved), but dropout is off,
#   so no mask is saved: 1,536 bytes, the input and the hidden activation.
#
# `eval()` changes the graph itself: in training, the dropout's `MulBackward0` sits
# between the ReLU and the last layer, saving its mask; in eval it is gone. (The
# drawings' titles count the saved parameters too, the entries marked `leaf`.)

# %%
def mul_nodes(root):
    """How many MulBackward0 nodes (here: dropout's) the graph behind root has."""
    return [node.name for node in graph_nodes(root)].count("MulBackward0")


four_switches.run((), batch=8)
train_out, train_out_t = four_switches.outputs
four_switches.run(("eval",), batch=8)
eval_out, eval_out_t = four_switches.outputs
display(check_all({"MulBackward0 nodes, training": (mul_nodes(train_out), mul_nodes(train_out_t)),
                   "MulBackward0 nodes, eval": (mul_nodes(eval_out), mul_nodes(eval_out_t))}))
display(draw_tensor_graph(train_out, title="minigrad, training"))
draw_tensor_graph(train_out_t, title="torch, training")

# %%
display(draw_tensor_graph(eval_out, title="minigrad, eval"))
draw_tensor_graph(eval_out_t, title="torch, eval")

# %% [markdown]
# **Try it.** Switch the modes on and off, alone and together, and move the batch size:
# the table is measured again in both libraries each time, and the plot shows the bytes
# saved against the batch size for the switches you chose (minigrad's dots, torch's
# dotted line). Which switches change the bytes? Which change dropout? What do
# `no_grad` and `eval` give together? (The widget needs a live kernel: run the notebook
# to use it.)

# %% tags=nbval-ignore-output
modes_widget(ModesComparison(seed=0), batch=8)

# %% [markdown]
# ## Exercises
#
# How the exercises work: see [Exercises](../book/exercises.md).
#
# ### Exercise 9.1: a prediction function that never records (2 points)
#
# Write `predict(net, inputs)` that returns `net(inputs)` computed without recording a
# graph, *whatever* the caller has switched on, using one of the switches as a
# decorator rather than a `with` block. Afterwards, recording must be exactly as the
# caller left it: on for the training code that follows, off if the caller had it
# off. The check wraps `net` to see what the net itself recorded, and calls `predict`
# once with recording on and once with it off.
#
# <details><summary>Hint</summary>
#
# Section 4 shows the switches as decorators. Every one of them restores the caller's
# setting when the function returns; which ones turn recording *off* inside it? (What
# does not restore anything is calling `set_grad_enabled(False)` as a plain statement.)
# Detaching the result is not enough: by then the net has recorded its graph.
# </details>

# %% solution=ex09-predict
### BEGIN SOLUTION
@minigrad.no_grad()
def predict(net, inputs):
    """net(inputs), computed without recording a graph."""
    return net(inputs)
### END SOLUTION

# %% test=ex09-predict-test points=2
import torch

import minigrad
from minigrad.course.grading import graded
from minigrad.course.graph_memory import saved_arrays

with graded("Exercise 9.1", hint="use a switch that turns recording off as a decorator: "
            "it holds only while the function runs, then restores the caller's setting") as g:
    at_start = (minigrad.is_grad_enabled(), torch.is_grad_enabled())
    minigrad.set_grad_enabled(True)  # a failure below must not leave recording off
    torch.set_grad_enabled(True)
    g.require("recording is on when the check starts", at_start == (True, True),
              "your cell switched recording off for every cell after it")

    class Recorded(minigrad.nn.Module):
        """A net that keeps each output as it returned it, before predict can detach it."""

        def __init__(self, net):
            super().__init__()
            self.net, self.outputs = net, []

        def forward(self, x):
            self.outputs.append(self.net(x))
            return self.outputs[-1]

    def check_predict(shape_in, n_out, seed, caller):
        torch.manual_seed(seed)
        theirs = torch.nn.Linear(shape_in[-1], n_out, dtype=torch.float64)
        ours = minigrad.nn.Linear(shape_in[-1], n_out, dtype=minigrad.float64)
        ours.load_state_dict(theirs.state_dict())
        inputs_t = torch.randn(*shape_in, dtype=torch.float64)
        net = Recorded(ours)
        label = f"{shape_in} -> {n_out}, caller {caller}"
        switch = minigrad.enable_grad if caller == "on" else minigrad.no_grad
        with switch(), torch.enable_grad():
            pred = g.call(predict, net, minigrad.tensor(inputs_t.numpy().copy()))
            after = (minigrad.is_grad_enabled(), torch.is_grad_enabled())
            training = ours(minigrad.tensor(inputs_t.numpy().copy()))
        g.require(f"{label}: recording after the call",
                  after == (caller == "on", True),
                  f"recording is {after} (minigrad, torch) after predict: switch it off "
                  "only while predict runs, and only minigrad's", mistakes={
                      "left-off": ("recording stays off after your predict: what was it "
                                   "before the call?", caller == "on" and not after[0]),
                      "forced-on": ("recording is on after your predict where the caller "
                                    "had it off: what was it before the call?",
                                    caller == "off" and after[0]),
                      "torch-left-off": ("torch's recording is off after your predict: "
                                         "which library's switch does the net use?",
                                         after[0] == (caller == "on") and not after[1])})
        if caller == "on":
            g.require(f"{label}: training code after it records",
                      training.grad_fn is not None, "recording must be back on after predict")
        g.require(f"{label}: result without a graph",
                  type(pred) is minigrad.Tensor and pred.grad_fn is None
                  and not pred.requires_grad, "return the net's output, computed without recording",
                  mistakes={"recorded": ("your result carries a graph: was minigrad's "
                                         "recording off while the net ran?",
                                         type(pred) is minigrad.Tensor
                                         and pred.grad_fn is not None)})
        g.require(f"{label}: net recorded nothing",
                  len(net.outputs) == 1 and all(o.grad_fn is None and saved_arrays(o) == []
                                                for o in net.outputs),
                  "call net(inputs) once, with recording off while it runs (a graph built "
                  "and then detached has already cost its memory)", mistakes={
                      "detached-after": ("the net built its graph and your result was cut "
                                         "from it afterwards: when must recording be off?",
                                         len(net.outputs) == 1
                                         and net.outputs[0].grad_fn is not None)})
        with torch.no_grad():
            reference = theirs(inputs_t)
        g.check(f"{label}: predict(net, inputs)", pred, reference, rtol=1e-12)

    check_predict((5, 4), 2, seed=91, caller="on")
    check_predict((5, 4), 2, seed=91, caller="off")
    ### BEGIN HIDDEN TESTS
    check_predict((3, 6), 1, seed=92, caller="on")
    check_predict((1, 3), 4, seed=93, caller="off")
    check_predict((2, 3, 5), 3, seed=94, caller="on")
    check_predict((7, 2), 2, seed=95, caller="on")
    ### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 9.2: stop the gradient through a normalisation (2 points)
#
# Write `normalised_backward(p, c)`: from a tensor `p` that requires grad and a tensor
# `c` of the same shape, compute $u = p / \lVert p \rVert$ where the norm
# $\lVert p \rVert = \sqrt{\sum_i p_i^2}$ (over all entries) is treated as a
# **constant**, then $L = \sum_i u_i c_i$; call `backward()` on $L$ once and return
# $L$. Then `p.grad` holds $c / \lVert p \rVert$. The worked example is
# `p = [3.0, -4.0, 12.0]`, `c = [1.0, 2.0, -1.0]`, whose norm is 13.
#
# <details><summary>Hint</summary>
#
# Section 5 shows how to make a tensor a constant for backward without copying it.
# Which tensor must be the constant here: the norm, or `p` itself? Without it, the
# gradient would get a second term, through the norm.
# </details>

# %% solution=ex09-detach
def normalised_backward(p, c):
    """L = sum(p / ||p|| * c) with the norm detached; backward() on L; return L."""
    ### BEGIN SOLUTION
    norm9 = ((p.detach() ** 2).sum()) ** 0.5
    objective = (p / norm9 * c).sum()
    objective.backward()
    return objective
    ### END SOLUTION

# %% test=ex09-detach-test points=2
import numpy as np
import torch

import minigrad
from minigrad.course.grading import graded
from minigrad.course.raised import raised

with graded("Exercise 9.2", hint="compare p.grad with c / ||p||: along which path from L "
            "back to p should backward() not go?") as g:
    def check_normalised(p_values, c_values, label):
        p_np = np.array(p_values, dtype=np.float64)
        p = minigrad.tensor(p_np.copy(), dtype=minigrad.float64, requires_grad=True)
        c = minigrad.tensor(np.array(c_values, dtype=np.float64))
        before = g.calls.get("minigrad.autograd", 0)
        loss = g.call(normalised_backward, p, c, forbid="torch.autograd",
                      count="minigrad.autograd", mistakes={
                          "p-detached": ("backward() found nothing to go back through: "
                                         "which part of L should stay out of the graph, "
                                         "and which must stay in?",
                                         raised(RuntimeError, "does not require grad"))})
        calls = g.calls["minigrad.autograd"] - before
        g.require(f"{label}: one backward()", calls == 1,
                  f"call backward() on L once (it was called {calls} times)")
        g.require(f"{label}: L is a minigrad.Tensor with a graph",
                  type(loss) is minigrad.Tensor and loss.grad_fn is not None,
                  "return L, computed from p with recording on")
        g.require(f"{label}: p unchanged, recording still on",
                  np.array_equal(p.detach().numpy(), p_np) and minigrad.is_grad_enabled(),
                  "do not change p, and leave recording on")
        p_t = torch.tensor(p_values, dtype=torch.float64, requires_grad=True)
        c_t = torch.tensor(c_values, dtype=torch.float64)
        loss_t = (p_t / p_t.detach().norm() * c_t).sum()
        loss_t.backward()
        pc, norm = float((p_np * np.array(c_values)).sum()), float(np.linalg.norm(p_np))
        g.check(f"{label}: L", loss, loss_t, rtol=1e-12, mistakes={
            "squared-norm": ("your L is divided by the squared length of p: how long is p?",
                             pc / norm ** 2),
            "rms-norm": ("your L is divided by the root mean square of p: is that p's "
                         "length?", pc / np.sqrt((p_np ** 2).mean())),
            "norm-fixed-13": ("your L uses the worked example's length 13: how long is this "
                              "p?", pc / 13),
            "ignores-c": ("your L uses the worked example's c: which c is given?",
                          lambda: float((p_np * np.array([1.0, 2.0, -1.0])).sum()) / norm)})
        p_full = torch.tensor(p_values, dtype=torch.float64, requires_grad=True)
        (p_full / p_full.norm() * c_t).sum().backward()
        g.check(f"{label}: p.grad", p.grad, p_t.grad, rtol=1e-12, mistakes={
            "norm-not-detached": ("your p.grad has a second term, from the path through the "
                                  "length of p: which path should backward() not take?",
                                  p_full.grad)})

    check_normalised([3.0, -4.0, 12.0], [1.0, 2.0, -1.0], "p = [3, -4, 12]")
    ### BEGIN HIDDEN TESTS
    check_normalised([3.0, -4.0, 12.0], [0.5, -1.5, 2.0], "the same p, another c")
    check_normalised([1.0, 2.0, 2.0, -0.5, 0.25], [2.0, -1.0, 0.5, 3.0, 1.0], "5 entries")
    check_normalised([[0.3, -1.2, 2.0], [1.0, 0.0, -0.7]],
                     [[1.0, 1.0, -2.0], [0.5, -0.25, 4.0]], "a 2 x 3 tensor")
    check_normalised([0.001, -0.002], [1.0, 1.0], "a small p")
    ### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 9.3: freeze part of a model, train the rest (2 points)
#
# The switches of this chapter act on everything computed inside them, and `detach()`
# on one result. The third switch acts on a leaf itself: `p.requires_grad_(False)`
# makes the parameter `p` a constant for autograd, from then on, in every forward pass.
# That is how a model is trained in part, as when a pretrained layer is kept and only
# the layers after it learn (fine-tuning).
#
# Write `train_frozen(model, frozen, batches, lr)`: `model` is a
# `minigrad.nn.Sequential` and `frozen` a list of some of its modules. Freeze every
# parameter of the modules in `frozen`, then train the rest of `model` with
# `minigrad.optim.SGD` (learning rate `lr`, `momentum=0.9`): one step per pair `(x, y)`
# in `batches`, on the mean squared error of `model(x)` against `y`. Return the list of
# the losses, as floats, one per step. When it returns, every frozen parameter must
# still be frozen, hold the value it came with, and have no `.grad`; the others must
# hold what torch's SGD gives on the same model and data. The check switches torch's
# autograd off while your code runs, and uses other models, other frozen modules and
# other data when you hand in.
#
# <details><summary>Hint</summary>
#
# Ask of each parameter, at each step: does backward reach it, and does the optimizer
# move it? A frozen one must answer no to both, from the first step to the last.
# Chapter 10's training step (clear, forward, backward, step) does the rest.
# </details>

# %% solution=ex09-freeze
def train_frozen(model, frozen, batches, lr):
    """Freeze the modules in frozen; train the rest with SGD; the losses, one per step."""
    ### BEGIN SOLUTION
    for module in frozen:
        for param in module.parameters():
            param.requires_grad_(False)
    trainable = [param for param in model.parameters() if param.requires_grad]
    optimizer9 = minigrad.optim.SGD(trainable, lr=lr, momentum=0.9)
    losses9 = []
    for x, y in batches:
        optimizer9.zero_grad()
        loss9 = ((model(x) - y) ** 2).mean()
        loss9.backward()
        optimizer9.step()
        losses9.append(loss9.item())
    return losses9
    ### END SOLUTION

# %% test=ex09-freeze-test points=2
import copy

import numpy as np  # noqa: F811 - a test cell imports what it uses
import torch

import minigrad
from minigrad.course.grading import graded
from minigrad.course.mistakes import matches

with graded("Exercise 9.3", hint="for each parameter, ask at every step whether "
            "backward reaches it and whether the optimizer moves it") as g:
    def trained_as(theirs, start, frozen_at, data, lr, how):
        """Losses and parameters of torch's model trained with a common mistake (how)."""
        model = copy.deepcopy(theirs)
        model.load_state_dict(start)
        frozen = [p for i in frozen_at for p in model[i].parameters()]
        for p in model.parameters():
            p.requires_grad_(how == "frozen-late" or all(p is not q for q in frozen))
        optimizer = torch.optim.SGD([p for p in model.parameters() if p.requires_grad],
                                    lr=lr, momentum=0.9)
        losses = []
        for x, y in data:
            if how != "grads-pile-up":
                optimizer.zero_grad()
            loss = ((model(x) - y) ** 2).mean()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
            for p in frozen if how == "frozen-late" else []:
                p.requires_grad_(False)
                p.grad = None
        return losses, {k: v.detach() for k, v in model.named_parameters()}

    def check_frozen(sizes, frozen_at, batch_sizes, lr, seed):
        torch.manual_seed(seed)
        modules_t = []
        for a, b in zip(sizes, sizes[1:], strict=False):
            modules_t += [torch.nn.Linear(a, b, dtype=torch.float64), torch.nn.ReLU()]
        theirs = torch.nn.Sequential(*modules_t[:-1])
        ours = minigrad.nn.Sequential(*[
            minigrad.nn.Linear(m.in_features, m.out_features, dtype=minigrad.float64)
            if isinstance(m, torch.nn.Linear) else minigrad.nn.ReLU() for m in theirs])
        ours.load_state_dict(theirs.state_dict())
        start = {k: v.detach().clone() for k, v in theirs.state_dict().items()}
        data = [(torch.randn(n, sizes[0], dtype=torch.float64),
                 torch.randn(n, sizes[-1], dtype=torch.float64)) for n in batch_sizes]
        batches = [(minigrad.tensor(x.numpy().copy()), minigrad.tensor(y.numpy().copy()))
                   for x, y in data]
        label = f"sizes {sizes}, frozen {frozen_at}, lr {lr}"
        losses = g.call(train_frozen, ours, [ours[i] for i in frozen_at], batches, lr,
                        forbid="torch.autograd")
        for i in frozen_at:
            for p in theirs[i].parameters():
                p.requires_grad_(False)
        optimizer_t = torch.optim.SGD([p for p in theirs.parameters() if p.requires_grad],
                                      lr=lr, momentum=0.9)
        reference = []
        for x, y in data:
            optimizer_t.zero_grad()
            loss_t = ((theirs(x) - y) ** 2).mean()
            loss_t.backward()
            optimizer_t.step()
            reference.append(loss_t.item())
        after = theirs.state_dict()
        runs = {}

        def mistaken(how):
            if how not in runs:
                runs[how] = trained_as(theirs, start, frozen_at, data, lr, how)
            return runs[how]

        def moved_once(yours, name):
            """torch's first step on a frozen parameter; at the check's tolerance 0, the
            mistake is told at the rounding of two libraries."""
            late = mistaken("frozen-late")[1][name]
            return yours if matches(yours, late, rtol=1e-9, atol=1e-12) else late

        for name, p in ours.named_parameters():
            if int(name.split(".")[0]) in frozen_at:
                moved = not np.array_equal(p.detach().numpy(), start[name].numpy())
                g.require(f"{label}: {name} frozen, no .grad",
                          p.requires_grad is False and p.grad is None,
                          f"{name} has requires_grad={p.requires_grad} and "
                          f"{'no' if p.grad is None else 'a'} .grad; a frozen parameter "
                          "should have neither when your function returns", mistakes={
                              "biases-train": ("the frozen module's bias still trains: which "
                                               "of its parameters did you freeze?",
                                               name.endswith("bias") and p.requires_grad
                                               and moved),
                              "lr-zero": ("backward still reaches the frozen parameters: "
                                          "does a learning rate of 0 stop that?",
                                          p.requires_grad and p.grad is not None and not moved),
                              "still-trains": ("the frozen parameters still train: what "
                                               "stops backward and the optimizer there?",
                                                  p.requires_grad and p.grad is not None
                                                  and moved),
                              "unfrozen-at-end": ("the frozen parameters have requires_grad "
                                                  "back on when your function returns: is "
                                                  "the model left frozen?",
                                                  p.requires_grad and p.grad is None
                                                  and not moved)})
                g.check(f"{label}: {name} unchanged", p, start[name], rtol=0, atol=0,
                        against="its value before", mistakes={
                            "frozen-late": ("your frozen parameter moved in the first step "
                                            "only: when does your freeze take effect?",
                                            lambda p=p, name=name: moved_once(
                                                p.detach().numpy(), name))})
        g.check(f"{label}: the losses", losses, reference, rtol=1e-10, atol=1e-12, mistakes={
            "grads-pile-up": ("your losses part from torch's after a few steps: what does "
                              ".grad hold when each step's backward() begins?",
                              lambda: mistaken("grads-pile-up")[0])})
        for name, p in ours.named_parameters():
            if int(name.split(".")[0]) not in frozen_at:
                g.check(f"{label}: {name} trained", p, after[name], rtol=1e-10, atol=1e-12)

    check_frozen((3, 4, 2), [0], (5, 5, 5), lr=0.1, seed=93)
    ### BEGIN HIDDEN TESTS
    check_frozen((3, 4, 2), [2], (4, 6, 2, 5), lr=0.05, seed=94)
    check_frozen((2, 5, 3, 1), [2], (6, 3, 4), lr=0.2, seed=95)
    check_frozen((4, 3, 3, 2), [0, 4], (5, 5), lr=0.1, seed=96)
    check_frozen((2, 3, 2), [], (3, 4, 5), lr=0.1, seed=97)
    ### END HIDDEN TESTS

# %% [markdown]
# ## Predict before you run
#
# Three questions on the chapter's idea. Write your guess down, then run the cell.
#
# **1.** `w` requires grad. Inside `no_grad()` we compute `y = w * 2`; *outside* it,
# `z = y * w`. Does `z` have a `grad_fn`, and after `z.sum().backward()`, what is
# `w.grad` for $w = (1, 2)$?

# %%
def no_grad_then_outside(lib):
    w = lib.tensor([1.0, 2.0], requires_grad=True)
    with lib.no_grad():
        y = w * 2
    z = y * w
    z.sum().backward()
    return z.grad_fn is not None, w.grad


recorded, w_grad = no_grad_then_outside(minigrad)
recorded_t, w_grad_t = no_grad_then_outside(torch)
print("z has a grad_fn:", recorded)
check_all({"z has a grad_fn": (recorded, recorded_t), "w.grad": (w_grad, w_grad_t)})

# %% [markdown]
# <details><summary>Why</summary>
#
# `no_grad()` only affects what is computed *inside* it: `y` is a constant, but
# `z = y * w` is recorded, since `w` requires grad. Its gradient is $y = 2w = (2, 4)$,
# not the $4w$ of $2w^2$: the path through `y` was never recorded.
# </details>
#
# **2.** Inside `no_grad()`, what does `w.requires_grad` say for a leaf `w` made with
# `requires_grad=True`?

# %%
w = minigrad.tensor([1.0, 2.0], requires_grad=True)
w_t = torch.tensor([1.0, 2.0], requires_grad=True)
with minigrad.no_grad():
    inside = w.requires_grad
with torch.no_grad():
    inside_t = w_t.requires_grad
print("w.requires_grad inside no_grad():", inside)
check("w.requires_grad inside no_grad()", inside, inside_t)

# %% [markdown]
# <details><summary>Why</summary>
#
# True. `no_grad()` does not change any tensor's flag; it stops *new* results from
# being recorded. To stop a parameter itself from being trained, freeze it with
# `requires_grad_(False)`.
# </details>
#
# **3.** `d = x.detach().requires_grad_()` and then `(d ** 2).sum().backward()`, for
# $x = (1, 2)$. What are `x.grad` and `d.grad`?

# %%
x = minigrad.tensor([1.0, 2.0], requires_grad=True)
d = x.detach().requires_grad_()
(d ** 2).sum().backward()
x_t = torch.tensor([1.0, 2.0], requires_grad=True)
d_t = x_t.detach().requires_grad_()
(d_t ** 2).sum().backward()
print("x.grad:", x.grad, "  d.grad:", d.grad)
check_all({"x.grad is None": (x.grad is None, x_t.grad is None), "d.grad": (d.grad, d_t.grad)})

# %% [markdown]
# <details><summary>Why</summary>
#
# `d` is a new leaf with no history: backward stops at it and leaves $2d = (2, 4)$ in
# `d.grad`, and never reaches `x`, whose `.grad` stays None. (It is how chapter 06 cut
# a network in two.)
# </details>

# %% [markdown]
# ## Summary
#
# - Under `no_grad()` ops compute the same values but record nothing: results have
#   `requires_grad=False` and `grad_fn=None`, and `backward()` through them refuses.
# - `inference_mode()` is the stricter torch variant for pure inference: its tensors
#   are marked, and both libraries refuse to save one for backward or change it in
#   place later (`clone()` makes a normal tensor). `enable_grad()` turns recording on;
#   `set_grad_enabled(mode)` takes a bool. All of them work as context managers and
#   decorators, per thread. Nested, the innermost grad-mode switch wins, except inside
#   `inference_mode()`, where even `enable_grad()` records nothing.
# - `model.eval()` changes layer behaviour, not recording: evaluate with
#   `model.eval()` *and* `no_grad()`, as the tutorial does.
# - `detach()` makes one tensor a constant for backward, sharing its memory and its
#   version counter, so backward still notices an in-place change of a saved value.
#   A change through `.data` goes unnoticed and gives wrong gradients.
# - `p.requires_grad_(False)` freezes a parameter: no op records it and backward gives
#   it no `.grad`, so an optimizer step skips it (Exercise 9.3). A `.grad` left from
#   before would still be used: clear it when you freeze.
# - A recorded forward pass keeps the activations its backward needs; they grow with
#   the batch and soon outweigh the parameters. Measured here: the same bytes in
#   minigrad and torch, none under `no_grad`.
#
# Next: [10 Optimizers and training](10_optimizers_and_training.ipynb), where the
# gradients are finally used.
