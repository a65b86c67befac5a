"""Rewrite constraints.txt from what .venv holds (run by `make constraints`).

After changing a pin in pyproject.toml: install it into .venv, run this, and update
environment.yml to match (tests/test_environment.py checks all three agree).
"""

import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
HEADER = """\
# Exact versions of every package in .venv, passed with -c on every install.
# torch is the CPU build; a bare 'torch' would pull a CUDA build of several GB.
# Regenerate: make constraints (after changing pyproject.toml).
# jsonschema stays at 4.24.1: 4.25+ pulls rfc3987-syntax, which compiles ~40 Lark grammars
# at import, 1.7 s in every process that imports nbformat (each nbgrader command, nbval,
# JupyterLab); python-jsonschema/jsonschema#1428. Nothing here validates an IRI.
"""


def main():
    frozen = subprocess.run([sys.executable, "-m", "pip", "freeze", "--exclude-editable"],
                            capture_output=True, text=True, check=True).stdout.splitlines()
    pins = [line.split("+")[0] for line in frozen if "==" in line]
    (ROOT / "constraints.txt").write_text(HEADER + "\n".join(pins) + "\n")
    print(f"pinned {len(pins)} packages in constraints.txt")


if __name__ == "__main__":
    main()
