#!/usr/bin/env bash
# Creates a Python virtualenv the tests use, under .build/, with pinned tools, and prints its bin
# directory as its last line:
#
#   bin=$(bash scripts/python-venv.sh | tail -1)                  # .build/python-venv
#   bin=$(bash scripts/python-venv.sh gotenberg-suite | tail -1)  # .build/gotenberg-suite-venv
#
# - the default one: schemathesis (fuzzes openapi.yaml against a live server) and
#   gotenberg-client (the Gotenberg client we check the compatible routes with);
# - `gotenberg-suite`: what the gotenberg-client sdist's own test suite imports
#   (scripts/gotenberg-upstream): pytest and its plugins, pypdf, pikepdf, its other HTTP
#   backends. Apart, because niquests brings urllib3-future, which replaces urllib3 under the
#   requests that schemathesis uses.
#
# Idempotent: on a warm run it prints only that line. Installs go to stderr.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Exact versions, so every machine runs the same checks; bump deliberately.
case "${1:-tools}" in
  tools)
    venv="$root/.build/python-venv"
    pins=(schemathesis==4.32.5 "gotenberg-client[httpx]==1.0.0" httpx==0.28.1 h2==4.4.1)
    ;;
  gotenberg-suite)
    venv="$root/.build/gotenberg-suite-venv"
    pins=("gotenberg-client[httpx]==1.0.0" httpx==0.28.1 h2==4.4.1
          pytest==9.2.0 pytest-asyncio==1.5.0 pytest-httpx==0.36.2 pytest-mock==3.17.0 pytest-rerunfailures==16.1
          pypdf==7.1.1 pikepdf==10.18.0 python-magic==0.4.27 niquests==3.21.2 requests==2.34.2 responses==0.26.3)
    ;;
  *) echo "usage: python-venv.sh [tools|gotenberg-suite]" >&2; exit 2 ;;
esac
# Written last, after a complete install: a half-made venv is redone on the next run.
stamp="$venv/.pins"

if [ ! -x "$venv/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "${pins[*]}" ]; then
  # Debian's python3 makes venvs only with python3-venv (it brings ensurepip).
  /usr/bin/python3 -c 'import ensurepip, venv' 2>/dev/null || bash "$root/scripts/apt-install.sh" python3-venv
  mkdir -p "$root/.build"
  # Made anew: pins that changed may leave a package that clashes with the new set.
  rm -rf "$venv"
  /usr/bin/python3 -m venv "$venv" >&2
  "$venv/bin/python" -m pip install -q --disable-pip-version-check "${pins[@]}" >&2
  printf '%s' "${pins[*]}" >"$stamp"
fi
echo "$venv/bin"
