#!/usr/bin/env bash
# Fuzzes the API from openapi.yaml with schemathesis, every check on, against a live
# `pdfgate serve` that requires tokens. The test suite runs it (APIFuzzTests); by hand:
#
#   bash scripts/fuzz-api.sh [path/to/pdfgate] [extra `st run` arguments…]
#
# Both the server and schemathesis run in a network namespace of their own with only a
# loopback interface: the fuzzer makes up callback and download URLs on real host names, and
# nothing it sends may leave the machine. Exits with schemathesis's status (0: nothing found).
# The settings that are ours (seed, examples, which answers count as documented) are in
# schemathesis.toml beside this script's repository root.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
pdfgate="${1:-$root/.build/debug/pdfgate}"
shift || true
[ -x "$pdfgate" ] || { echo "fuzz-api: no pdfgate at '$pdfgate'; build first (swift build)" >&2; exit 2; }
pdfgate="$(realpath "$pdfgate")"
# In `make test` the fuzz is the first pass's longest test, and the others keep both cores busy
# until it is nearly done: a higher priority (root only; otherwise nothing changes) lets it end
# with them instead of alone on one core after them.
renice -n -5 -p $$ >/dev/null 2>&1 || true

bin="$(bash "$root/scripts/python-venv.sh" | tail -1)"
work="$(mktemp -d "${TMPDIR:-/tmp}/pdfgate-fuzz.XXXXXX")"
trap 'rm -rf "$work"' EXIT
store="$work/store"

# A token for one owner; schemathesis sends it on every call (its `ignored_auth` check also
# tries without and with a wrong one, which must answer 401).
token="$("$pdfgate" token create --owner fuzz --name schemathesis --store "$store" --json |
  "$bin/python" -c 'import json, sys; print(json.load(sys.stdin)["token"])')"

# As root, `unshare --net` suffices; otherwise a user namespace maps us to root inside.
userns=()
[ "$(id -u)" = 0 ] || userns=(--map-root-user)

export PDFGATE_FUZZ_TOKEN="$token" FUZZ_PDFGATE="$pdfgate" FUZZ_STORE="$store" FUZZ_BIN="$bin" FUZZ_ROOT="$root"
exec unshare --net "${userns[@]}" /bin/bash -c '
  set -euo pipefail
  ip link set lo up
  "$FUZZ_PDFGATE" serve --host 127.0.0.1 --port 0 --store "$FUZZ_STORE" --auth tokens \
    --log-level notice >"$FUZZ_STORE.out" 2>"$FUZZ_STORE.log" &
  server=$!
  trap "kill -TERM $server 2>/dev/null; wait $server 2>/dev/null || true" EXIT
  port=""
  for _ in $(seq 1 300); do
    port="$(sed -n "s|.*http://127.0.0.1:\([0-9]*\).*|\1|p" "$FUZZ_STORE.out" | head -1)"
    [ -n "$port" ] && break
    kill -0 $server 2>/dev/null || { cat "$FUZZ_STORE.log" >&2; exit 2; }
    sleep 0.1
  done
  [ -n "$port" ] || { echo "fuzz-api: the server did not start" >&2; cat "$FUZZ_STORE.log" >&2; exit 2; }
  # Its cache and reports go to the throwaway directory, not the checkout.
  cd "$(dirname "$FUZZ_STORE")"
  status=0
  # scripts/schemathesis_hooks.py: a workaround for one quirk of the fuzzer (read it there).
  PYTHONPATH="$FUZZ_ROOT/scripts" SCHEMATHESIS_HOOKS=schemathesis_hooks \
  "$FUZZ_BIN/st" --config-file "$FUZZ_ROOT/schemathesis.toml" run \
    "$FUZZ_ROOT/openapi.yaml" --url "http://127.0.0.1:$port" "$@" || status=$?
  # A server that died under the fuzzer is a failure even if every answer looked right.
  kill -0 $server 2>/dev/null || { echo "fuzz-api: the server is gone" >&2; tail -50 "$FUZZ_STORE.log" >&2; exit 3; }
  exit $status
' fuzz-api "$@"
