# %% [markdown]
# # 10 Optimizers and training
#
# A backward pass only fills `.grad`; nothing has learned anything yet. The optimizer
# turns gradients into better parameters, and one line holds the whole idea: move each
# parameter a little against its gradient, $p \leftarrow p - \eta\,\nabla_p L$. How
# large a step $\eta$ may be, and what the four calls of a training step must be in
# which order, decide whether a network learns at all. This chapter writes that step by
# hand and checks it against `optim.SGD`; runs the training step of the course's
# reference tutorial (see [Sources](../book/sources.md)) with minigrad from torch's
# initial weights; shows what goes wrong when the calls come in the wrong order; adds
# momentum; and trains a small network on a real data set (scikit-learn's handwritten
# digits) with minigrad and PyTorch side by side, from the same initial weights, until
# they agree on every parameter. Then RMSprop and Adam, which give each coordinate its
# own step size, what a sum instead of a mean over the batch does to each optimizer, a
# learning-rate schedule, and (after the exercises) why weight decay is not an L2 term
# for Adam.
#
# **Learning goals.** After this chapter you can
#
# 1. write the SGD update $p \leftarrow p - \eta \nabla_p L$ by hand, and say why it
#    runs under `no_grad()`;
# 2. put `zero_grad()`, `backward()` and `step()` in the right order, and predict what
#    each wrong order does;
# 3. explain momentum as a running sum of gradients, where it gains and where it does
#    not, give the largest stable learning rate, and implement it;
# 4. train a multilayer network on a real data set and compare it with PyTorch, step
#    for step;
# 5. write the RMSprop and Adam updates by hand, say what their division by the root
#    mean square does to the step, rescale the learning rate when a loss sums over the
#    batch instead of averaging, schedule the learning rate, and choose AdamW over
#    Adam with `weight_decay`.

# %%
import matplotlib.pyplot as plt
import numpy as np
import torch
from IPython.display import display
from sklearn.datasets import load_digits

import minigrad
from minigrad import check, check_all, show_source
from minigrad.course.widgets.valley import valley_widget

torch.set_num_threads(1)  # tiny models: threads only add overhead on a shared machine

# %% [markdown]
# ## 1. The SGD update, by hand and by `optim.SGD`
#
# After `backward()`, each parameter $p$ holds $\nabla_p L$ in `p.grad`. One step of
# gradient descent moves it a little against that direction:
#
# $$p \leftarrow p - \eta \, \nabla_p L ,$$
#
# with the learning rate $\eta$. We make the same `Linear(3, 1)` in both libraries, in
# float64 (torch's initial weights copied into minigrad), and compute one gradient.

# %%
def twin_linears(seed, n_in=3, n_out=1):
    """(minigrad Linear, torch Linear) with torch's initial weights, in float64."""
    torch.manual_seed(seed)
    theirs = torch.nn.Linear(n_in, n_out, dtype=torch.float64)
    ours = minigrad.nn.Linear(n_in, n_out, dtype=minigrad.float64)
    ours.load_state_dict(theirs.state_dict())
    return ours, theirs


torch.manual_seed(0)
X_t = torch.randn(8, 3, dtype=torch.float64)
y_t = torch.randn(8, 1, dtype=torch.float64)
X, y = minigrad.tensor(X_t.numpy()), minigrad.tensor(y_t.numpy())

model, model_t = twin_linears(seed=1)
((model(X) - y) ** 2).mean().backward()
((model_t(X_t) - y_t) ** 2).mean().backward()
check_all({"weight.grad": (model.weight.grad, model_t.weight.grad),
           "bias.grad": (model.bias.grad, model_t.bias.grad)}, brief=True)

# %% [markdown]
# The update by hand, in minigrad, against torch's `optim.SGD` doing the step:

# %%
# run again, this cell would step on from where its first step ended: so it starts
# each time from the initial weights (seed 1), with the gradients computed above
initial_weights = twin_linears(seed=1)[1].state_dict()
model.load_state_dict(initial_weights)
model_t.load_state_dict(initial_weights)
lr = 0.1
with minigrad.no_grad():
    for p in model.parameters():
        p -= lr * p.grad

torch.optim.SGD(model_t.parameters(), lr=lr).step()
check_all({"weight after one step": (model.weight, model_t.weight),
           "bias after one step": (model.bias, model_t.bias)}, brief=True)

# %% [markdown]
# Why `no_grad()`? The update is not part of the model: it must not be recorded in a
# graph. And a parameter is a leaf that requires grad, the tensor where gradients
# arrive; an in-place op recorded on it would have to give it a history (a `grad_fn`),
# which would make it a leaf no more, so both libraries refuse while recording. Without
# `no_grad()`:

# %% tags=raises-exception
model_t.weight -= lr * model_t.weight.grad

# %% tags=raises-exception
model.weight -= lr * model.weight.grad

# %% [markdown]
# minigrad's message adds that for a plain tensor `w = w + 1` also works: it builds a new
# tensor. A module's weight is different, a registered parameter: the
# sum is a non-leaf, computed from the old weight, which `parameters()` (and so the
# optimizer) would never see again. Both libraries refuse the assignment:

# %% tags=raises-exception
model_t.weight = model_t.weight - lr * model_t.weight.grad

# %% tags=raises-exception
model.weight = model.weight - lr * model.weight.grad

# %% [markdown]
# The right fix is the update above: in place, under `no_grad()`, after `backward()` has
# filled `.grad`. The weight stays the same leaf, registered in the module, holding new
# numbers.
#
# `minigrad.optim.SGD` does exactly this update, on the arrays directly; its `step`,
# from the package (momentum and weight decay are optional extras we meet below):

# %%
show_source(minigrad.optim.SGD.step)

# %% [markdown]
# ## 2. The tutorial's training step, in both libraries
#
# The reference tutorial's example, in torch, as written there (in float32, torch's
# default).
# We fix the seed, and keep a copy of the initial weights to give to minigrad.

# %%
torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
initial = {name: value.clone() for name, value in model.state_dict().items()}
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
X = torch.randn(8, 3)
y = torch.randn(8, 1)
pred = model(X)
loss = ((pred - y) ** 2).mean()
optimizer.zero_grad()
loss.backward()
optimizer.step()
model_t, X_t, y_t, loss_t = model, X, y, loss  # torch's run, kept for the comparison
print(loss_t)

# %% [markdown]
# The same lines with `torch` replaced by `minigrad`, from torch's initial weights and
# torch's data:

# %%
model = minigrad.nn.Linear(3, 1)
model.load_state_dict(initial)
optimizer = minigrad.optim.SGD(model.parameters(), lr=0.01)
X = minigrad.tensor(X_t.numpy())
y = minigrad.tensor(y_t.numpy())
pred = model(X)
loss = ((pred - y) ** 2).mean()
optimizer.zero_grad()
loss.backward()
optimizer.step()
print(loss)
check_all({"loss": (loss, loss_t), "weight after the step": (model.weight, model_t.weight),
           "bias after the step": (model.bias, model_t.bias)}, atol=1e-6)

# %% [markdown]
# ## 3. The order of a training step
#
# The tutorial lists the order: clear old gradients, compute predictions and loss, run
# backpropagation, update the parameters. (Clearing may come before or after the
# forward pass; it must come before `backward()`.) What does each wrong order do? One
# function runs ten steps in a given order, in either library; we try the right order
# and four wrong ones, from the same initial weights, and compare with torch each time.

# %%
def run_steps(lib, model, X, y, order, steps=10, lr=0.2):
    """`steps` training steps, each calling the named parts in the given order."""
    optimizer = lib.optim.SGD(model.parameters(), lr=lr)
    loss = None
    for _ in range(steps):
        for part in order:
            if part == "forward":
                loss = ((model(X) - y) ** 2).mean()
            elif part == "zero_grad":
                optimizer.zero_grad()
            elif part == "backward":
                loss.backward()
            elif part == "step":
                optimizer.step()
    return model


torch.manual_seed(3)
X3_t = torch.randn(32, 3, dtype=torch.float64)
y3_t = X3_t @ torch.tensor([[1.0], [-2.0], [0.5]], dtype=torch.float64)
X3, y3 = minigrad.tensor(X3_t.numpy()), minigrad.tensor(y3_t.numpy())
orders = {
    "right": ["forward", "zero_grad", "backward", "step"],
    "zero_grad after backward": ["forward", "backward", "zero_grad", "step"],
    "step before backward": ["forward", "zero_grad", "step", "backward"],
    "step, zero_grad, backward": ["forward", "step", "zero_grad", "backward"],
    "no zero_grad": ["forward", "backward", "step"],
}
untrained = twin_linears(seed=4)[0]
start = untrained.weight.detach().numpy().copy()
print(f"{'before training':26s} loss {((untrained(X3) - y3) ** 2).mean().item():.4f}")
results = {}
for name, order in orders.items():
    ours, theirs = twin_linears(seed=4)
    results[name] = (run_steps(minigrad, ours, X3, y3, order),
                     run_steps(torch, theirs, X3_t, y3_t, order))
    moved = np.abs(results[name][0].weight.detach().numpy() - start).max()
    loss_now = ((results[name][0](X3) - y3) ** 2).mean().item()
    print(f"{name:26s} loss {loss_now:.4f}, weight moved by {moved:.4f}")
check_all({f"weight, {name}": (ours.weight, theirs.weight)
           for name, (ours, theirs) in results.items()}, brief=True)

