"""Which packages of an environment differ from constraints.txt (run by `make test-latest`).

Prints one line per package whose version is not its pin, and the packages that
constraints.txt does not pin at all, so a failure of the latest-release run can be
traced to the releases that caused it.
"""

import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _pins(lines):
    pins = {}
    for line in lines:
        name, sep, version = line.strip().partition("==")
        if sep and not name.startswith("#"):
            pins[name.lower().replace("_", "-")] = version.split("+")[0]
    return pins


def main():
    python = sys.argv[1] if len(sys.argv) > 1 else sys.executable
    frozen = subprocess.run([python, "-m", "pip", "freeze", "--exclude-editable"],
                            capture_output=True, text=True, check=True).stdout.splitlines()
    have = _pins(frozen)
    pinned = _pins((ROOT / "constraints.txt").read_text().splitlines())
    newer = [f"  {name}: {pinned[name]} -> {have[name]}" for name in sorted(have)
             if name in pinned and have[name] != pinned[name]]
    extra = [f"  {name}: {have[name]} (not in constraints.txt)" for name in sorted(have)
             if name not in pinned]
    print(f"{len(newer)} of {len(have)} packages differ from constraints.txt:", *newer,
          *extra, sep="\n")


if __name__ == "__main__":
    main()
