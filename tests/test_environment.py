"""The places that name versions agree: pyproject.toml, environment.yml, constraints.txt.

pyproject.toml holds ranges (the package installs next to what a learner already has);
constraints.txt and environment.yml pin the course's environment exactly. Every range
must admit its pin, and both pin files must pin the same versions.
"""

import pathlib
import re

import tomllib
import yaml
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name

ROOT = pathlib.Path(__file__).resolve().parent.parent
PIN = re.compile(r"^([A-Za-z0-9_.\-]+)==([^\s;]+)$")
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
SUPPORTED_PYTHONS = ["3.10", "3.11", "3.12", "3.13", "3.14"]


def _pins(lines):
    pins = {}
    for line in lines:
        match = PIN.match(line.strip())
        if match:
            pins[canonicalize_name(match[1])] = match[2]
    return pins


def _requirements():
    """Every requirement of the package and its extras, less the extras' self-references."""
    lines = list(PROJECT["dependencies"])
    for extra in PROJECT["optional-dependencies"].values():
        lines += extra
    reqs = [Requirement(line) for line in lines]
    return [r for r in reqs if canonicalize_name(r.name) != canonicalize_name(PROJECT["name"])]


def _environment_pins():
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip_section = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    return env, _pins(pip_section)


def test_distribution_name_is_ours_and_import_name_is_minigrad():
    # `minigrad` on the package index is an unrelated project; ours is minigrad-course.
    assert PROJECT["name"] == "minigrad-course"
    assert (ROOT / "minigrad" / "__init__.py").exists()


def test_pyproject_gives_ranges_with_a_lower_bound_not_pins():
    for req in _requirements():
        ops = {spec.operator for spec in req.specifier}
        assert ">=" in ops, f"{req}: give a lower bound (>=)"
        assert not ops & {"==", "==="}, f"{req}: pin in constraints.txt, not pyproject.toml"


def test_requires_python_admits_every_supported_version():
    spec = SpecifierSet(PROJECT["requires-python"])
    for version in SUPPORTED_PYTHONS:
        assert spec.contains(version), f"requires-python excludes {version}"
        assert f"Programming Language :: Python :: {version}" in PROJECT["classifiers"]


def test_minigrad_itself_needs_numpy_only():
    assert [Requirement(r).name for r in PROJECT["dependencies"]] == ["numpy"]
    helpers = {Requirement(r).name for r in PROJECT["optional-dependencies"]["helpers"]}
    assert helpers == {"matplotlib", "ipywidgets"}


def test_constraints_pin_every_requirement_inside_its_range_and_cpu_torch():
    constraints = _pins((ROOT / "constraints.txt").read_text().splitlines())
    for req in _requirements():
        pin = constraints.get(canonicalize_name(req.name))
        assert pin is not None, f"{req.name} is not pinned in constraints.txt (make constraints)"
        assert req.specifier.contains(pin, prereleases=True), f"{req}: pin {pin} is outside"
    assert constraints["torch"] == "2.13.0"


def test_environment_yml_pins_what_constraints_pin():
    env, pins = _environment_pins()
    assert "python=3.11" in env["dependencies"]
    constraints = _pins((ROOT / "constraints.txt").read_text().splitlines())
    wanted = {canonicalize_name(r.name) for r in _requirements()}
    assert set(pins) == wanted, "environment.yml must pin exactly pyproject's requirements"
    for name, version in pins.items():
        assert constraints[name] == version, f"{name}: {version} vs constraints.txt"