# %% [markdown]
# - **right**: the loss falls from about 7 to almost 0.
# - **zero_grad after backward**: the gradient is cleared (to None) just before the
#   step, so `step()` skips every parameter: nothing ever moves.
# - **step before backward**: the first step finds no gradient and does nothing; the
#   gradient computed at the end of each iteration is then thrown away by `zero_grad()`
#   at the start of the next, before any step can use it. Again nothing moves.
# - **step, zero_grad, backward**: with `zero_grad()` between `step()` and `backward()`,
#   each step uses the gradient of the previous iteration: it trains one step late (the
#   first step finds no gradient). This works here only because the model is one layer:
#   the weight's gradient needs the input `X`, not the weight, so `Linear` saved nothing
#   that `step()` changes.
# - **no zero_grad**: the stale-gradient bug of chapter 08; each step uses the sum of
#   all gradients so far, overshoots, and the loss stays high.
#
# The two libraries agree in every case: minigrad reproduces torch's mistakes too.
#
# With a hidden layer the one-step-late order no longer runs. The second layer saved its
# weight in the forward pass (the gradient for the hidden units is the upstream gradient
# times that weight); `step()` then changes the weight in place before `backward()` reads
# it, and both libraries refuse at the second iteration, with the version-counter error
# of [chapter 12](12_common_problems.ipynb), section 5:

# %% tags=raises-exception
def deep_twins(seed):
    """3 -> 8 -> ReLU -> 1, in both libraries, with torch's initial weights, in float64."""
    torch.manual_seed(seed)
    theirs = torch.nn.Sequential(torch.nn.Linear(3, 8, dtype=torch.float64), torch.nn.ReLU(),
                                 torch.nn.Linear(8, 1, dtype=torch.float64))
    ours = minigrad.nn.Sequential(minigrad.nn.Linear(3, 8, dtype=minigrad.float64),
                                  minigrad.nn.ReLU(),
                                  minigrad.nn.Linear(8, 1, dtype=minigrad.float64))
    return ours.load_state_dict(theirs.state_dict()), theirs


run_steps(torch, deep_twins(seed=4)[1], X3_t, y3_t, orders["step, zero_grad, backward"])

# %% tags=raises-exception
run_steps(minigrad, deep_twins(seed=4)[0], X3, y3, orders["step, zero_grad, backward"])

# %% [markdown]
# ## 4. Momentum
#
# Plain SGD forgets the past: each step looks only at the current gradient. On a long,
# narrow valley that makes it zig-zag across the valley and crawl along it. Momentum
# keeps a running, decaying sum of the gradients (the *buffer* $b$) and steps along
# that:
#
# $$b \leftarrow \mu\, b + \nabla_p L, \qquad p \leftarrow p - \eta\, b ,$$
#
# with $b = \nabla_p L$ at the first step. This is torch's convention (`optim.SGD`'s
# `momentum`), and minigrad's. With $\mu = 0$ this is plain SGD; with $\mu = 1$ it is
# the never-cleared gradient of chapter 08. Useful values lie between, typically $0.9$.
# The valley: $f(u, v) = \frac{1}{2}(u^2 + 20 v^2)$, from $(-4, 1)$.

# %%
def valley(p):
    """f(u, v) = (u**2 + 20 v**2) / 2 of a tensor p = (u, v), in either library."""
    return 0.5 * (p[0] ** 2 + 20 * p[1] ** 2)


def descend(lib, momentum, steps=40, lr=0.09):
    """The points that SGD (with the given momentum) visits on the valley."""
    p = lib.tensor([-4.0, 1.0], dtype=lib.float64, requires_grad=True)
    optimizer = lib.optim.SGD([p], lr=lr, momentum=momentum)
    path = [p.detach().numpy().copy()]
    for _ in range(steps):
        optimizer.zero_grad()
        valley(p).backward()
        optimizer.step()
        path.append(p.detach().numpy().copy())
    return np.array(path)


paths = {mu: (descend(minigrad, mu), descend(torch, mu)) for mu in (0.0, 0.7)}
check_all({f"path, momentum={mu}": pair for mu, pair in paths.items()}, brief=True)

# %%
u, v = np.meshgrid(np.linspace(-4.5, 1.5, 200), np.linspace(-1.3, 1.3, 200))
fig, ax = plt.subplots(figsize=(8, 4))
ax.contour(u, v, 0.5 * (u ** 2 + 20 * v ** 2), levels=np.geomspace(0.05, 30, 12), colors="0.8")
for mu, (ours, theirs) in paths.items():
    ax.plot(ours[:, 0], ours[:, 1], "o-", ms=3, label=f"minigrad, momentum {mu}")
    ax.plot(theirs[:, 0], theirs[:, 1], "k:", lw=1)
ax.plot([], [], "k:", lw=1, label="torch (dotted)")
ax.plot(0, 0, "k*", ms=12)
ax.set(xlabel="u", ylabel="v", title="40 steps of SGD on f(u, v) = (u² + 20 v²) / 2")
ax.legend(loc="lower right")
plt.show()
for mu, (ours, _) in paths.items():
    print(f"momentum {mu}: after 40 steps |u| = {abs(ours[-1, 0]):.2e}, "
          f"|v| = {abs(ours[-1, 1]):.2e}")

# %% [markdown]
# Where does momentum gain? Not across the valley: after 40 steps $|v|$ is *larger*
# with momentum ($1.1 \cdot 10^{-3}$ against $1.3 \cdot 10^{-4}$). The gain is all
# along $u$, where $|u|$ falls from $0.09$ to $0.001$.
#
# Plain SGD on this valley moves each coordinate on its own: a step multiplies $u$ by
# $1 - \eta \cdot 1$ and $v$ by $1 - \eta \cdot 20$, so after $k$ steps
# $u_k = -4\,(0.91)^k$ and $v_k = (-0.8)^k$. The sign flip is the bouncing across the
# valley. The formula against torch's path:

# %%
k = np.arange(41)[:, None]
check("plain SGD: (u_k, v_k) = (-4 * 0.91**k, (-0.8)**k)", np.hstack([-4 * 0.91 ** k,
      (-0.8) ** k]), paths[0.0][1], rtol=1e-12, atol=1e-15)

# %% [markdown]
# Two consequences.
#
# - **The stability limit.** $v$ shrinks only if $|1 - 20\eta| < 1$, that is
#   $\eta < 2 / \lambda_{\max} = 2/20 = 0.1$, where $\lambda_{\max} = 20$ is the
#   largest curvature (the largest eigenvalue of the Hessian). Our $\eta = 0.09$ is
#   close to it; any larger than $0.1$ and plain SGD diverges along $v$. So $\eta$ is
#   capped by the steepest direction, and then crawls along the shallow one.
# - **The effective step, and where it does not apply.** Along a direction where the
#   gradient hardly changes from step to step, the buffer grows towards $g / (1 - \mu)$
#   and momentum moves like plain SGD with the learning rate $\eta / (1 - \mu)$
#   ($0.09 / 0.3 = 0.3$ here). That needs the gradient to stay steady over the
#   $\approx 1/(1 - \mu)$ steps the buffer remembers, which holds only for a small
#   curvature: $\eta\lambda \ll (1 - \sqrt{\mu})^2 \approx 0.027$. Along $u$,
#   $\eta\lambda = 0.09$ is larger, so the picture does not apply to this run.
#
# What momentum does instead: each coordinate follows
# $x_{k+1} = (1 + \mu - \eta\lambda)\, x_k - \mu\, x_{k-1}$ (the buffer eliminated), whose
# behaviour is set by the roots of $r^2 - (1 + \mu - \eta\lambda)\, r + \mu = 0$. For
# $\lambda = 1$ ($u$) and $\lambda = 20$ ($v$) both roots are complex, of modulus
# $\sqrt{\mu} = 0.837$. So along $u$ momentum does not glide like plain SGD at $0.3$:
# it overshoots zero (at step 8, and swings to $+0.53$ at step 11, in the plot above)
# and spirals in, shrinking as $0.837^k$ where plain SGD at $0.09$ shrinks as $0.91^k$.
# That faster contraction is the gain. Plain SGD at $0.3$ would do far better along $u$
# ($|u_{40}| = 4 \cdot 0.7^{40} \approx 2.5 \cdot 10^{-6}$, against momentum's
# $1.3 \cdot 10^{-3}$), but it diverges along $v$. Across the valley the angle of the
# roots ($93°$) makes $v$ turn about every 4 steps: its signs go $+, -, -, +, +, -, -, +$,
# not the plain flip of $(-0.8)^k$. Momentum's limit there is
# $\eta < 2(1 + \mu)/\lambda_{\max}$ ($0.17$ for $\mu = 0.7$), and its oscillation decays
# only as $0.837^k$, slower than plain SGD's $0.8^k$: hence the larger $|v|$. Each of
# these, computed from the formula and compared with torch's paths:

# %%
roots = {lam: np.roots([1, -(1 + 0.7 - 0.09 * lam), 0.7]) for lam in (1, 20)}
for lam, r in roots.items():
    print(f"lambda = {lam:2d}: roots {np.round(r, 4)}, modulus {abs(r[0]):.4f}, "
          f"angle {np.degrees(abs(np.angle(r[0]))):.1f} degrees")
u_mom, v_mom = paths[0.7][1][:, 0], paths[0.7][1][:, 1]
recurrence = {lam: (1 + 0.7 - 0.09 * lam) * x[1:-1] - 0.7 * x[:-2]
              for lam, x in ((1, u_mom), (20, v_mom))}
