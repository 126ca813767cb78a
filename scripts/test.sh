#!/usr/bin/env bash
# The README's test command: install everything (system packages too) and run the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  fi
fi
python3 -m pip install -q --disable-pip-version-check -e '.[all]'
ruff check scotlandyard tests benchmarks examples scripts
python3 -m pytest -q -n 2 "$@"
