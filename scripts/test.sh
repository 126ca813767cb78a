#!/usr/bin/env bash
# The README's test command: install everything (system packages too) and run the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
# PostgreSQL: the server's second database; the tests start a throwaway cluster of their own
compgen -G '/usr/lib/postgresql/*/bin/pg_ctl' >/dev/null || command -v pg_ctl >/dev/null 2>&1 \
  || missing+=(postgresql)
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
# torch first, the CPU build (the rl extra's stable-baselines3 would otherwise pull a CUDA one)
python3 -m pip install -q --disable-pip-version-check torch==2.13.0
# editable_mode=compat: a plain path entry, so that type checkers (mypy) outside the checkout
# see the package too (setuptools' default editable finder hides it from them)
python3 -m pip install -q --disable-pip-version-check -e '.[all]' --config-settings editable_mode=compat
ruff check scotlandyard tests benchmarks examples scripts
python3 -m mypy  # --strict over the package ([tool.mypy] in pyproject.toml)
python3 -m pytest -q -n 2 "$@"