plain_03 = descend(torch, 0.0, lr=0.3)
print(f"|u_40|: momentum {abs(u_mom[-1]):.1e}, plain SGD at 0.3 {abs(plain_03[-1, 0]):.1e}"
      f" (its |v_40| = {abs(plain_03[-1, 1]):.0e}: diverged)")
check_all({
    "|roots| for lambda 1 and 20": (np.abs(np.concatenate(list(roots.values()))),
                                    np.full(4, np.sqrt(0.7)), "formula"),
    "torch's u path: u[k+1] = 1.61 u[k] - 0.7 u[k-1]": (recurrence[1], u_mom[2:], "formula"),
    "torch's v path: v[k+1] = -0.1 v[k] - 0.7 v[k-1]": (recurrence[20], v_mom[2:], "formula"),
    "first step with u > 0, and the largest u": ([np.argmax(u_mom > 0), np.argmax(u_mom)],
                                                 [8, 11], "by hand"),
    "signs of v, steps 0 to 7": (np.sign(v_mom[:8]), [1, -1, -1, 1, 1, -1, -1, 1],
                                 "by hand"),
    "plain SGD at lr 0.3: u_40 = -4 * 0.7**40": (plain_03[-1, 0], -4 * 0.7 ** 40, "formula"),
})

# %% [markdown]
# The widget runs both libraries' `optim.SGD` on this valley for the learning rate and
# momentum you pick: the path, the loss, and the verdict (stable or diverges), with
# $\lambda_{\max}$, the limit and the effective step. Push `lr` past $0.1$ with no
# momentum, then add momentum.

# %% tags=nbval-ignore-output
valley_box = valley_widget(lr=0.09, momentum=0.0)
display(check("the widget's path: lr 0.09, no momentum", valley_box.run.path,
      valley_box.run.path_torch, rtol=1e-12, atol=1e-15))
valley_box

# %% [markdown]
# Other courses (CMU's Deep Learning Systems, for one) write momentum as an average
# rather than a sum: $u \leftarrow \beta u + (1 - \beta)\, \nabla_p L$ (from
# $u = 0$), $p \leftarrow p - \eta\, u$. The two differ only by a scale:
# $u = (1 - \beta)\, b$ at every step, so the average form with learning rate
# $\eta / (1 - \beta)$ takes exactly torch's steps with $\eta$. Both by hand, against
# torch's path with $\eta = 0.09$, $\mu = 0.7$:

# %%
def descend_average(lr, beta, steps=40):
    """Momentum as an average by hand: u <- beta u + (1 - beta) g, p <- p - lr u."""
    p, u = np.array([-4.0, 1.0]), np.zeros(2)
    path = [p.copy()]
    for _ in range(steps):
        g = np.array([1.0, 20.0]) * p  # the gradient of the valley
        u = beta * u + (1 - beta) * g
        p = p - lr * u
        path.append(p.copy())
    return np.array(path)


same_lr = np.abs(descend_average(0.09, 0.7) - paths[0.7][1]).max()
print(f"average form with the same lr 0.09: up to {same_lr:.2f} away from torch's path")
check_all({"average form, lr 0.09 / (1 - 0.7)": (descend_average(0.09 / 0.3, 0.7),
                                                 paths[0.7][1])}, rtol=1e-10, atol=1e-13)

# %% [markdown]
# Exercise 10.2 asks for torch's form, the sum.
#
# ## 5. Training on a real data set
#
# scikit-learn's `load_digits()` ships with the library (no download): 1797 images of
# handwritten digits, 8 x 8 pixels with values 0 to 16, and their labels.

# %%
digits = load_digits()
images, labels = digits.data / 16.0, digits.target
fig, axes = plt.subplots(1, 8, figsize=(10, 1.6))
for ax, image, label in zip(axes, images, labels, strict=False):
    ax.imshow(image.reshape(8, 8), cmap="gray_r")
    ax.set(title=str(label), xticks=[], yticks=[])
plt.show()
print(images.shape, labels.shape)

# %% [markdown]
# We hold out 397 images for testing (a fixed random split), and build the same network
# in both libraries: $64 \to 32$, ReLU, $32 \to 10$, in float64, with torch's initial
# weights copied into minigrad.

# %%
order = np.random.default_rng(0).permutation(len(labels))
train_rows, test_rows = order[:1400], order[1400:]


def mlp(lib, dtype):
    return lib.nn.Sequential(lib.nn.Linear(64, 32, dtype=dtype), lib.nn.ReLU(),
                             lib.nn.Linear(32, 10, dtype=dtype))


torch.manual_seed(0)
net_t = mlp(torch, torch.float64)
net = mlp(minigrad, minigrad.float64).load_state_dict(net_t.state_dict())
print(net)
check_all({name: (p, q) for (name, p), (_, q) in
           zip(net.named_parameters(), net_t.named_parameters(), strict=True)}, brief=True)

# %% [markdown]
# The network gives 10 numbers per image, the *logits* $z$, one per digit. The loss is
# the **cross-entropy**: turn the logits into probabilities with the softmax,
# $p_c = e^{z_c} / \sum_j e^{z_j}$, and take $-\log p_t$ of the true label $t$, averaged
# over the batch. It is $0$ when the network gives the right digit probability $1$, and
# large when it is confident and wrong. We compute it in two stages, as torch does:
#
# - **log-softmax**: $\log p_c = z_c - \log \sum_j e^{z_j}$, with the row's largest logit
#   subtracted first so that no `exp` overflows (shifting all logits of a row by the same
#   number leaves the softmax unchanged, so the shift's gradient is zero: `.detach()` on
#   the max only spares autograd the work of computing that zero);
# - **negative log-likelihood (NLL)**: pick $\log p_t$ of each row's label, negate,
#   average. A one-hot mask picks it with operations we already have.
#
# By hand, against torch's `F.cross_entropy`, values and gradients:

# %%
def cross_entropy(logits, targets):
    """Mean over the rows of -log softmax(logits)[row, target]: log-softmax, then NLL."""
    shifted = logits - logits.max(dim=1, keepdim=True).values.detach()
    log_probs = shifted - shifted.exp().sum(dim=1, keepdim=True).log()
    one_hot = minigrad.tensor(np.eye(logits.shape[1])[targets.numpy()])
    return -(log_probs * one_hot).sum(dim=1).mean()


logits0 = np.random.default_rng(5).standard_normal((6, 10)) * 3
targets0 = labels[:6]
logits = minigrad.tensor(logits0, requires_grad=True)
logits_t = torch.tensor(logits0, requires_grad=True)
ce = cross_entropy(logits, minigrad.tensor(targets0))
ce_t = torch.nn.functional.cross_entropy(logits_t, torch.tensor(targets0))
ce.backward()
ce_t.backward()
probs = np.exp(logits0) / np.exp(logits0).sum(axis=1, keepdims=True)
check_all({"cross-entropy": (ce, ce_t), "its gradient (logits.grad)": (logits.grad, logits_t.grad),
           "logits.grad = (softmax - one-hot) / N": (
               logits.grad, (probs - np.eye(10)[targets0]) / len(targets0), "formula"),
           "minigrad.nn.functional.cross_entropy": (
               minigrad.nn.functional.cross_entropy(logits, minigrad.tensor(targets0)), ce_t)})

# %% [markdown]
# The gradient is $(p - \text{one-hot}) / N$: softmax minus the label, per row, divided
# by the batch size (the table's third row; chapter 13 derives it). The package's
# `minigrad.nn.functional.cross_entropy` computes the same numbers as one op; the
# training loop uses it, and torch's.
#
# The training loop is written once and run with each library: minibatches of 64 in
# an order drawn from a seeded numpy generator (the same for both), cross-entropy
# loss, SGD with momentum, in the right order.

# %%
def train(lib, net, epochs=10, batch_size=64, lr=0.05, momentum=0.9):
    """Train on the training rows; return the loss of every step."""
    inputs, targets = lib.tensor(images[train_rows]), lib.tensor(labels[train_rows])
    optimizer = lib.optim.SGD(net.parameters(), lr=lr, momentum=momentum)
    shuffle = np.random.default_rng(1)
    losses = []
    for _ in range(epochs):
        perm = shuffle.permutation(len(train_rows))
        for first in range(0, len(perm), batch_size):
            rows = lib.tensor(perm[first:first + batch_size])
            loss = lib.nn.functional.cross_entropy(net(inputs[rows]), targets[rows])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
    return np.array(losses)


# the same two networks as above, made again here, so that running this cell a second
# time trains from the start rather than on from the trained weights
torch.manual_seed(0)
net_t = mlp(torch, torch.float64)
net = mlp(minigrad, minigrad.float64).load_state_dict(net_t.state_dict())
losses = train(minigrad, net)
losses_t = train(torch, net_t)
check("loss at each of the steps", losses, losses_t, rtol=1e-8, atol=1e-10)

# %%
fig, ax = plt.subplots(figsize=(7, 3.5))
ax.semilogy(losses, label="minigrad")
ax.semilogy(losses_t, "k:", label="torch")
ax.set(xlabel="step", ylabel="cross-entropy (minibatch)", title="training on load_digits()")
ax.legend()
plt.show()

