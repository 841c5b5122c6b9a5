"""The lock files of requirements/ and the way .ci/run and the Dockerfile install them.

A lock that installs today must install the same files next year. The install therefore
resolves nothing (requirements/install.sh: --no-deps, --require-hashes): with dependency
resolution on, pip turns a dependency required with an extra ("coverage[toml]>=7.10") into a
requirement of its own, picks the newest release the index offers, and --require-hashes then
refuses the whole install the day a newer release is published. The slow test here plays that
day: a folder of newer releases of every locked package sits beside the index, and the install
must still take exactly the pinned versions.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name

from tests.test_packaging import dockerfile_instructions

LOCKS = ("dev.lock", "runtime.lock", "build.lock")
SUPPORTED_PYTHONS = ("3.11", "3.12", "3.13", "3.14")
"""The Python versions the locks are resolved for (refresh.sh: Python 3.11 and newer), up to the
newest release."""
A_LATER_RELEASE = "9999.0"
PIN = re.compile(r"^(?P<name>[A-Za-z0-9._-]+)==(?P<version>[^\s;\\]+)\s*(?:;(?P<marker>[^\\]+))?")


@dataclass(frozen=True)
class Pin:
    name: str
    version: str
    marker: str | None
    hashes: int

    def applies_here(self) -> bool:
        return self.marker is None or Marker(self.marker).evaluate()

    def applies_on(self, python: str) -> bool:
        """Whether the pin is installed on Python `python` ("3.12")."""
        return self.marker is None or Marker(self.marker).evaluate(python_environment(python))


def python_environment(python: str) -> dict[str, str]:
    """The marker variables of Python `python` ("3.12"), the others as here."""
    return {"python_version": python, "python_full_version": f"{python}.0"}


def lock_pins(path: Path) -> list[Pin]:
    """Every pin of a lock file written by refresh.sh, in order: a project may have one pin per
    range of Python versions."""
    pins: list[Pin] = []
    text = path.read_text(encoding="utf-8")
    for block in re.split(r"\n(?=\S)", text):
        match = PIN.match(block)
        if match is None:
            assert block.startswith("#") or not block.strip(), f"{path.name}: {block[:60]!r}"
            continue
        name = canonicalize_name(match["name"])
        marker = match["marker"].strip() if match["marker"] else None
        pins.append(Pin(name, match["version"], marker, block.count("--hash=sha256:")))
    return pins


def read_lock(path: Path) -> dict[str, Pin]:
    """The pins of a lock file written by refresh.sh, by canonical project name."""
    pins: dict[str, Pin] = {}
    for pin in lock_pins(path):
        if pin.name not in pins or pin.applies_here():  # of one pin per Python version, this one's
            pins[pin.name] = pin
    return pins


@pytest.fixture(scope="module")
def requirements_dir(repo_root: Path) -> Path:
    return repo_root / "requirements"


@pytest.mark.parametrize("lock", LOCKS)
def test_every_requirement_is_pinned_with_hashes(requirements_dir: Path, lock: str) -> None:
    pins = read_lock(requirements_dir / lock)

    assert pins, f"{lock} pins nothing"
    assert all(pin.hashes >= 1 for pin in pins.values()), lock


def test_runtime_and_build_locks_agree_with_the_dev_lock(requirements_dir: Path) -> None:
    dev = read_lock(requirements_dir / "dev.lock")
    for lock in ("runtime.lock", "build.lock"):
        for name, pin in read_lock(requirements_dir / lock).items():
            assert name in dev, f"{lock} pins {name}, which dev.lock lacks"
            assert pin.version == dev[name].version, f"{lock} and dev.lock differ on {name}"


def test_the_runtime_lock_holds_the_runtime_dependencies(requirements_dir: Path) -> None:
    runtime = read_lock(requirements_dir / "runtime.lock")

    assert {"discord-py", "aiosqlite", "asyncpg", "openskill", "pillow"} <= set(runtime)
    assert not {"pytest", "coverage", "mypy", "ruff"} & set(runtime)


def requirements_of(pyproject: dict[str, Any], lock: str) -> list[Requirement]:
    """What pyproject.toml asks of the environment `lock` installs (refresh.sh): the runtime
    dependencies, those and the test and dev extras, or the build backend."""
    project = pyproject["project"]
    declared = {
        "runtime.lock": project["dependencies"],
        "dev.lock": [
            *project["dependencies"],
            *project["optional-dependencies"]["test"],
            *project["optional-dependencies"]["dev"],
        ],
        "build.lock": pyproject["build-system"]["requires"],
    }[lock]
    return [Requirement(requirement) for requirement in declared]


@pytest.mark.parametrize("lock", LOCKS)
@pytest.mark.parametrize("python", SUPPORTED_PYTHONS)
def test_each_lock_pins_everything_pyproject_asks_of_it_on_every_supported_python(
    repo_root: Path, requirements_dir: Path, lock: str, python: str
) -> None:
    """The project itself is installed without its dependencies, after the lock: a dependency
    of the project that the lock lacks, or pins outside the range pyproject.toml gives, would
    be found only when the bot first imports it."""
    with (repo_root / "pyproject.toml").open("rb") as file:
        pyproject = tomllib.load(file)
    assert SpecifierSet(pyproject["project"]["requires-python"]).contains(python)
    pinned = {
        pin.name: pin.version
        for pin in lock_pins(requirements_dir / lock)
        if pin.applies_on(python)
    }

    wanted = [
        requirement
        for requirement in requirements_of(pyproject, lock)
        if requirement.marker is None or requirement.marker.evaluate(python_environment(python))
    ]
    missing = sorted({canonicalize_name(r.name) for r in wanted} - set(pinned))
    assert not missing, f"{lock} pins no {missing} for Python {python}"
    outside = [
        f"{r} (pinned {pinned[canonicalize_name(r.name)]})"
        for r in wanted
        if pinned[canonicalize_name(r.name)] not in r.specifier
    ]
    assert not outside, f"{lock}, Python {python}: {outside}"


def test_ci_installs_the_dev_lock_without_resolving_and_checks_it(repo_root: Path) -> None:
    ci = (repo_root / ".ci" / "run").read_text(encoding="utf-8")
    installer = (repo_root / "requirements" / "install.sh").read_text(encoding="utf-8")

    assert re.search(r"bash requirements/install\.sh \S+ requirements/dev\.lock", ci)
    assert re.search(r"pip install\b.*--no-deps --require-hashes -r \"\$lock\"", installer)
    assert re.search(r"check \"pip check[^\"]*\" \"\$bin/python\" -m pip check", ci)


def test_the_dockerfile_installs_each_lock_without_resolving_and_checks_it(
    repo_root: Path,
) -> None:
    dockerfile = (repo_root / "Dockerfile").read_text(encoding="utf-8")
    runs = re.sub(r"\\\n\s*", " ", dockerfile)
    lock_installs = re.findall(r"(\S*pip[^&]*?) install ([^&]*-r requirements/\S+\.lock)", runs)

    installed = {
        lock for _, arguments in lock_installs for lock in re.findall(r"\S+\.lock", arguments)
    }
    assert installed == {"requirements/runtime.lock", "requirements/build.lock"}
    for pip, arguments in lock_installs:
        assert "--no-deps" in arguments.split(), arguments
        assert "--require-hashes" in arguments.split(), arguments
        assert f"{pip} check" in runs, f"no '{pip} check' after '{pip} install {arguments}'"


def builder_commands(dockerfile: str) -> list[str]:
    """The shell commands the Dockerfile's first stage runs, in order (each `RUN` cut at `&&`)."""
    instructions = dockerfile_instructions(dockerfile)
    stages = [n for n, instruction in enumerate(instructions) if instruction.keyword == "FROM"]
    builder = instructions[stages[0] : stages[1] if len(stages) > 1 else None]
    runs = [i.arguments for i in builder if i.keyword == "RUN"]
    return [" ".join(command.split()) for run in runs for command in run.split("&&")]


