"""minigrad/course/fast_tracebacks.py: the tracebacks an IPython shell shows and stores are
the same lines with and without it, and each is formatted once, not twice."""

import json
import subprocess
import sys
import textwrap

import pytest

# Cells as a chapter has them: errors raised deep in minigrad and in torch, chained ones, a
# syntax error, a name error, and the formatter's options changed between them.
CELLS = [
    "import minigrad, torch",
    "x = minigrad.tensor(3.0, dtype=minigrad.float64, requires_grad=True)\n"
    "(g,) = minigrad.autograd.grad(x ** 2, x)\nminigrad.autograd.grad(g, x)",
    "x_t = torch.tensor(3.0, dtype=torch.float64, requires_grad=True)\n"
    "(g_t,) = torch.autograd.grad(x_t ** 2, x_t)\ntorch.autograd.grad(g_t, x_t)",
    "def f(n):\n    return 1 / n if n == 0 else f(n - 1)\nf(3)",
    "try:\n    {}['key']\nexcept KeyError as e:\n    raise ValueError('chained') from e",
    "x = (",
    "undefined_name + 1",
    "%xmode Verbose",
    "def g(a):\n    b = a * 2\n    return b / 0\ng(21)",
    "%xmode Minimal",
    "raise RuntimeError('short')",
    "%xmode Context\n%colors nocolor",
    "[1, 2][5]",
    "%colors linux",
    "assert 1 == 2, 'plain assert'",
]

SCRIPT = textwrap.dedent("""
    import json, sys
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.core import ultratb

    if sys.argv[1] == "fast":
        from minigrad.course import fast_tracebacks
        fast_tracebacks.install()
    formatted = []  # each real formatting: AutoFormattedTB's calls FormattedTB's
    own = ultratb.FormattedTB.structured_traceback

    def counted(self, *args, **kwargs):
        formatted.append(1)
        return own(self, *args, **kwargs)

    ultratb.FormattedTB.structured_traceback = counted
    shell = InteractiveShell.instance(colors="linux")
    shown = []
    shell._showtraceback = lambda etype, evalue, stb: shown.append(stb)
    results = []
    for cell in json.loads(sys.stdin.read()):
        shown.clear()
        count = shell.execution_count
        shell.run_cell(cell, store_history=True)
        stored = shell.history_manager.exceptions.get(count)
        results.append([list(shown), stored and stored["traceback"]])
    print(json.dumps({"results": results, "formatted": len(formatted)}))
""")


def run(mode):
    done = subprocess.run([sys.executable, "-c", SCRIPT, mode], input=json.dumps(CELLS),
                          capture_output=True, text=True, timeout=120, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def both():
    return run("plain"), run("fast")


def test_the_same_lines_shown_and_stored(both):
    plain, fast = both
    assert len(plain["results"]) == len(CELLS)
    errors = [i for i, (shown, stored) in enumerate(plain["results"]) if stored]
    assert len(errors) == 10  # every cell above that raises
    for i, (expected, got) in enumerate(zip(plain["results"], fast["results"], strict=True)):
        assert got == expected, f"cell {i}: {CELLS[i]!r}"
    for shown, stored in fast["results"]:
        if stored:
            assert shown == [stored]  # IPython's own guarantee, kept


def test_each_traceback_formatted_once(both):
    plain, fast = both
    # IPython formats each of the 9 non-syntax errors twice (shown, then stored; a
    # SyntaxError goes through its own formatter); the memory once
    assert plain["formatted"] == 18
    assert fast["formatted"] == 9


def test_another_exception_or_option_is_formatted_anew():
    script = textwrap.dedent("""
        import sys
        from IPython.core import ultratb
        from minigrad.course import fast_tracebacks
        fast_tracebacks.install()
        tb = ultratb.AutoFormattedTB(mode="Context", theme_name="linux", tb_offset=0)

        def raised(message):
            try:
                raise ValueError(message)
            except ValueError as e:
                return e

        one, two = raised("one"), raised("two")
        first = tb.structured_traceback(ValueError, one, one.__traceback__)
        assert tb.structured_traceback(ValueError, one, one.__traceback__) == first
        assert "two" in tb.structured_traceback(ValueError, two, two.__traceback__)[-1]
        tb.set_mode("Minimal")
        minimal = tb.structured_traceback(ValueError, one, one.__traceback__)
        assert minimal != first and len(minimal) < len(first), minimal
        tb.set_mode("Context")
        assert tb.structured_traceback(ValueError, one, one.__traceback__, context=1) != first
        print("ok")
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert done.stdout.strip() == "ok", done.stderr[-2000:]