# %% [markdown]
# The curves lie on top of each other. After 220 steps, every parameter agrees with
# torch's to about 15 digits: float64 rounding differs between the libraries in the
# last bit of some operations, and such differences grow only slowly over training.
# We allow a relative difference of $10^{-8}$.

# %%
check_all({name: (p, q) for (name, p), (_, q) in
           zip(net.named_parameters(), net_t.named_parameters(), strict=True)},
          rtol=1e-8, atol=1e-10, brief=True)

# %% [markdown]
# Finally, the test images the network has never seen, under `no_grad()` (chapter 09):

# %%
with minigrad.no_grad():
    predicted = net(minigrad.tensor(images[test_rows])).detach().numpy().argmax(axis=1)
with torch.no_grad():
    predicted_t = net_t(torch.tensor(images[test_rows])).argmax(dim=1).numpy()
accuracy = (predicted == labels[test_rows]).mean()
accuracy_t = (predicted_t == labels[test_rows]).mean()
print(f"test accuracy: minigrad {accuracy:.3f}, torch {accuracy_t:.3f}")
check("test predictions", predicted, predicted_t)

# %% [markdown]
# ## 6. A step size per coordinate: RMSprop and Adam
#
# Back to the valley of section 4. Plain SGD's step is $\eta$ times the gradient, so one
# $\eta$ serves both directions, and the steep one ($v$) caps it at $2/\lambda_{\max}$.
# RMSprop gives each coordinate its own scale: it keeps a running mean $s$ of the
# *squared* gradient and divides the gradient by its root,
#
# $$s \leftarrow \alpha\, s + (1 - \alpha)\, g^2, \qquad
#   p \leftarrow p - \eta\, \frac{g}{\sqrt{s} + \epsilon} ,$$
#
# from $s = 0$, elementwise (torch's defaults: $\alpha = 0.99$, $\epsilon = 10^{-8}$).
# A coordinate with large gradients gets a small step size, one with small gradients a
# large one. Adam adds momentum as an average, $m \leftarrow \beta_1 m + (1 - \beta_1)\,
# g$, and divides both averages by $1 - \beta^t$ at step $t$ to undo their start at $0$:
#
# $$p \leftarrow p - \eta\, \frac{m / (1 - \beta_1^t)}{\sqrt{s / (1 - \beta_2^t)}
#   + \epsilon} \qquad (\beta_1, \beta_2 = 0.9, 0.999) .$$
#
# Both by hand on the valley, in a few lines of numpy:

# %%
def rmsprop_by_hand(lr, alpha=0.99, eps=1e-8, steps=40):
    """RMSprop on the valley: s <- alpha s + (1 - alpha) g**2, p <- p - lr g / (sqrt(s) + eps)."""
    p, s = np.array([-4.0, 1.0]), np.zeros(2)
    path = [p.copy()]
    for _ in range(steps):
        g = np.array([1.0, 20.0]) * p  # the gradient of the valley
        s = alpha * s + (1 - alpha) * g ** 2
        p = p - lr * g / (np.sqrt(s) + eps)
        path.append(p.copy())
    return np.array(path)


def adam_by_hand(lr, betas=(0.9, 0.999), eps=1e-8, steps=40):
    """Adam on the valley: the averages m of g and s of g**2, each divided by 1 - beta**t."""
    (beta1, beta2), p, m, s = betas, np.array([-4.0, 1.0]), np.zeros(2), np.zeros(2)
    path = [p.copy()]
    for t in range(1, steps + 1):
        g = np.array([1.0, 20.0]) * p
        m = beta1 * m + (1 - beta1) * g
        s = beta2 * s + (1 - beta2) * g ** 2
        p = p - lr * (m / (1 - beta1 ** t)) / (np.sqrt(s / (1 - beta2 ** t)) + eps)
        path.append(p.copy())
    return np.array(path)

# %% [markdown]
# The same 40 steps with `minigrad.optim` and `torch.optim`, on the valley as a
# function of a tensor. RMSprop gets $\eta = 0.03$ and Adam $\eta = 0.3$, for a reason
# the next cell shows.

# %%
def descend_with(lib, name, start=(-4.0, 1.0), steps=40, **options):
    """The points that lib.optim.<name>(**options) visits on the valley."""
    p = lib.tensor(list(start), dtype=lib.float64, requires_grad=True)
    optimizer = getattr(lib.optim, name)([p], **options)
    path = [p.detach().numpy().copy()]
    for _ in range(steps):
        optimizer.zero_grad()
        valley(p).backward()
        optimizer.step()
        path.append(p.detach().numpy().copy())
    return np.array(path)


rmsprop_t = descend_with(torch, "RMSprop", lr=0.03)
adam_t = descend_with(torch, "Adam", lr=0.3)
check_all({"RMSprop by hand": (rmsprop_by_hand(0.03), rmsprop_t),
           "minigrad.optim.RMSprop": (descend_with(minigrad, "RMSprop", lr=0.03), rmsprop_t),
           "Adam by hand": (adam_by_hand(0.3), adam_t),
           "minigrad.optim.Adam": (descend_with(minigrad, "Adam", lr=0.3), adam_t)},
          rtol=1e-12, atol=1e-14, brief=True)

# %% [markdown]
# What the division changes: the first step, and the loss after 40 steps, against plain
# SGD at $\eta = 0.09$ (just below its limit $0.1$) and at $\eta = 0.3$ (torch's paths):

# %%
runs = {"SGD, lr 0.09": paths[0.0][1], "SGD, lr 0.3": plain_03,
        "RMSprop, lr 0.03": rmsprop_t, "Adam, lr 0.3": adam_t}
for name, path in runs.items():
    du, dv = path[1] - path[0]
    u_40, v_40 = path[-1]
    print(f"{name:17s} first step (du, dv) = ({du:+.3f}, {dv:+.3f}), "
          f"loss after 40 steps {0.5 * (u_40 ** 2 + 20 * v_40 ** 2):.1e}")
check_all({"Adam's first step: lr * (1, -1)": (adam_t[1] - adam_t[0], [0.3, -0.3], "formula"),
           "RMSprop's: lr / sqrt(1 - 0.99) * (1, -1)": (
               rmsprop_t[1] - rmsprop_t[0], [0.3, -0.3], "formula")}, atol=1e-7)

# %% [markdown]
# SGD's first step is $-\eta$ times the gradient $(-4, 20)$: five times longer across
# the valley than along it. Adam's is $\eta$ in *each* coordinate: at $t = 1$, $m = (1 -
# \beta_1) g$ and $s = (1 - \beta_2) g^2$, the corrections cancel the factors, and
# $g / |g|$ is left, whatever the size of the gradient. RMSprop has no correction, so its
# first step is $\eta / \sqrt{1 - \alpha} = 10\,\eta$ per coordinate (hence its smaller
# $\eta$ here). Since the step no longer grows with the gradient, $\eta = 0.3$, three
# times SGD's limit, does not diverge with Adam, where SGD's loss explodes. On this small
# valley Adam's loss after 40 steps is not below that of SGD at $\eta = 0.09$: what it
# buys is an $\eta$ that need not be fitted to the steepest direction, per coordinate,
# which matters when a network's parameters see gradients of very different sizes.
#
# ### Mean or sum over the batch
#
# A loss may average over the $N$ examples of a batch (`.mean()`, torch's default
# `reduction="mean"`) or add them up (`.sum()`, `reduction="sum"`). The sum is $N$
# times the mean, so every gradient is $N$ times larger. For SGD the step is $\eta$
# times the gradient: a sum with $\eta / N$ takes exactly the steps of a mean with
# $\eta$, and a sum with the mean's $\eta$ takes steps $N$ times too long. Adam divides
# the gradient by its own root mean square, so the factor $N$ cancels, except against
# $\epsilon$: $N g / (N \sqrt{s} + \epsilon) = g / (\sqrt{s} + \epsilon / N)$. A line
# fit on a batch of $N = 32$, twenty steps from the same start, in both libraries:

# %%
torch.manual_seed(0)
Xb_t = torch.randn(32, 3, dtype=torch.float64)
yb_t = (Xb_t @ torch.tensor([[1.0], [-2.0], [0.5]], dtype=torch.float64)
        + 0.1 * torch.randn(32, 1, dtype=torch.float64))
Xb, yb = minigrad.tensor(Xb_t.numpy()), minigrad.tensor(yb_t.numpy())


def fit(lib, reduction, optimizer, steps=20, **options):
    """`steps` steps of lib.optim.<optimizer> on the squared error, reduced by `reduction`."""
    model = twin_linears(seed=1)[1 if lib is torch else 0]
    X, y = (Xb_t, yb_t) if lib is torch else (Xb, yb)
    opt = getattr(lib.optim, optimizer)(model.parameters(), **options)
    for _ in range(steps):
        squared = (model(X) - y) ** 2
        loss = squared.mean() if reduction == "mean" else squared.sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
    return model.weight.detach().numpy()[0]


N = 32
reductions = {"SGD, mean, lr 0.1": ("mean", "SGD", {"lr": 0.1}),
        "SGD, sum,  lr 0.1 / 32": ("sum", "SGD", {"lr": 0.1 / N}),
        "SGD, sum,  lr 0.1": ("sum", "SGD", {"lr": 0.1}),
        "Adam, mean, lr 0.1": ("mean", "Adam", {"lr": 0.1}),
        "Adam, sum,  lr 0.1": ("sum", "Adam", {"lr": 0.1}),
        "Adam, mean, lr 0.1, eps 1e-8 / 32": ("mean", "Adam", {"lr": 0.1, "eps": 1e-8 / N})}