def test_the_dockerfile_checks_the_project_s_own_dependencies_once_its_wheel_is_in(
    repo_root: Path,
) -> None:
    """The wheel goes in without its dependencies, so only a `pip check` of the image's
    environment after it finds a dependency of the project that runtime.lock lacks; one after
    the lock alone checks only the lock's own packages."""
    commands = builder_commands((repo_root / "Dockerfile").read_text(encoding="utf-8"))
    wheel = next(
        n
        for n, command in enumerate(commands)
        if re.search(r" install .*marrakech_bot-\S*\.whl", command)
    )
    pip = commands[wheel].partition(" install ")[0]

    assert f"{pip} check" in commands[wheel + 1 :], f"no '{pip} check' after the wheel goes in"


# --- the day upstream publishes newer releases ------------------------------------------------


def write_wheel(folder: Path, name: str, version: str) -> None:
    """A valid, empty pure-Python wheel of `name` at `version`, offering the usual extras."""
    distribution = re.sub(r"[-_.]+", "_", name)
    info = f"{distribution}-{version}.dist-info"
    metadata = "\n".join(
        [
            "Metadata-Version: 2.1",
            f"Name: {name}",
            f"Version: {version}",
            # Packages required with an extra, like coverage[toml], must still match.
            *(f"Provides-Extra: {extra}" for extra in ("toml", "speedups", "all")),
            "",
        ]
    )
    wheel = "Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    with zipfile.ZipFile(folder / f"{distribution}-{version}-py3-none-any.whl", "w") as archive:
        archive.writestr(f"{info}/METADATA", metadata)
        archive.writestr(f"{info}/WHEEL", wheel)
        archive.writestr(f"{info}/RECORD", f"{info}/METADATA,,\n{info}/WHEEL,,\n{info}/RECORD,,\n")


@pytest.fixture(scope="module")
def later_releases(tmp_path_factory: pytest.TempPathFactory, requirements_dir: Path) -> Path:
    """A find-links folder with a newer release of every package any lock pins."""
    folder = tmp_path_factory.mktemp("later-releases")
    names = {name for lock in LOCKS for name in read_lock(requirements_dir / lock)}
    for name in sorted(names):
        write_wheel(folder, name, A_LATER_RELEASE)
    return folder


@pytest.mark.slow
@pytest.mark.parametrize("lock", LOCKS)
def test_a_lock_installs_its_pins_whatever_is_published_later(
    repo_root: Path, requirements_dir: Path, later_releases: Path, tmp_path: Path, lock: str
) -> None:
    report = tmp_path / "report.json"
    pins = read_lock(requirements_dir / lock)

    result = subprocess.run(
        [
            "bash",
            str(requirements_dir / "install.sh"),
            sys.executable,
            str(requirements_dir / lock),
            "--dry-run",
            "--ignore-installed",
            "--quiet",
            "--find-links",
            str(later_releases),
            "--report",
            str(report),
        ],
        cwd=repo_root,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )

    assert result.returncode == 0, result.stderr[-3000:]
    planned = {
        canonicalize_name(item["metadata"]["name"]): item["metadata"]["version"]
        for item in json.loads(report.read_text(encoding="utf-8"))["install"]
    }
    expected = {name: pin.version for name, pin in pins.items() if pin.applies_here()}
    assert planned == expected
