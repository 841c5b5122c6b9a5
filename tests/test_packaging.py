"""Packaging checks: pyproject.toml, the built wheel, the Dockerfile and the files around them.

There is no Docker engine where the tests run, so the Dockerfile is checked as text: the things
that make the image safe and usable (a non-root user owning the data volume, no secrets, a real
entry point and health check, every copied path present in the build context). A run of .ci/run
takes minutes and the network, so the parts of it that decide its exit status run alone, with
stand-ins for the tools.
"""

from __future__ import annotations

import ast
import importlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
import zipfile
from dataclasses import dataclass
from importlib.metadata import packages_distributions
from pathlib import Path, PurePosixPath
from typing import Any

import pytest

from bot.__main__ import _parser
from bot.runtime.settings import SETTING_NAMES, load_settings

PACKAGES = ("engine", "ai", "render", "bot")
RUNTIME_DEPENDENCIES = {
    "discord-py",
    "aiohttp",
    "aiosqlite",
    "asyncpg",
    "networkx",
    "openskill",
    "pillow",
    "yarl",
    "tzdata",
}
READ_NOT_IMPORTED = {"tzdata"}
"""Runtime dependencies that no module imports: the standard library reads them (zoneinfo
finds a time zone in tzdata where the system's database lacks it)."""
SECRET_WORDS = ("TOKEN", "SECRET", "PASSWORD", "PASSWD", "API_KEY", "PRIVATE_KEY")


# --- pyproject.toml ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def pyproject(repo_root: Path) -> dict[str, Any]:
    with (repo_root / "pyproject.toml").open("rb") as file:
        return tomllib.load(file)


def requirement_name(requirement: str) -> str:
    """The normalised project name of a requirement string ("discord.py>=2" -> "discord-py")."""
    name = re.match(r"[A-Za-z0-9._-]+", requirement)
    assert name is not None, requirement
    return re.sub(r"[-_.]+", "-", name.group()).lower()


def test_project_metadata(pyproject: dict[str, Any]) -> None:
    project = pyproject["project"]

    assert project["name"] == "marrakech-bot"
    assert project["requires-python"] == ">=3.11"
    assert {requirement_name(r) for r in project["dependencies"]} == RUNTIME_DEPENDENCIES
    assert all(re.search(r">=[\d.]+,<[\d.]+$", r) for r in project["dependencies"])
    extras = project["optional-dependencies"]
    assert {"pytest", "pytest-asyncio"} <= {requirement_name(r) for r in extras["test"]}
    assert {"ruff", "mypy", "pre-commit"} <= {requirement_name(r) for r in extras["dev"]}


def test_console_script_is_the_command_line_entry(pyproject: dict[str, Any]) -> None:
    target = pyproject["project"]["scripts"]["marrakech-bot"]
    module_name, _, attribute = target.partition(":")

    assert target == "bot.runtime.launch:main"
    assert callable(getattr(importlib.import_module(module_name), attribute))


KEPT_BEFORE_LOADING = """
import signal, sys
assert "asyncio" not in sys.modules, "the check needs a Python that has not loaded asyncio"
handlers = {}

class Watch:
    def find_spec(self, name, path=None, target=None):
        if name in ("asyncio", "bot.__main__"):
            handlers.setdefault(name, signal.getsignal(signal.SIGTERM))
        return None

sys.meta_path.insert(0, Watch())
module, _, attribute = sys.argv[1].partition(":")
sys.argv = ["marrakech-bot"]
code = getattr(__import__(module, fromlist=[attribute]), attribute)()
print(sorted(name for name, handler in handlers.items() if handler is not signal.SIG_DFL), code)
"""


def test_the_command_keeps_a_stop_signal_from_before_the_bot_loads(
    pyproject: dict[str, Any], tmp_path: Path
) -> None:
    """In a container the bot is process 1, and the kernel drops any signal process 1 has no
    handler for: a `docker stop` while Python loads the bot's modules (a tenth of a second to
    a second) would be lost, and Docker would kill the bot 10 s later. So the console script,
    run with no command, keeps SIGTERM (bot.runtime.early_signals) before asyncio or the
    bot's command line loads."""
    target = pyproject["project"]["scripts"]["marrakech-bot"]
    environ = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("DISCORD_", "MARRAKECH_"))
    }
    ran = subprocess.run(
        [sys.executable, "-c", KEPT_BEFORE_LOADING, target],
        cwd=tmp_path,
        env=environ,
        capture_output=True,
        text=True,
        check=False,
    )

    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip() == "['asyncio', 'bot.__main__'] 2", "kept; no token: exit 2"


