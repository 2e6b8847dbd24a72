#!/usr/bin/env bash
# Creates the Python virtualenv the tests use, at .build/python-venv, with the pinned tools:
# schemathesis (fuzzes openapi.yaml against a live server), gotenberg-client (the Gotenberg
# client we check the compatible routes with) and what that client's own upstream test suite
# imports (scripts/gotenberg-upstream: pytest and its plugins, pypdf, pikepdf, its other backends). Prints the venv's bin directory as its last line:
#
#   bin=$(bash scripts/python-venv.sh | tail -1)
#
# Idempotent: on a warm run it prints only that line. Installs go to stderr.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.build/python-venv"
# Exact versions, so every machine fuzzes with the same checks; bump deliberately.
pins=(schemathesis==4.32.5 "gotenberg-client[httpx]==1.0.0" httpx==0.28.1 h2==4.4.1
      pytest==9.2.0 pytest-asyncio==1.5.0 pytest-httpx==0.36.2 pytest-mock==3.17.0 pypdf==7.1.1
      pikepdf==10.18.0 python-magic==0.4.27 niquests==3.21.2 requests==2.34.2 responses==0.26.3
      pytest-rerunfailures==16.1)
# Written last, after a complete install: a half-made venv is redone on the next run.
stamp="$venv/.pins"

if [ ! -x "$venv/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "${pins[*]}" ]; then
  # Debian's python3 makes venvs only with python3-venv (it brings ensurepip).
  /usr/bin/python3 -c 'import ensurepip, venv' 2>/dev/null || bash "$root/scripts/apt-install.sh" python3-venv
  mkdir -p "$root/.build"
  [ -x "$venv/bin/python" ] || /usr/bin/python3 -m venv "$venv" >&2
  "$venv/bin/python" -m pip install -q --disable-pip-version-check "${pins[@]}" >&2
  printf '%s' "${pins[*]}" >"$stamp"
fi
echo "$venv/bin"
