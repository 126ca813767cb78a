#!/usr/bin/env bash
# The README's main job: install the package and start the web app on its embedded SQLite file.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install -q --disable-pip-version-check -e '.[fast]' --config-settings editable_mode=compat  # mypy sees it
scotlandyard warm-up --what ai   # numba's cache: a few seconds once warm (docs/ai.md)
exec scotlandyard serve --host 127.0.0.1 --port "${PORT:-8000}" --db "${SCOTLANDYARD_DB:-scotlandyard.sqlite3}" "$@"