weights = {name: (fit(minigrad, *run[:2], **run[2]), fit(torch, *run[:2], **run[2]))
           for name, run in reductions.items()}
for name, (w, _) in weights.items():
    print(f"{name:34s} weight after 20 steps {np.array2string(w, precision=4)}")
display(check_all(weights, rtol=1e-10, atol=1e-12, brief=True))
check_all({
    "SGD: sum with lr / 32 = mean with lr": (weights["SGD, sum,  lr 0.1 / 32"][1],
                                            weights["SGD, mean, lr 0.1"][1], "by hand"),
    "Adam: sum = mean with eps / 32": (weights["Adam, sum,  lr 0.1"][1],
                                       weights["Adam, mean, lr 0.1, eps 1e-8 / 32"][1],
                                       "by hand")}, rtol=1e-10, atol=1e-12)
print("torch's Adam, sum against mean with the same eps, largest difference:",
      f"{np.abs(weights['Adam, sum,  lr 0.1'][1] - weights['Adam, mean, lr 0.1'][1]).max():.0e}")

# %% [markdown]
# The line's true weights are $(1, -2, 0.5)$. SGD on the mean with $\eta = 0.1$ and SGD
# on the sum with $\eta = 0.1/32$ land on the same weights; SGD on the sum with the
# mean's $\eta = 0.1$ diverges (weights of order $10^{17}$): the step limit
# $2/\lambda_{\max}$ of section 4 is 32 times smaller for the sum, whose curvature is
# 32 times larger. Adam lands on the same weights for the sum and the mean, to about
# $10^{-9}$, and exactly (to rounding) on those of the mean with $\epsilon / 32$. So
# when you switch a loss from mean to sum, or change the batch size of a summed loss,
# divide SGD's learning rate by the factor; Adam's needs no change (nor RMSprop's, which
# divides by the same root mean square).
# The weight decay of Exercise 10.3 does not scale with the loss, so with a sum its
# $\lambda$ counts $N$ times less against the data.
#
# ### Clipping the gradient's norm
#
# One bad batch can give a gradient far larger than the others (an outlier, or the
# *exploding gradients* of a recurrent network, whose backward multiplies by the same
# matrix at every time step), and one SGD step of $\eta$ times it throws the weights
# far. `nn.utils.clip_grad_norm_(parameters, max_norm)`, called between `backward()`
# and `step()`, measures the norm $\|g\|$ of all the gradients together, as one long
# vector, and multiplies every gradient in place by $\min(\text{max\_norm} / (\|g\| +
# 10^{-6}),\ 1)$; it returns $\|g\|$ as it was before clipping. The batch of the line
# fit with one target made an outlier ($10^4$), the summed loss, both libraries:

# %%
model, model_t = twin_linears(seed=1)
yo, yo_t = yb_t.clone(), yb_t.clone()
yo_t[0, 0] = 1e4
yo = minigrad.tensor(yo_t.numpy())
((model(Xb) - yo) ** 2).sum().backward()
((model_t(Xb_t) - yo_t) ** 2).sum().backward()
before = [p.grad.numpy().copy() for p in model_t.parameters()]
norm = minigrad.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
norm_t = torch.nn.utils.clip_grad_norm_(model_t.parameters(), max_norm=1.0)
print(f"total norm before clipping {norm.item():.4e}, after "
      f"{np.sqrt(sum((p.grad.numpy() ** 2).sum() for p in model.parameters())):.6f}")
display(check_all({"total norm": (norm, norm_t),
           "weight.grad, clipped": (model.weight.grad, model_t.weight.grad),
           "bias.grad, clipped": (model.bias.grad, model_t.bias.grad)}, brief=True))
factor = 1.0 / (norm_t.item() + 1e-6)
check_all({"weight.grad = before * 1 / (norm + 1e-6)": (
               model_t.weight.grad, before[0] * factor, "formula"),
           "bias.grad = before * 1 / (norm + 1e-6)": (
               model_t.bias.grad, before[1] * factor, "formula")}, rtol=1e-12, atol=0)

# %% [markdown]
# The gradient of norm about $5.5 \cdot 10^4$ leaves with norm $1$ (to the $10^{-6}$ in
# the denominator). Every gradient was multiplied by the same factor, so the whole
# gradient keeps its direction, and so does each parameter's: only the length of the
# step is capped. (`clip_grad_value_(parameters, clip_value)` clamps each entry to
# $[-\text{clip\_value}, \text{clip\_value}]$ instead, which does change the direction.)
# Below `max_norm` nothing changes: the factor is clamped to $1$. Clipping is routine
# for recurrent networks and in transformer training (a `max_norm` of $1$ is common),
# where it guards against the rare spike. Its threshold is fixed, so it does not
# scale with the loss: a summed loss, $N$ times the mean, reaches it at a mean
# gradient $N$ times smaller. That is one place where the choice of mean or sum is
# not absorbed by the learning rate.

# ### A learning-rate schedule
#
# A scheduler changes the optimizer's learning rate as training goes; its `step()` is
# called after `optimizer.step()`, once per epoch (or per step, as you count).
# `CosineAnnealingLR(optimizer, T_max)` lowers it from $\eta_0$ to $0$ along half a
# cosine, $\eta_t = \eta_0\,(1 + \cos(\pi t / T_{\max}))/2$. Its sequence over 15
# steps with $T_{\max} = 10$, in both libraries:

# %%
p = minigrad.tensor([1.0], requires_grad=True)
p_t = torch.tensor([1.0], requires_grad=True)
optimizer, optimizer_t = minigrad.optim.Adam([p], lr=0.3), torch.optim.Adam([p_t], lr=0.3)
schedule = minigrad.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=10)
schedule_t = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer_t, T_max=10)
lrs, lrs_t = [], []
for _ in range(15):
    lrs.append(optimizer.param_groups[0]["lr"])
    lrs_t.append(optimizer_t.param_groups[0]["lr"])
    optimizer.step()  # no gradient here: only the learning rate moves
    optimizer_t.step()
    schedule.step()
    schedule_t.step()
print(np.round(lrs, 4))
t = np.arange(11)
check_all({"learning rate, steps 0 to 14": (lrs, lrs_t),
           "steps 0 to 10: 0.3 (1 + cos(pi t / 10)) / 2": (
               lrs[:11], 0.3 * (1 + np.cos(np.pi * t / 10)) / 2, "formula")},
          rtol=1e-12, atol=1e-15)

# %% [markdown]
# It reaches $0$ at $t = T_{\max}$, and then climbs back up: the cosine goes on, with
# period $2\,T_{\max}$. So set $T_{\max}$ to the whole length of the training.

# %% [markdown]
# ## Exercises
#
# How the exercises work: see [Exercises](../book/exercises.md).
#
# ### Exercise 10.1: an SGD step by hand (2 points)
#
# Write `sgd_step(params, lr)`: update each parameter in the list `params` in place,
# $p \leftarrow p - \eta\, \nabla_p L$, skipping any whose `.grad` is None, as
# `optim.SGD` does; leave the gradients as they are. By hand: the check switches off
# the optimizers' `step` (minigrad's and torch's) and autograd while it runs, gives
# your function parameters with gradients already in `.grad`, and compares with
# torch's `optim.SGD` on copies.
#
# <details><summary>Hint</summary>
#
# Section 1 does this update for a model's parameters. Why must it not be recorded,
# and why must each parameter stay the same tensor (who else holds it)? Chapter 09 has
# a switch for the first, and its section 5 says which ways of changing a tensor
# autograd still notices.
# </details>

# %% solution=ex10-sgd-step
def sgd_step(params, lr):
    """p <- p - lr * p.grad for each parameter that has a gradient."""
    ### BEGIN SOLUTION
    for param in params:
        if param.grad is not None:
            param.data -= lr * param.grad  # through .data: nothing is recorded
    ### END SOLUTION

# %% test=ex10-sgd-step-test points=2
import inspect

import numpy as np
import torch
from torch.optim import sgd as torch_sgd

import minigrad
from minigrad.course.grading import graded
from minigrad.course.raised import raised

