#!/usr/bin/env bash
# Install one lock file of this folder into an environment exactly as written: every pinned
# version, every file checked against its sha256, and no dependency resolution at all.
#
# The locks are complete (refresh.sh resolves the whole tree), so pip is told not to look at
# dependencies (--no-deps). Letting it resolve would make the install depend on what the index
# holds today: a package required with an extra ("coverage[toml]>=7.10") becomes a requirement
# of its own, and once a newer release of it is published --require-hashes refuses it. A lock
# that misses a dependency is caught by `pip check`, which .ci/run and the Dockerfile run next.
#
# Usage: bash requirements/install.sh PYTHON LOCK [PIP-INSTALL-OPTION...]
#   bash requirements/install.sh .venv/bin/python requirements/dev.lock
set -euo pipefail

if [ "$#" -lt 2 ]; then
    echo "usage: bash requirements/install.sh PYTHON LOCK [PIP-INSTALL-OPTION...]" >&2
    exit 2
fi
python=$1
lock=$2
shift 2

"$python" -m pip install --disable-pip-version-check --no-deps --require-hashes -r "$lock" "$@"
