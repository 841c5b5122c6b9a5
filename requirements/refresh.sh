#!/usr/bin/env bash
# Re-resolve the lock files in this folder from pyproject.toml, each at the newest versions that
# its ranges allow, with the sha256 hash of every file of every pinned version (one universal
# resolution: any platform, Python 3.11 and newer). Review the diff, then run `bash .ci/run`.
#
#   dev.lock      the runtime dependencies plus the test and dev extras (.ci/run installs it)
#   runtime.lock  the runtime dependencies only, at the same versions as dev.lock (the Dockerfile)
#   build.lock    the build backend of pyproject.toml's [build-system] (the Dockerfile's wheel)
#
# Needs uv on PATH (`python3 -m pip install uv`, or `pipx install uv`), or UV=/path/to/uv. It
# resolves against PyPI unless UV_INDEX_URL/UV_DEFAULT_INDEX name a mirror; no index URL is
# written into the lock files.
# Usage: bash requirements/refresh.sh
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
uv=${UV:-uv}
python=${PYTHON:-python3}

compile() {
    "$uv" pip compile --quiet --upgrade --universal --python-version 3.11 --generate-hashes \
        --custom-compile-command "bash requirements/refresh.sh" "$@"
}

compile pyproject.toml --extra test --extra dev -o requirements/dev.lock
compile pyproject.toml -c requirements/dev.lock -o requirements/runtime.lock
"$python" -c 'import tomllib; print(*tomllib.load(open("pyproject.toml", "rb"))["build-system"]["requires"], sep="\n")' |
    compile - -c requirements/dev.lock -o requirements/build.lock