def test_tool_configuration_lives_in_pyproject(pyproject: dict[str, Any]) -> None:
    tools = pyproject["tool"]

    assert tools["ruff"]["line-length"] == 100
    assert set(tools["mypy"]["files"]) == {*PACKAGES, "tests"}, "strict on every package"
    pytest_options = tools["pytest"]["ini_options"]
    assert pytest_options["asyncio_mode"] == "auto"
    assert pytest_options["testpaths"] == ["tests"]


def third_party_imports(package_dir: Path) -> set[str]:
    """Top-level names imported by the package's modules that are neither stdlib nor ours."""
    names: set[str] = set()
    for source in package_dir.rglob("*.py"):
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return names - set(sys.stdlib_module_names) - set(PACKAGES)


def test_runtime_dependencies_are_exactly_what_the_packages_import(repo_root: Path) -> None:
    imported = set().union(*(third_party_imports(repo_root / package) for package in PACKAGES))
    distributions = packages_distributions()
    unknown = {name for name in imported if name not in distributions}
    assert unknown == set(), f"imports with no installed distribution: {sorted(unknown)}"

    needed = {requirement_name(distributions[name][0]) for name in imported}
    assert needed - RUNTIME_DEPENDENCIES == set(), "imported but not declared"
    assert RUNTIME_DEPENDENCIES - READ_NOT_IMPORTED - needed == set(), "declared, never imported"
    installed = {requirement_name(d) for found in distributions.values() for d in found}
    assert installed >= READ_NOT_IMPORTED, "read by the standard library, but not installed"


