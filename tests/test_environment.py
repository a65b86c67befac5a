"""The three places that pin versions agree: pyproject.toml, environment.yml, constraints.txt."""

import pathlib
import re
import tomllib

import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent
PIN = re.compile(r"^([A-Za-z0-9_.\-]+)==([^\s;]+)$")


def _pins(lines):
    pins = {}
    for line in lines:
        match = PIN.match(line.strip())
        if match:
            pins[match[1].lower().replace("_", "-")] = match[2]
    return pins


def _pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    lines = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        lines += extra
    return lines


def test_pyproject_pins_every_requirement_exactly():
    lines = _pyproject()
    assert lines
    unpinned = [line for line in lines if not PIN.match(line)]
    assert not unpinned, f"pin these with ==: {unpinned}"


def test_environment_yml_matches_pyproject():
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip_section = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    assert "python=3.11" in env["dependencies"]
    assert _pins(pip_section) == _pins(_pyproject())


def test_constraints_agree_with_pyproject_and_pin_cpu_torch():
    constraints = _pins((ROOT / "constraints.txt").read_text().splitlines())
    for name, version in _pins(_pyproject()).items():
        assert constraints.get(name) == version, f"{name}: {constraints.get(name)} in constraints"
    assert constraints["torch"] == "2.13.0"
