#!/usr/bin/env bash
# Runs the Python gotenberg-client's own upstream test suite (its PyPI sdist ships tests/)
# against a loopback `pdfgate serve`, as its CI runs it against Gotenberg in Docker:
#
#   bash scripts/gotenberg-upstream/run.sh [PDFGATE_BINARY] [-- PYTEST_ARGS...]
#
# The suite's docker-compose file puts Gotenberg and an nginx named `nginx-webserver` on one
# network. Here that network is a network namespace of our own (unshare): only its loopback,
# `nginx-webserver` resolving to 127.0.0.1 there through a hosts file mounted for the namespace,
# a static server on its port 80 serving tests/docker/content, and pdfgate on port 3000,
# started with the suite's own Gotenberg flags. Nothing in the suite is edited: its fixtures
# get their host and ports from pytest-docker's two fixtures, which driver.py stands in for.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
binary="$root/.build/debug/pdfgate"
if [ $# -gt 0 ] && [ "$1" != "--" ]; then binary="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; shift; fi
[ "${1:-}" = "--" ] && shift
[ -x "$binary" ] || { echo "no pdfgate at $binary: run swift build first" >&2; exit 2; }

bin="$(bash "$root/scripts/python-venv.sh" gotenberg-suite | tail -1)"

# The sdist, pinned by version and checked by hash, unpacked once under .build.
version=1.0.0
sha256=871b339ed98911279f94f3aaa6403ca7c59aaa695d8663249be6314ccd46719c
suite="$root/.build/gotenberg-client-$version"
if [ ! -f "$suite/.unpacked" ]; then
  download="$(mktemp -d)"
  trap 'rm -rf "$download"' EXIT
  # `--no-binary` names the package alone: with `:all:` pip would also build the sdist's build
  # backend (hatchling) and everything it needs from source, just to read its metadata.
  "$bin/python" -m pip download -q --disable-pip-version-check --no-binary gotenberg-client --no-deps \
    "gotenberg-client==$version" -d "$download" >&2
  archive="$download/gotenberg_client-$version.tar.gz"
  echo "$sha256  $archive" | sha256sum --check --quiet
  rm -rf "$suite" && mkdir -p "$suite"
  tar -xzf "$archive" -C "$suite" --strip-components=1
  touch "$suite/.unpacked"
fi

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
# A network namespace of its own (nothing leaves loopback) and a mount namespace, for the hosts file.
exec $sudo unshare --net --mount -- "$bin/python" "$here/driver.py" "$binary" "$suite" "$@"