with graded("Exercise 10.1", hint="compare one parameter with its value before the "
            "step: by how much did it move, and is it still the same leaf?") as g:
    # torch's SGD.step is wrapped (profiling, grad mode): its innermost function, and
    # the functions it runs, are what can be switched off.
    steps_off = ["autograd", minigrad.optim.SGD.step, inspect.unwrap(torch.optim.SGD.step),
                 torch_sgd.sgd, torch_sgd._single_tensor_sgd, torch_sgd._multi_tensor_sgd]

    def check_step(shapes, lr, without_grad, seed):
        gen = torch.Generator().manual_seed(seed)
        values = [torch.randn(s, generator=gen, dtype=torch.float64) for s in shapes]
        grads = [None if i in without_grad else torch.randn(s, generator=gen, dtype=torch.float64)
                 for i, s in enumerate(shapes)]
        params = [minigrad.tensor(v.numpy().copy(), dtype=minigrad.float64, requires_grad=True)
                  for v in values]
        for p, gr in zip(params, grads, strict=True):
            p.grad = None if gr is None else minigrad.tensor(gr.numpy().copy(),
                                                             dtype=minigrad.float64)
        g.call(sgd_step, list(params), lr, forbid=steps_off, mistakes={
            "none-grad-used": ("your step multiplied a missing gradient: which parameters "
                               "have nothing in .grad, and what does optim.SGD do with them?",
                               raised(TypeError, "'NoneType'")),
            "step-recorded": ("autograd refused your in-place change of a leaf: was "
                              "recording off while you changed it?",
                              raised(RuntimeError, "leaf Variable that requires grad"))})
        label = f"shapes {shapes}, lr={lr}"
        g.require(f"{label}: still leaves that require grad",
                  all(type(p) is minigrad.Tensor and p.is_leaf and p.requires_grad
                      for p in params), "change the parameters in place, without recording")
        g.require(f"{label}: gradients left as they were",
                  all(p.grad is None if gr is None else
                      p.grad is not None and np.array_equal(p.grad.numpy(), gr.numpy())
                      for p, gr in zip(params, grads, strict=True)),
                  "a step reads .grad; it neither clears nor changes it", mistakes={
                      "grad-cleared": ("your step leaves .grad empty: who clears it, and "
                                       "when?", any(p.grad is None and gr is not None
                                                    for p, gr in zip(params, grads,
                                                                     strict=True)))})
        theirs = [v.clone().requires_grad_() for v in values]
        for t, gr in zip(theirs, grads, strict=True):
            t.grad = None if gr is None else gr.clone()
        torch.optim.SGD(theirs, lr=lr).step()
        for i, (p, t) in enumerate(zip(params, theirs, strict=True)):
            name = f"{label}: parameter {i}" + (" (no grad)" if i in without_grad else "")
            v, gr = values[i], grads[i]
            g.check(name, p, t.detach(), rtol=1e-12, mistakes={} if gr is None else {
                "uphill": ("your parameter moved up its gradient: which way lowers the "
                           "loss?", v + lr * gr),
                "did-not-move": ("this parameter did not move: did your step change the "
                                 "tensor the caller holds?", v),
                "ignores-lr": ("your step has the size of the worked example's lr: which lr "
                               "is given?", v - 0.2 * gr)})

    check_step([(2, 4), (2,), (2,)], lr=0.2, without_grad={2}, seed=101)
    ### BEGIN HIDDEN TESTS
    check_step([(3,)], lr=0.05, without_grad=set(), seed=102)
    check_step([(2, 3, 2), (), (4, 1)], lr=1.5, without_grad={1}, seed=103)
    check_step([(2, 2), (3,)], lr=0.0, without_grad=set(), seed=104)
    check_step([(2, 2), (2, 2)], lr=0.7, without_grad={0, 1}, seed=105)
    ### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 10.2: momentum by hand (3 points)
#
# Write a class `MomentumSGD(params, lr, momentum)`, where `params` is an iterable of
# parameters such as `model.parameters()`, with `zero_grad()` (set the gradients to
# None) and `step()`, implementing
# $b \leftarrow \mu b + \nabla_p L$ (with $b = \nabla_p L$ at a parameter's first
# step) and $p \leftarrow p - \eta\, b$, keeping one buffer per parameter and skipping
# a parameter whose `.grad` is None (its buffer stays as it is), as
# `torch.optim.SGD(params, lr, momentum=momentum)` does: torch's sum form of section 4,
# not the average form (which would need $\eta$ rescaled by $1 - \mu$ to pass). By
# hand: the check switches off the optimizers' `step` (minigrad's and torch's) while it
# runs your class, and compares the path of every parameter with torch's, for several
# learning rates and momenta.
#
# <details><summary>Hint</summary>
#
# How many times can you walk `model.parameters()`? Where does each buffer live
# between two calls of `step()`, and what does it hold before its parameter's first
# step? If a buffer *is* the `.grad` array, what happens to it when the next
# `backward()` writes into `.grad`?
# </details>

# %% solution=ex10-momentum
class MomentumSGD:
    """SGD with momentum, as torch.optim.SGD(params, lr, momentum)."""

    ### BEGIN SOLUTION
    def __init__(self, params, lr, momentum):
        self.params = list(params)
        self.lr = lr
        self.momentum = momentum
        self.buffers = [None] * len(self.params)

    def zero_grad(self):
        for param in self.params:
            param.grad = None

    def step(self):
        for i, param in enumerate(self.params):
            if param.grad is None:
                continue
            g = param.grad
            if self.buffers[i] is None:
                self.buffers[i] = g.clone()
            else:
                self.buffers[i] = self.momentum * self.buffers[i] + g
            param.data -= self.lr * self.buffers[i]
    ### END SOLUTION

# %% test=ex10-momentum-test points=3
import inspect

import numpy as np
import torch
from torch.optim import sgd as torch_sgd

import minigrad
from minigrad.course.grading import graded

with graded("Exercise 10.2", hint="follow one parameter through the first steps by "
            "hand: at which step does it part from torch, and what did its buffer hold "
            "then?") as g:
    # torch's SGD.step is wrapped (profiling, grad mode): its innermost function, and
    # the functions it runs, are what can be switched off.
    steps_off = ["autograd", minigrad.optim.SGD.step, inspect.unwrap(torch.optim.SGD.step),
                 torch_sgd.sgd, torch_sgd._single_tensor_sgd, torch_sgd._multi_tensor_sgd]

    def run_momentum_sgd(params, lr, momentum, plan):
        """MomentumSGD over the steps of plan (the gradients to put in .grad, or None)."""
        optimizer = MomentumSGD((p for p in params), lr, momentum)
        path, cleared, zeroed = [], [], []
        for step_grads in plan:
            optimizer.zero_grad()
            cleared.append(all(p.grad is None for p in params))
            zeroed.append(all(p.grad is None or not p.grad.numpy().any() for p in params))
            for p, gr in zip(params, step_grads, strict=True):
                if gr is not None:
                    p.grad = minigrad.tensor(gr.copy(), dtype=minigrad.float64)
            optimizer.step()
            path.append(np.concatenate([p.detach().numpy().ravel() for p in params]))
        return np.array(path), cleared, zeroed

    def path_of(values, plan, lr, momentum, how="torch"):
        """Every parameter after each step: torch's SGD, or a common mistake's by hand."""
        if how == "torch":
            theirs = [v.clone().requires_grad_() for v in values]
            optimizer = torch.optim.SGD(theirs, lr=lr, momentum=momentum)
        params = [v.numpy().copy() for v in values]
        buffers = [np.zeros(p.shape) if how == "old-buffer" else None for p in params]
        path = []
        for step_grads in plan:
            if how == "torch":
                optimizer.zero_grad()
            for i, gr in enumerate(step_grads):
                if gr is None:
                    continue
                if how == "torch":
                    theirs[i].grad = torch.tensor(gr)
                    continue
                b = buffers[i]
                if how == "old-buffer":  # the step along the buffer before its update
                    params[i] = params[i] - lr * b
                    buffers[i] = momentum * b + gr
                    continue
                if b is None:
                    buffers[i] = gr.copy()
                elif how == "dampened":
                    buffers[i] = momentum * b + (1 - momentum) * gr
                else:
                    buffers[i] = momentum * b + gr
                params[i] = params[i] - lr * (gr if how == "gradient-step" else buffers[i])
            if how == "torch":
                optimizer.step()
                params = [t.detach().numpy() for t in theirs]
            path.append(np.concatenate([p.ravel() for p in params]))
        return np.array(path)

    def check_momentum(shapes, lr, momentum, steps, missing, seed):
        """missing: {(step, parameter)} without a gradient at that step."""
        gen = torch.Generator().manual_seed(seed)
        values = [torch.randn(s, generator=gen, dtype=torch.float64) for s in shapes]
        plan = [[None if (k, i) in missing else
                 torch.randn(s, generator=gen, dtype=torch.float64).numpy()
                 for i, s in enumerate(shapes)] for k in range(steps)]
        params = [minigrad.tensor(v.numpy().copy(), dtype=minigrad.float64, requires_grad=True)
                  for v in values]
        path, cleared, zeroed = g.call(run_momentum_sgd, params, lr, momentum, plan,
                                       forbid=steps_off)
        label = f"shapes {shapes}, lr={lr}, momentum={momentum}"
        start = np.concatenate([v.numpy().ravel() for v in values])
        g.require(f"{label}: zero_grad() sets .grad to None", all(cleared),
                  "zero_grad() sets every parameter's .grad to None", mistakes={
                      "params-used-up": ("no parameter ever moved: how many times can you "
                                         "walk the params you were given?",
                                         all(np.array_equal(row, start) for row in path)),
                      "grad-zeroed": ("your zero_grad() leaves tensors of zeros in .grad: "
                                      "what does torch's leave there?", all(zeroed))})

        def mistake(how, lr=lr, momentum=momentum):
            return lambda: path_of(values, plan, lr, momentum, how)

        g.check(f"{label}: every parameter after each of {steps} steps", path,
                path_of(values, plan, lr, momentum), rtol=1e-12, mistakes={
                    "dampened": ("your buffer grows more slowly than torch's: what weight "
                                 "does torch's sum form give the new gradient?",
                                 mistake("dampened")),
                    "gradient-step": ("your parameters move as plain SGD's: what does the "
                                      "step multiply by lr?", mistake("gradient-step")),
                    "old-buffer": ("your first step does not move the parameters: does the "
                                   "step use the buffer before or after it takes in the "
                                   "new gradient?", mistake("old-buffer")),
                    "ignores-momentum": ("your path is torch's with momentum 0.8: which "
                                         "momentum is given?", mistake("torch", momentum=0.8)),
                    "ignores-lr": ("your path is torch's with lr 0.05: which lr is given?",
                                   mistake("torch", lr=0.05)),
                    "example-numbers": ("your path is torch's with the worked example's lr "
                                        "0.05 and momentum 0.8: which ones are given?",
                                        mistake("torch", lr=0.05, momentum=0.8))})

    check_momentum([(2, 3), (2,)], lr=0.05, momentum=0.8, steps=5, missing=set(), seed=102)
    ### BEGIN HIDDEN TESTS
    check_momentum([(2, 3), (2,)], lr=0.3, momentum=0.5, steps=6, missing=set(), seed=103)
    check_momentum([(4,), (4,)], lr=0.01, momentum=0.95, steps=8, missing=set(), seed=104)
    check_momentum([(3,)], lr=0.1, momentum=0.0, steps=4, missing=set(), seed=105)
    check_momentum([(2, 2, 2), (), (3, 1)], lr=0.2, momentum=0.9, steps=6,
                   missing={(0, 1), (1, 1), (3, 0), (4, 2)}, seed=106)
    ### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 10.3: weight decay is a term in the loss (2 points)