@pytest.mark.slow
def test_wheel_holds_every_module_and_data_file(repo_root: Path, tmp_path: Path) -> None:
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(repo_root / name, source / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for package in PACKAGES:
        shutil.copytree(repo_root / package, source / package, ignore=ignore)
    build = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation"]
    subprocess.run(
        [*build, "--wheel-dir", str(tmp_path / "dist"), str(source)],
        check=True,
        stdin=subprocess.DEVNULL,
        timeout=300,
    )

    (wheel,) = (tmp_path / "dist").glob("marrakech_bot-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        in_wheel = {name for name in archive.namelist() if ".dist-info/" not in name}
        entry_points = next(n for n in archive.namelist() if n.endswith("entry_points.txt"))
        scripts = archive.read(entry_points).decode()
    data_suffixes = (".py", ".sql", ".ttf", ".otf", ".txt", ".json")
    expected = {
        path.relative_to(source).as_posix()
        for package in PACKAGES
        for path in (source / package).rglob("*")
        if path.is_file() and path.suffix in data_suffixes
    }
    assert expected - in_wheel == set()
    assert {name.split("/")[0] for name in in_wheel} == set(PACKAGES)
    assert "marrakech-bot = bot.runtime.launch:main" in scripts


# --- Dockerfile ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Instruction:
    keyword: str
    arguments: str


def dockerfile_instructions(text: str) -> list[Instruction]:
    """The Dockerfile's instructions, with line continuations joined and comments dropped."""
    instructions: list[Instruction] = []
    pending = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        keyword, _, arguments = (pending + line).partition(" ")
        instructions.append(Instruction(keyword.upper(), arguments.strip()))
        pending = ""
    assert not pending, "the Dockerfile ends inside a continued line"
    return instructions


def final_stage(instructions: list[Instruction]) -> list[Instruction]:
    last_from = max(
        i for i, instruction in enumerate(instructions) if instruction.keyword == "FROM"
    )
    return instructions[last_from:]


def exec_form(arguments: str) -> list[str]:
    """The JSON-array form of CMD/ENTRYPOINT/HEALTHCHECK CMD, as a list of words."""
    words = ast.literal_eval(arguments)
    assert isinstance(words, list), f"not in exec (JSON array) form: {arguments}"
    return [str(word) for word in words]


def env_assignments(instructions: list[Instruction]) -> dict[str, str]:
    values: dict[str, str] = {}
    for instruction in instructions:
        if instruction.keyword == "ENV":
            for word in shlex.split(instruction.arguments):
                name, _, value = word.partition("=")
                values[name] = value
    return values


@pytest.fixture(scope="module")
def dockerfile(repo_root: Path) -> str:
    return (repo_root / "Dockerfile").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def instructions(dockerfile: str) -> list[Instruction]:
    return dockerfile_instructions(dockerfile)


def test_multi_stage_build_on_python_slim(instructions: list[Instruction]) -> None:
    bases = [i.arguments.split()[0] for i in instructions if i.keyword == "FROM"]

    assert len(bases) >= 2
    assert all(re.fullmatch(r"python:3\.11-slim(-\w+)?", base) for base in bases), bases


def test_runs_as_a_non_root_user(instructions: list[Instruction]) -> None:
    users = [i.arguments.split(":")[0] for i in final_stage(instructions) if i.keyword == "USER"]

    assert users, "the final stage never switches away from root"
    assert users[-1] not in ("root", "0")


def test_database_lives_in_the_data_volume(instructions: list[Instruction]) -> None:
    stage = final_stage(instructions)
    volumes = [i.arguments for i in stage if i.keyword == "VOLUME"]

    assert any("/data" in volume.replace('"', " ").split() for volume in volumes)
    assert env_assignments(stage)["MARRAKECH_DB"] == "/data/marrakech.sqlite3"


@pytest.mark.parametrize(
    ("database", "kept"),
    [
        ("", ("/data/marrakech.sqlite3", "/data/heartbeat")),
        ("postgresql://bot@db:5432/marrakech", ("/data/heartbeat",)),
    ],
)
def test_an_empty_database_setting_still_keeps_the_image_s_files_in_the_data_volume(
    instructions: list[Instruction], database: str, kept: tuple[str, ...]
) -> None:
    """`MARRAKECH_DB=` in the env file of `docker run --env-file` (or Compose's `env_file`)
    replaces the image's own value with an empty one, which the bot reads as unset: its default
    paths, taken from the image's working folder, are still the database and heartbeat in the
    /data volume (README: "/data/marrakech.sqlite3 in Docker"), not files a new container
    loses; with PostgreSQL the default heartbeat is in the volume too."""
    stage = final_stage(instructions)
    workdirs = [i.arguments for i in stage if i.keyword == "WORKDIR"]
    workdir = PurePosixPath(workdirs[-1] if workdirs else "/")
    settings = load_settings({"DISCORD_TOKEN": "token", "MARRAKECH_DB": database})

    paths = (settings.database.path, settings.heartbeat_path)
    in_image = tuple(str(workdir / PurePosixPath(path)) for path in paths if path is not None)
    assert in_image == kept


def test_the_data_volume_belongs_to_the_user_the_image_runs_as(
    instructions: list[Instruction],
) -> None:
    """A named volume starts with the owner the image gives its folder, and what a `RUN` does to
    that folder after `VOLUME` is dropped: /data must be given to the final `USER` before it is
    declared, or the bot cannot create its database there."""
    stage = final_stage(instructions)
    user = [i.arguments.split(":")[0] for i in stage if i.keyword == "USER"][-1]
    volume = next(
        n
        for n, i in enumerate(stage)
        if i.keyword == "VOLUME" and "/data" in i.arguments.replace('"', " ").split()
    )
    owners = [
        owner
        for i in stage[:volume]
        if i.keyword == "RUN"
        for owner in re.findall(
            r"\bchown\s+(?:-\S+\s+)*([^\s:]+)(?::\S+)?\s+/data/?(?!\S)", i.arguments
        )
    ]

    assert user in owners, f"/data is not given to {user} before VOLUME /data"


def test_no_secret_is_baked_in(dockerfile: str, instructions: list[Instruction]) -> None:
    for instruction in instructions:
        if instruction.keyword in ("ENV", "ARG"):
            names = [word.partition("=")[0] for word in shlex.split(instruction.arguments)]
            assert not [n for n in names if any(w in n.upper() for w in SECRET_WORDS)], names
        if instruction.keyword in ("COPY", "ADD"):
            assert ".env" not in shlex.split(instruction.arguments)
    assert "DISCORD_TOKEN" not in "\n".join(i.arguments for i in instructions)


def test_entry_point_and_health_check_run_the_bot(
    instructions: list[Instruction], pyproject: dict[str, Any]
) -> None:
    stage = final_stage(instructions)
    (entrypoint,) = [exec_form(i.arguments) for i in stage if i.keyword == "ENTRYPOINT"]
    (healthcheck,) = [i.arguments for i in stage if i.keyword == "HEALTHCHECK"]

    # The console script, which keeps a `docker stop` from the bot's first moments.
    assert entrypoint == ["marrakech-bot"], entrypoint
    assert "marrakech-bot" in pyproject["project"]["scripts"]
    command = exec_form(healthcheck.partition("CMD")[2].strip())
    assert command in (["python", "-m", "bot", "healthcheck"], ["marrakech-bot", "healthcheck"])


def test_dockerfile_builds_with_buildah_too(dockerfile: str) -> None:
    assert "<<" not in dockerfile, "heredocs are not supported by buildah"
    assert "--link" not in dockerfile, "COPY --link is not supported by buildah"


def glob_regex(glob: str) -> re.Pattern[str]:
    """A regex for a .dockerignore glob: `*` and `?` stay within a folder, `**` crosses them."""
    parts: list[str] = []
    index = 0
    while index < len(glob):
        if glob.startswith("**/", index):
            parts.append("(?:.*/)?")
            index += 3
        elif glob.startswith("**", index):
            parts.append(".*")
            index += 2
        else:
            parts.append({"*": "[^/]*", "?": "[^/]"}.get(glob[index], re.escape(glob[index])))
            index += 1
    return re.compile("".join(parts))


def dockerignored(path: str, patterns: list[str]) -> bool:
    """Whether .dockerignore rules leave `path` out of the context (the last matching rule wins;
    a rule matching a folder covers everything in it)."""
    candidates = [str(parent) for parent in PurePosixPath(path).parents if str(parent) != "."]
    candidates.append(path)
    excluded = False
    for pattern in patterns:
        regex = glob_regex(pattern.removeprefix("!").strip("/"))
        if any(regex.fullmatch(candidate) for candidate in candidates):
            excluded = not pattern.startswith("!")
    return excluded


def test_every_copied_path_is_in_the_build_context(
    repo_root: Path, instructions: list[Instruction]
) -> None:
    ignore_lines = (repo_root / ".dockerignore").read_text(encoding="utf-8").splitlines()
    patterns = [line.strip() for line in ignore_lines if line.strip() and not line.startswith("#")]
    copies = [
        shlex.split(i.arguments)
        for i in instructions
        if i.keyword in ("COPY", "ADD") and "--from=" not in i.arguments
    ]

    assert copies
    for words in copies:
        for source in [word for word in words if not word.startswith("--")][:-1]:
            assert (repo_root / source).exists(), f"COPY source {source} does not exist"
            assert not dockerignored(source.rstrip("/"), patterns), f"{source} is dockerignored"
    for private in (".env", ".git", ".venv", "data/marrakech.sqlite3", "tests"):
        assert dockerignored(private, patterns), f"{private} would be sent to the build"


# --- the Compose files ------------------------------------------------------------------------


def compose_services(text: str) -> dict[str, str]:
    """Each service of a Compose file, by name, with its lines (these files are written in
    YAML's block style, two spaces a level: no YAML parser is among the test dependencies)."""
    section = text.split("\nservices:\n", 1)[1]
    section = re.split(r"^\S", section, maxsplit=1, flags=re.MULTILINE)[0]
    return dict(re.findall(r"^  ([\w-]+):\n((?:(?:    .*)?\n)*)", section, re.MULTILINE))


def test_the_two_process_compose_example_holds_every_shard_once(repo_root: Path) -> None:
    """deploy/compose.yaml, which docs/deployment.md gives as a complete example to copy:
    its bots' MARRAKECH_SHARD_IDS, read as the bot reads them with the MARRAKECH_SHARD_COUNT
    they share, cover shards 0 to N-1 once each (a shard held twice leaves another's servers
    without an answer); each bot has a /data of its own, where its heartbeat is, and starts
    once the one-shot `migrate` has brought the schema up to date."""
    text = (repo_root / "deploy" / "compose.yaml").read_text(encoding="utf-8")
    services = compose_services(text)
    bots = {name: lines for name, lines in services.items() if "    <<: *bot\n" in lines}
    assert sorted(bots) == ["bot-0", "bot-1"]
    count = re.search(r'^    MARRAKECH_SHARD_COUNT: "(\d+)"$', text, re.MULTILINE)
    assert count is not None
    held: list[int] = []
    for name, lines in bots.items():
        ids = re.search(r'^      MARRAKECH_SHARD_IDS: "([^"]+)"$', lines, re.MULTILINE)
        assert ids is not None, f"{name} names the shards it holds"
        environ = {
            "DISCORD_TOKEN": "token",
            "MARRAKECH_DB": "postgresql://marrakech@postgres:5432/marrakech",
            "MARRAKECH_SHARD_COUNT": count[1],
            "MARRAKECH_SHARD_IDS": ids[1],
        }
        shards = load_settings(environ).shards
        assert shards is not None
        held.extend(shards.ids)
    assert sorted(held) == list(range(int(count[1]))), "every shard held once"
    data = [re.findall(r"^      - ([\w-]+):/data$", lines, re.MULTILINE) for lines in bots.values()]
    assert sorted(volume for volumes in data for volume in volumes) == ["bot-0-data", "bot-1-data"]
    assert re.search(r"^    MARRAKECH_HEARTBEAT: /data/heartbeat\b", text, re.MULTILINE)
    assert re.search(
        r"^    migrate:\n      condition: service_completed_successfully$", text, re.MULTILINE
    ), "the bots wait for the migration"
    assert '    command: ["migrate"' in services["migrate"]


def test_the_compose_example_s_migration_waits_for_the_database_server(repo_root: Path) -> None:
    """In deploy/compose.yaml the bots start only once `migrate` exits 0, and nothing runs it
    again: a `migrate` that gave up at once on a server that does not answer yet (exit 6)
    would leave them never started. PostgreSQL's health check asks over TCP, as the bots do
    (on its first start the image's server takes only its socket's connections while it sets
    the database up, and `pg_isready` through the socket says it is ready), and `migrate`
    waits, trying again, while the server does not answer."""
    text = (repo_root / "deploy" / "compose.yaml").read_text(encoding="utf-8")
    services = compose_services(text)
    command = re.search(r"^    command: (\[.*\])$", services["migrate"], re.MULTILINE)
    assert command is not None
    arguments = _parser().parse_args(json.loads(command[1]))
    assert arguments.command == "migrate"
    assert arguments.wait >= 60, "seconds: longer than PostgreSQL's first start"
    check = re.search(r"^      test: (\[.*\])$", services["postgres"], re.MULTILINE)
    assert check is not None
    assert "-h 127.0.0.1" in json.loads(check[1])[-1], "asked over TCP"


def test_the_one_process_compose_example_keeps_the_games_in_a_volume(repo_root: Path) -> None:
    """compose.example.yaml mounts its volume where the image keeps the database (/data)."""
    text = (repo_root / "compose.example.yaml").read_text(encoding="utf-8")
    (lines,) = compose_services(text).values()
    assert re.search(r"^      - marrakech-data:/data$", lines, re.MULTILINE)
    assert re.search(r"^  marrakech-data:$", text.split("\nvolumes:\n", 1)[1], re.MULTILINE)


def test_the_bots_restart_after_a_reboot_and_their_logs_are_bounded(repo_root: Path) -> None:
    """Docker cannot leave some exit codes alone as systemd's RestartPreventExitStatus does.
    `unless-stopped` is the policy that restarts the bot after a reboot (it stops cleanly
    with 0 on the daemon's SIGTERM, and `on-failure` never starts a container whose last exit
    was 0) and after every failure a restart can mend (1, 4, 6), with no count to run out
    over months. A start refused for a bad setting, the token or the database (2, 3, 5) is
    then retried by Docker about once a minute until put right; what bounds its log, and the
    months of a running bot's, is a logging driver that rotates: Docker's default keeps
    every line."""
    examples = {
        "compose.example.yaml": compose_services(
            (repo_root / "compose.example.yaml").read_text(encoding="utf-8")
        ),
        "deploy/compose.yaml": compose_services(
            (repo_root / "deploy" / "compose.yaml").read_text(encoding="utf-8")
        ),
    }
    bots = 0
    for name, services in examples.items():
        text = (repo_root / name).read_text(encoding="utf-8")
        for service, lines in services.items():
            if service in ("postgres", "migrate"):
                continue
            bots += 1
            body = lines
            if "    <<: *bot\n" in lines:  # the anchor's keys, written once above
                body = text.split("x-bot: &bot\n", 1)[1].split("\n\n", 1)[0]
            assert re.search(r"^ {2,4}restart: unless-stopped$", body, re.MULTILINE), service
            assert re.search(r"^ {2,4}logging:\n {4,6}driver: local$", body, re.MULTILINE), (
                f"{name}: {service}'s log is rotated"
            )
    assert bots == 3
    for page in ("README.md", "docs/deployment.md"):
        text = (repo_root / page).read_text(encoding="utf-8")
        runs = re.findall(r"^docker run -d .*(?:\\\n.*)*", text, re.MULTILINE)
        assert runs, page
        for run in runs:
            assert "--restart unless-stopped" in run, page
            assert "--log-driver local" in run, page


def test_the_bots_run_under_an_init_that_passes_an_early_stop_on(repo_root: Path) -> None:
    """As process 1 of its container the bot would never see a SIGTERM that comes while
    Python itself starts, before it can hold one (the kernel drops a signal process 1 has no
    handler for): `docker stop` then waits its 10 s and kills it. Docker's own init, as
    process 1, passes the stop on to the bot, which stops at once whenever it comes."""
    for name in ("compose.example.yaml", "deploy/compose.yaml"):
        text = (repo_root / name).read_text(encoding="utf-8")
        for service, lines in compose_services(text).items():
            if service == "postgres":
                continue
            body = lines
            if "    <<: *bot\n" in lines:  # the anchor's keys, written once above
                body = text.split("x-bot: &bot\n", 1)[1].split("\n\n", 1)[0]
            assert re.search(r"^ {2,4}init: true$", body, re.MULTILINE), f"{name}: {service}"
    for page in ("README.md", "docs/deployment.md"):
        text = (repo_root / page).read_text(encoding="utf-8")
        runs = re.findall(r"^docker run .*(?:\\\n.*)*", text, re.MULTILINE)
        assert runs, page
        for run in runs:
            assert "--init" in run, f"{page}: {run}"


# --- files around the code -------------------------------------------------------------------


def test_every_setting_is_documented(repo_root: Path) -> None:
    example = (repo_root / ".env.example").read_text(encoding="utf-8")
    readme = (repo_root / "README.md").read_text(encoding="utf-8")

    for name in SETTING_NAMES:
        assert re.search(rf"^#? ?{name}=", example, re.MULTILINE), f"{name} not in .env.example"
        assert f"`{name}`" in readme, f"{name} not in README.md"


def test_every_example_of_the_env_example_is_a_setting_the_bot_takes(repo_root: Path) -> None:
    """The values .env.example shows, commented out or not, are what an admin copies: taken in
    all at once (with a token), the bot accepts them and reads them as their comments say."""
    example = (repo_root / ".env.example").read_text(encoding="utf-8")
    shown = dict(re.findall(r"^#? ?([A-Z_]+)=(.*)$", example, re.MULTILINE))
    assert set(SETTING_NAMES) <= set(shown)

    settings = load_settings({**shown, "DISCORD_TOKEN": "token"})

    assert settings.database.path == Path("data/marrakech.sqlite3")
    assert settings.heartbeat_path == Path("data/heartbeat")
    assert settings.log_level == "INFO"
    assert settings.dev_guilds == (123456789012345678, 234567890123456789)
    assert settings.shards is not None
    assert (settings.shards.count, settings.shards.ids) == (4, (0, 1))


README_MOST_LINES = 210
"""The README is for players, server admins and new contributors, about 200 lines: figures,
designs and evidence belong in docs/."""


def test_the_readme_stays_about_200_lines(repo_root: Path) -> None:
    lines = (repo_root / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MOST_LINES, f"README.md has {len(lines)} lines"


def test_readme_test_command_is_what_ci_runs(repo_root: Path) -> None:
    readme = (repo_root / "README.md").read_text(encoding="utf-8")
    makefile = (repo_root / "Makefile").read_text(encoding="utf-8")

    assert "bash .ci/run" in readme
    targets = set(re.findall(r"^([a-z]+):", makefile, re.MULTILINE))
    assert {"install", "fmt", "lint", "type", "test", "check"} <= targets
    assert re.search(r"^check:\n\tbash \.ci/run$", makefile, re.MULTILINE)


def make_command(repo_root: Path, target: str) -> list[str]:
    """The command line `make TARGET` runs, as the shell would split it (`make -n`, with the
    interpreter at /venv/bin/python)."""
    result = subprocess.run(
        ["make", "-s", "-n", target, "BIN=/venv/bin"],
        cwd=repo_root,
        capture_output=True,
        text=True,
        env={"PATH": os.environ["PATH"]},
        timeout=30,
        check=True,
    )
    lines = result.stdout.splitlines()
    assert len(lines) == 1, lines
    return shlex.split(lines[0])


def test_make_test_fast_runs_the_command_contributing_md_gives(repo_root: Path) -> None:
    """`make test-fast` is `python -m pytest -n auto -m "not long"` (docs/contributing.md, "The
    fast lane"), "not long" one argument; `make test` is the same without the `-m`."""
    page = (repo_root / "docs" / "contributing.md").read_text(encoding="utf-8")
    documented = re.search(r"`make test-fast` \(`([^`]+)`\)", page)
    assert documented, "docs/contributing.md gives the fast lane's command"
    fast = make_command(repo_root, "test-fast")
    assert fast == ["/venv/bin/python", *shlex.split(documented[1])[1:]]
    assert fast[-2:] == ["-m", "not long"]
    assert make_command(repo_root, "test") == fast[:-2]


def test_contributing_md_names_every_module_at_the_top_of_tests(repo_root: Path) -> None:
    """docs/contributing.md says how tests/ is laid out: beside the packages' folders, each
    module at its top (a test of the whole repository, a helper the packages' tests share) is
    named there with what it holds, so a new contributor finds it."""
    page = (repo_root / "docs" / "contributing.md").read_text(encoding="utf-8")
    unnamed = sorted(
        path.name
        for path in (repo_root / "tests").glob("*.py")
        if path.name != "__init__.py" and f"`{path.name}`" not in page
    )
    assert not unnamed, f"docs/contributing.md does not name tests/{unnamed}"
    folders = sorted(
        path.name
        for path in (repo_root / "tests").iterdir()
        if path.is_dir() and (path / "__init__.py").is_file()
    )
    assert folders == ["ai", "bot", "e2e", "engine", "render"]
    assert all(f"`tests/{folder}`" in page for folder in folders)


def test_contributing_md_counts_the_migrations_a_database_test_commits(repo_root: Path) -> None:
    """A PostgreSQL test brings its own schema up to date: one commit per migration, the count
    docs/contributing.md gives when it says why the test server runs without fsync."""
    page = (repo_root / "docs" / "contributing.md").read_text(encoding="utf-8")
    said = re.search(r"a test's (\d+) migration commits", " ".join(page.split()))
    assert said, "docs/contributing.md counts a test's migration commits"
    migrations = list((repo_root / "bot" / "storage" / "migrations" / "postgres").glob("*.sql"))
    assert int(said[1]) == len(migrations)


# --- .ci/run: its verdict and its coverage floors ----------------------------------------------


@pytest.fixture(scope="module")
def ci_script(repo_root: Path) -> str:
    return (repo_root / ".ci" / "run").read_text(encoding="utf-8")


def ci_part(script: str, pattern: str) -> str:
    """The text of .ci/run that `pattern` (a multi-line regular expression) finds."""
    found = re.search(pattern, script, re.MULTILINE | re.DOTALL)
    assert found, f".ci/run has no part matching {pattern!r}"
    return found[0]


def run_bash(script: str, **environment: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", script],
        capture_output=True,
        text=True,
        env={"PATH": os.environ["PATH"], **environment},
        timeout=30,
        check=False,
    )


@pytest.mark.parametrize(
    ("checks", "failing"),
    [
        pytest.param("check ruff true\ncheck pytest true", None, id="all-pass"),
        pytest.param("check ruff false\ncheck pytest true", "ruff (exit 1)", id="ruff-fails"),
        pytest.param("check ruff true\ncheck pytest false", "pytest (exit 1)", id="a-test-fails"),
        pytest.param(
            "check ruff true\ncheck pytest bash -c 'exit 5'", "pytest (exit 5)", id="no-tests"
        ),
        pytest.param("check ruff false\ncheck pytest false", "ruff (exit 1)", id="two-fail"),
    ],
)
def test_ci_fails_when_any_one_check_fails_no_tests_included(
    ci_script: str, checks: str, failing: str | None
) -> None:
    """.ci/run's own `check` and closing verdict, run with stand-in checks: every check runs,
    and one that fails alone fails the run and is named; pytest's exit 5 ("no tests collected")
    is a failure too. The real checks go through `check`."""
    verdict = "\n".join(
        [
            ci_part(ci_script, r"^set -\w+ pipefail$"),
            ci_part(ci_script, r"^step\(\) \{.*?\}$"),
            ci_part(ci_script, r"^failed=\(\)\ncheck\(\) \{\n.*?^\}$"),
            checks,
            ci_part(ci_script, r"^if \[ \"\$\{#failed\[@\]\}\".*\Z"),
        ]
    )

    result = run_bash(verdict)

    assert result.stdout.count("\n=== ") == checks.count("check "), "every check runs"
    if failing is None:
        assert result.returncode == 0, result.stderr
        assert ".ci/run: all checks passed" in result.stdout
    else:
        assert result.returncode != 0, result.stdout
        assert f"  {failing}\n" in result.stderr
    if "exit 5" in checks:
        assert ".ci/run: pytest collected no tests" in result.stderr
    assert re.search(r"^check pytest \S+ -m pytest\b", ci_script, re.MULTILINE)
    assert re.search(r"^check coverage coverage_floors$", ci_script, re.MULTILINE)


def test_ci_runs_the_whole_suite_with_coverage_of_every_package(ci_script: str) -> None:
    """.ci/run's pytest step selects nothing away (no `-m`, `-k`, `--deselect`, `--ignore`, no
    path: the `testpaths` of pyproject.toml): CI is where the long tests (crash points, several
    bot processes, whole games) always run (docs/contributing.md). Beside `-n`, it gives only
    coverage options, one `--cov` per package."""
    words = shlex.split(ci_part(ci_script, r"^check pytest [^\n]*$"))
    assert words[:5] == ["check", "pytest", "$bin/python", "-m", "pytest"], words
    options = words[5:]
    assert options[:2] == ["-n", "${PYTEST_WORKERS:-auto}"], options
    assert [word for word in options[2:] if not word.startswith("--cov")] == [], options
    assert {f"--cov={package}" for package in PACKAGES} <= set(options), options


STUB_PYTHON = """#!/usr/bin/env bash
# A Python that says it is $VERSION: it runs the code given with -c with sys.version_info set.
pretend="import sys; sys.version_info = ($VERSION, 0, 'final', 0); exec(sys.argv[1])"
exec "$REAL_PYTHON" -c "$pretend" "$2"
"""


@pytest.mark.parametrize(
    ("version", "accepted"),
    [("3, 10", False), ("3, 11", True), ("3, 12", True), ("3, 13", True), ("4, 0", True)],
    ids=["3.10", "3.11", "3.12", "3.13", "4.0"],
)
def test_ci_takes_python_3_11_or_newer_and_refuses_older_in_one_line(
    ci_script: str, tmp_path: Path, version: str, accepted: bool
) -> None:
    """.ci/run's first check, run alone with a stand-in interpreter of each version: 3.11 (the
    floor of README, pyproject's `requires-python` and the Dockerfile's image) and newer go
    on; an older one stops the run with one line that says what to do."""
    python = tmp_path / "python"
    python.write_text(STUB_PYTHON, encoding="utf-8")
    python.chmod(0o755)
    guard = ci_part(ci_script, r'^if ! "\$python" -c .*?^fi$')
    script = "\n".join([ci_part(ci_script, r"^set -\w+ pipefail$"), guard, "echo past the guard"])
    result = run_bash(
        script, python=str(python), REAL_PYTHON=sys.executable, VERSION=version.replace(" ", "")
    )
    if accepted:
        assert (result.returncode, result.stdout, result.stderr) == (0, "past the guard\n", "")
    else:
        assert result.returncode == 1
        assert result.stdout == ""
        assert result.stderr == (
            f".ci/run: needs Python 3.11 or newer as '{python}' (set PYTHON=/path/to/python3.11)\n"
        )


FLOORED = ("engine", "render", "bot/services", "bot/storage")
"""The packages CI holds to a line coverage of at least 90%: the engine, the pictures, the
services and the storage."""

FAKE_COVERAGE = """#!/usr/bin/env bash
printf '%s\\n' "$*" >> "$CALLS"
case " $* " in
*" --format=total "*) echo 99 ;;
*" --include=$UNDER --fail-under="*) exit 2 ;;
esac
exit 0
"""
"""A stand-in for `coverage`: every report is 99% covered, except that a `--fail-under` of the
files `$UNDER` fails; it writes each of its command lines to `$CALLS`."""


def test_ci_fails_under_a_coverage_floor_of_90_for_engine_render_services_and_storage(
    ci_script: str, tmp_path: Path
) -> None:
    """Each of those packages has a floor of at least 90%, and .ci/run's `coverage_floors`,
    run alone with a stand-in `coverage`, enforces every floor: it asks `--fail-under` of each
    package's files, and fails when any one package is under its floor."""
    array = ci_part(ci_script, r"^floors=\(([^)]*)\)$")
    floors = dict(item.split("=") for item in array.removeprefix("floors=(")[:-1].split())
    assert {p: int(floors.get(p, 0)) >= 90 for p in FLOORED} == dict.fromkeys(FLOORED, True)

    coverage = tmp_path / "coverage"
    coverage.write_text(FAKE_COVERAGE, encoding="utf-8")
    coverage.chmod(0o755)
    function = ci_part(ci_script, r"^coverage_floors\(\) \{\n.*?^\}$")
    script = "\n".join([ci_part(ci_script, r"^set -\w+ pipefail$"), array, function])
    script += f"\nbin={shlex.quote(str(tmp_path))}\ncoverage_floors"
    calls = tmp_path / "calls"

    assert run_bash(script, CALLS=str(calls), UNDER="none").returncode == 0
    asked = re.findall(r"--include=(\S+) --fail-under=(\d+)", calls.read_text(encoding="utf-8"))
    expected = {("*" if p == "." else f"{p}/*", floor) for p, floor in floors.items()}
    assert set(asked) == expected
    for package in FLOORED:
        assert run_bash(script, CALLS=str(calls), UNDER=f"{package}/*").returncode != 0, package