#
# `optim.SGD(..., weight_decay=lam)` adds $\lambda p$ to every gradient before the
# step. The same update comes from plain SGD on a loss with an extra term. Write
# `loss_with_decay(net, inputs, targets, lam)`: the mean squared error of
# `net(inputs)` plus the term $R$ whose gradient with respect to *every* parameter $p$
# of the net is $\lambda p$, and which is $0$ when all the parameters are $0$. Return
# the loss; do not call `backward()` (the training loop does). Plain SGD on it must
# then match torch's SGD with `weight_decay=lam` on the plain mean squared error.
#
# <details><summary>Hint</summary>
#
# Which function of one number $x$ has the derivative $\lambda x$ and is $0$ at $0$?
# Apply it to every entry of every parameter (torch's weight decay applies to every
# parameter it is given, the biases too) and add up.
# </details>

# %% solution=ex10-decay
def loss_with_decay(net, inputs, targets, lam):
    """Mean squared error plus lam / 2 times the sum of squares of all parameters."""
    ### BEGIN SOLUTION
    total = ((net(inputs) - targets) ** 2).mean()
    for param in net.parameters():
        total = total + lam / 2 * (param ** 2).sum()
    return total
    ### END SOLUTION

# %% test=ex10-decay-test points=2
import numpy as np
import torch

import minigrad
from minigrad.course.grading import graded

with graded("Exercise 10.3", hint="compare your loss with the mean squared error alone: "
            "by how much should they differ for these parameters, and which parameters "
            "count?") as g:
    def train_with(net, inputs, targets, lam, lr, steps):
        """Plain SGD on loss_with_decay; the loss of each step, and whether each is a Tensor."""
        optimizer = minigrad.optim.SGD(net.parameters(), lr=lr)
        losses, tensors = [], []
        for _ in range(steps):
            optimizer.zero_grad()
            loss = loss_with_decay(net, inputs, targets, lam)
            tensors.append(type(loss) is minigrad.Tensor and loss.grad_fn is not None)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        return losses, tensors

    def nets(sizes, seed):
        """The same MLP (Linear, ReLU, Linear, ...) in torch and minigrad, float64."""
        torch.manual_seed(seed)
        layers, layers_t = [], []
        for i, (n_in, n_out) in enumerate(zip(sizes, sizes[1:], strict=False)):
            if i:
                layers.append(minigrad.nn.ReLU())
                layers_t.append(torch.nn.ReLU())
            layers.append(minigrad.nn.Linear(n_in, n_out, dtype=minigrad.float64))
            layers_t.append(torch.nn.Linear(n_in, n_out, dtype=torch.float64))
        theirs = torch.nn.Sequential(*layers_t)
        return minigrad.nn.Sequential(*layers).load_state_dict(theirs.state_dict()), theirs

    def check_decay(sizes, n_rows, lam, lr, steps, seed):
        ours, theirs = nets(sizes, seed)
        inputs_t = torch.randn(n_rows, sizes[0], dtype=torch.float64)
        targets_t = torch.randn(n_rows, sizes[-1], dtype=torch.float64)
        label = f"sizes {sizes}, lam={lam}, lr={lr}"
        before = g.calls.get("minigrad.autograd", 0)
        losses, tensors = g.call(train_with, ours, minigrad.tensor(inputs_t.numpy().copy()),
                                 minigrad.tensor(targets_t.numpy().copy()), lam, lr, steps,
                                 forbid="torch.autograd", count="minigrad.autograd")
        calls = g.calls["minigrad.autograd"] - before
        g.require(f"{label}: a loss tensor with a graph, backward() only by the loop",
                  all(tensors) and calls == steps,
                  "return the loss as a minigrad tensor computed from the parameters, and "
                  "do not call backward() yourself")
        optimizer = torch.optim.SGD(theirs.parameters(), lr=lr, weight_decay=lam)
        seen_t = []  # torch's mean squared error and parameters before each step
        for _ in range(steps):
            optimizer.zero_grad()
            loss_t = torch.nn.functional.mse_loss(theirs(inputs_t), targets_t)
            loss_t.backward()
            seen_t.append((loss_t.item(), [p.detach().clone() for p in theirs.parameters()]))
            optimizer.step()
        runs = {}

        def trained(how, name):
            """A parameter after plain SGD on the loss a common mistake writes (torch)."""
            if how not in runs:
                _, net_t = nets(sizes, seed)
                optimizer = torch.optim.SGD(net_t.parameters(), lr=lr)
                for _ in range(steps):
                    optimizer.zero_grad()
                    err = (net_t(inputs_t) - targets_t) ** 2
                    loss = err.sum() / 32 if how == "example-rows" else err.mean()
                    for key, q in net_t.named_parameters():
                        square = (q ** 2).mean() if how == "mean-not-sum" else (q ** 2).sum()
                        loss = loss + {"twice-lam": lam, "no-gradient": 0.0,
                                       "weights-only": lam / 2 * key.endswith("weight"),
                                       "first-layer-only": lam / 2 * key.startswith("0."),
                                       "ignores-lam": 0.3 / 2}.get(how, lam / 2) * square
                    loss.backward()
                    optimizer.step()
                runs[how] = dict(net_t.named_parameters())
            return runs[how][name].detach()

        nudges = {
            "twice-lam": "your parameters shrink twice as fast as torch's: what is the "
                         "derivative of your term?",
            "no-gradient": "your parameters move as without any decay: does your term "
                           "reach the parameters' gradients?",
            "weights-only": "your biases do not decay: which parameters does torch's "
                            "weight decay apply to?",
            "mean-not-sum": "your decay is weaker on the parameters with more entries: "
                            "does your term add up every entry?",
            "ignores-lam": "your decay is torch's with lam = 0.3: which lam is given?",
            "first-layer-only": "only your first layer decays: which parameters does "
                                "net.parameters() give?",
            "example-rows": "your mean squared error weighs rows as if there were 32: how "
                            "many rows are there?"}
        for (name, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters(),
                                     strict=True):
            g.check(f"{label}: {name} after {steps} steps", p, q.detach(), rtol=1e-10,
                    atol=1e-13, mistakes={how: (nudge, lambda how=how, name=name:
                                                trained(how, name))
                                          for how, nudge in nudges.items()})
        return losses, seen_t

    check_decay([3, 1], n_rows=32, lam=0.3, lr=0.1, steps=4, seed=104)
    ### BEGIN HIDDEN TESTS
    for sizes, n_rows, lam, lr, steps, seed in [([4, 3], 10, 0.05, 0.2, 5, 105),
                                                ([3, 5, 2], 7, 1.0, 0.05, 3, 106)]:
        losses, seen_t = check_decay(sizes, n_rows, lam, lr, steps, seed)
        values_t = [mse + lam / 2 * sum((p ** 2).sum().item() for p in params)
                    for mse, params in seen_t]
        g.check(f"the loss of each step, sizes {sizes}", losses, values_t, rtol=1e-12,
                against="MSE + lam/2 sum p^2")
    check_decay([2, 1], n_rows=5, lam=0.0, lr=0.1, steps=3, seed=107)
    ### END HIDDEN TESTS

# %% [markdown]
# ## 7. Weight decay is not L2 for Adam
#
# For SGD, `weight_decay=lam` adds $\lambda p$ to the gradient, which is the gradient of
# the term $\frac{\lambda}{2} \sum p^2$ (Exercise 10.3): weight decay and an L2 term in
# the loss are the same thing, and each step shrinks $p$ by the factor $1 - \eta\lambda$
# before the loss's own step. `optim.Adam(..., weight_decay=lam)` also adds $\lambda p$
# to $g$, *before* the averages: the decay is then divided by $\sqrt{s}$ like the rest of
# the gradient. `optim.AdamW` (Loshchilov and Hutter, "Decoupled weight decay
# regularization") instead shrinks the parameter first, $p \leftarrow (1 - \eta\lambda)\,
# p$, and then takes Adam's step on the loss's gradient alone.
#
# To see the difference, give the valley a third coordinate $w$ that the loss ignores
# (`valley` reads only `p[0]` and `p[1]`): $w$'s gradient is $\lambda w$ and nothing
# else, so all its motion is the decay. Ten steps from $(-4, 1, 1)$ with $\eta = 0.09$,
# for $\lambda = 0.1$ and a hundred times less:

# %%
decayed = {}
for lam in (0.1, 0.001):
    for name in ("SGD", "Adam", "AdamW"):
        ours, theirs = (descend_with(lib, name, start=(-4.0, 1.0, 1.0), steps=10, lr=0.09,
                                     weight_decay=lam) for lib in (minigrad, torch))
        decayed[f"{name}, lambda {lam}: w after 10 steps"] = (ours[-1, 2], theirs[-1, 2])
check_all(decayed, rtol=1e-12, atol=1e-15)

# %% [markdown]
# SGD and AdamW leave $w = 0.9136$ for $\lambda = 0.1$ and $0.9991$ for $\lambda =
# 0.001$: the factor $(1 - \eta\lambda)^{10}$. Adam with `weight_decay` leaves $w =
# 0.1566$ for *both*: its step divides $\lambda w$ by the root of its own running mean
# of squares, so $\lambda$ cancels, and $w$ moves by about $\eta$ per step.
#
# And the coordinates that do have a loss gradient? What $\lambda = 0.1$ changes in
# $(u, v, w)$ after the ten steps, against the same run with $\lambda = 0$:

# %%
def decay_effect(lib, name, lam=0.1):
    """(u, v, w) after 10 steps with weight_decay=lam, minus (u, v, w) after 10 without."""
    ends = [descend_with(lib, name, start=(-4.0, 1.0, 1.0), steps=10, lr=0.09,
                         weight_decay=wd)[-1] for wd in (lam, 0.0)]
    return ends[0] - ends[1]


effects = {name: (decay_effect(minigrad, name), decay_effect(torch, name))
           for name in ("SGD", "Adam", "AdamW")}
for name, (_, effect) in effects.items():
    print(f"{name:5s}: weight_decay=0.1 moves (u, v, w) by "
          + ", ".join(f"{x:+.1e}" for x in effect))
aw_t = descend_with(torch, "AdamW", start=(-4.0, 1.0, 1.0), steps=10, lr=0.09,
                    weight_decay=0.1)
check_all({**{f"{name}: the effect of the decay": pair for name, pair in effects.items()},
           "AdamW: w_k = (1 - 0.09 * 0.1)**k": ((1 - 0.09 * 0.1) ** np.arange(11), aw_t[:, 2])},
          rtol=1e-10, atol=1e-15, brief=True)

# %% [markdown]
# With Adam, the decay moves $u$ and $v$ by $10^{-10}$ and less: their loss gradients
# dominate $\sqrt{s}$, and $\lambda p$ divided by it is nothing. So with Adam an L2 term
# (or `weight_decay`) is no longer a decay set by $\lambda$: weights with small
# gradients are pulled to $0$ at full speed, weights with large gradients not at all.
# AdamW pulls every coordinate towards $0$ ($u$ by $+0.31$ from $-3.1$, $v$ and $w$
# down), and $w$ exactly by the factor $(1 - \eta\lambda)^k$ that $\lambda$ means, as
# SGD's decay does.

# %% [markdown]
# ## Predict before you run
#
# Guess each answer, then run the cell.
#
# **1.** Plain SGD on the valley of section 4 was stable with $\eta = 0.09$. With
# $\eta = 0.11$, is the loss after 40 steps a little lower, a little higher, or huge?

# %%
for lr_guess in (0.09, 0.11):
    end, end_t = descend(minigrad, 0.0, lr=lr_guess)[-1], descend(torch, 0.0, lr=lr_guess)[-1]
    print(f"lr {lr_guess}: loss after 40 steps {valley(minigrad.tensor(end)).item():.3g}")
    display(check(f"point after 40 steps, lr {lr_guess}", end, end_t, rtol=1e-12, brief=True))

# %% [markdown]
# <details><summary>Why</summary>
#
# $\eta = 0.11$ is past $2/\lambda_{\max} = 0.1$: across the valley each step multiplies
# $v$ by $1 - 20 \cdot 0.11 = -1.2$, so $v$ grows as $1.2^{40}$; a 20 % larger step is
# not a bit faster, it diverges.
# </details>
#
# **2.** A parameter's gradient is $1000$. How far does the first step of `optim.Adam`
# with `lr=0.1` move it? And the first step of `optim.SGD` with `lr=0.1`?

# %%
first_steps = {}
for name in ("Adam", "SGD"):
    for lib in (minigrad, torch):
        q = lib.tensor([0.0], dtype=lib.float64, requires_grad=True)
        step_opt = getattr(lib.optim, name)([q], lr=0.1)
        (1000 * q).sum().backward()  # the gradient of 1000 q is 1000
        step_opt.step()
        first_steps.setdefault(name, []).append(q.detach().numpy().copy())
    print(f"{name}: moved to {first_steps[name][0][0]:.4f}")
check_all({f"{name}: the parameter after one step": pair
           for name, pair in first_steps.items()}, brief=True)

# %% [markdown]
# <details><summary>Why</summary>
#
# Adam's first step is $-\eta\, g / |g|$ (section 6): $-0.1$ whatever the size of the
# gradient. SGD's is $-\eta\, g = -100$.
# </details>
#
# **3.** One `backward()`, then `optimizer.step()` called twice (plain SGD, no
# momentum). Does the weight move once or twice?

# %%
twice = []
for lib in (minigrad, torch):
    q = lib.tensor([1.0], dtype=lib.float64, requires_grad=True)
    step_opt = lib.optim.SGD([q], lr=0.1)
    (3 * q).sum().backward()  # q.grad = 3
    step_opt.step()
    step_opt.step()
    twice.append(q.detach().numpy().copy())
print(f"q after two steps: {twice[0][0]:.2f}")
check("q after one backward and two steps", *twice, brief=True)

# %% [markdown]
# <details><summary>Why</summary>
#
# `step()` reads `.grad` and does not clear it, so the second call steps again with the
# same gradient: $1 - 2 \cdot 0.1 \cdot 3 = 0.4$. Only `zero_grad()` (or the next
# `backward()`, which adds to it) changes `.grad`.
# </details>
#
# **4.** After `optimizer.zero_grad()`, what is in `p.grad`: a tensor of zeros, or
# something else?

# %%
cleared = []
for lib in (minigrad, torch):
    q = lib.tensor([1.0, 2.0], requires_grad=True)
    step_opt = lib.optim.SGD([q], lr=0.1)
    (q * q).sum().backward()
    step_opt.zero_grad()
    cleared.append(q.grad is None)
print("q.grad is None after zero_grad():", cleared[0])
check("q.grad is None", cleared[0], cleared[1], brief=True)

# %% [markdown]
# <details><summary>Why</summary>
#
# `zero_grad()` sets each gradient to `None` (`set_to_none=True` is the default since
# torch 2.0), which frees the memory; `zero_grad(set_to_none=False)` fills zeros instead.
# With `None`, a parameter that gets no gradient in the next step is skipped by `step()`
# rather than moved by momentum or weight decay on a zero gradient.
# </details>

# %% [markdown]
# ## Summary
#
# - Gradients only fill `.grad`; the optimizer changes the parameters. SGD moves each
#   parameter by $-\eta\,\nabla_p L$, in place and under `no_grad()`.
# - The reference tutorial's training step runs unchanged with minigrad and, from torch's
#   initial weights, lands on torch's parameters.
# - The order is: clear, forward, backward, step. Clearing after backward freezes the
#   model; stepping before backward, right after zero_grad, never moves the weights;
#   step, zero_grad, backward trains one step late with one layer and raises the in-place
#   error with a hidden layer; never clearing overshoots.
# - A module's parameter is updated in place under `no_grad()`; `w = w - ...` on it
#   raises in both libraries.
# - Plain SGD is stable only for $\eta < 2 / \lambda_{\max}$. Momentum (torch's sum
#   form; the average form is the same with $\eta$ rescaled by $1 - \mu$) steps along a
#   decaying sum of gradients. Along a nearly flat direction ($\eta\lambda \ll
#   (1 - \sqrt{\mu})^2$) its effective step is $\eta / (1 - \mu)$; on this valley both
#   directions have complex roots of modulus $\sqrt{\mu}$, so $u$ spirals in faster
#   ($0.837^k$ against $0.91^k$), which is where it gains, and across the valley it
#   does not help.
# - Cross-entropy is log-softmax followed by the negative log-likelihood.
# - An MLP 64-32-10 trained on `load_digits()` with minigrad and with torch, from the
#   same start, follows the same loss curve and ends with the same parameters (to
#   float64 rounding) and the same test predictions, 97 % of them right.
# - RMSprop and Adam divide each coordinate's gradient by the root of its running mean
#   square: Adam's first step is $\eta$ in every coordinate, whatever the gradient, so
#   $\eta$ need not fit the steepest direction. `CosineAnnealingLR` lowers $\eta$ to $0$
#   at $T_{\max}$, then raises it again.
# - A loss summed over a batch of $N$ has gradients $N$ times those of the mean: SGD
#   needs $\eta / N$ to take the same steps; Adam takes them with the same $\eta$ (its
#   $\epsilon$ acts as $\epsilon / N$).
# - Adam's `weight_decay` (an L2 term) is divided by that root mean square too, so
#   $\lambda$ hardly matters; AdamW shrinks every weight by $1 - \eta\lambda$ per step,
#   as SGD's decay does.
#
# Next: [11 Gradient checking](11_gradient_checking.ipynb), testing a gradient without
# trusting any library.
