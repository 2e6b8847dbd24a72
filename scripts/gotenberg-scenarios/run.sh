#!/usr/bin/env bash
# Runs Gotenberg 8's own integration scenarios (the Gherkin files of a Gotenberg checkout) against
# `pdfgate gotenberg`, as a judge of our compatibility:
#
#   bash scripts/gotenberg-scenarios/run.sh [--pdfgate BINARY] [--only NAME_SUBSTRING]... \
#        [--min-share 0.95] [--json PATH] [--keep] GOTENBERG_CHECKOUT
#
# --pdfgate defaults to .build/debug/pdfgate (waited for if a rebuild has it missing); --only
# keeps the scenarios whose name or `file.feature:LINE` contains the text (repeatable); --keep
# leaves the scratch directory (answers, pdfgate's logs) in /tmp.
#
# GOTENBERG_CHECKOUT is a checkout or export of github.com/gotenberg/gotenberg holding
# test/integration/{features,testdata}; without one the run is skipped (exit 0). Nothing of
# Gotenberg's is copied here. Export one from a git mirror with e.g.
#   git -C MIRROR archive HEAD test/integration | tar -x -C /tmp/gotenberg
#
# runner.py parses the features, implements scenario.go's steps and prints one line per scenario,
# the failures, and the totals; exit 1 when the pass share of the scenarios that ran is below
# --min-share. Details: runner.py, steps.py (what differs from the Go steps), skips.py.
#
# The run happens in a network namespace of its own (unshare, as root or through sudo): only
# loopback, with `host.docker.internal` naming it as Docker's host-gateway does for Gotenberg's
# containers (see netns.py). Without root the scenarios run in the host's network with that name
# replaced by 127.0.0.1, which some scenarios notice.
set -euo pipefail

# Debian packages the checks use, as command:package (Poppler's pdfinfo/pdftotext/pdfimages;
# qpdf's JSON for the outline, annotation and embedded-file checks; the namespace's tools).
PACKAGES=(pdfinfo:poppler-utils qpdf:qpdf ip:iproute2 unshare:util-linux)

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"

binary="$root/.build/debug/pdfgate"
checkout=""
pass=()
while [ $# -gt 0 ]; do
  case "$1" in
    --pdfgate) binary="$2"; shift 2 ;;
    --pdfgate=*) binary="${1#*=}"; shift ;;
    --only|--min-share|--json|--gotenberg-version|--request-timeout) pass+=("$1" "$2"); shift 2 ;;
    --only=*|--min-share=*|--json=*|--gotenberg-version=*|--request-timeout=*|--keep) pass+=("$1"); shift ;;
    -h|--help) sed -n '2,26p' "${BASH_SOURCE[0]}"; exit 0 ;;
    -*) echo "unknown option $1" >&2; exit 2 ;;
    *) checkout="$1"; shift ;;
  esac
done

if [ -z "$checkout" ] || [ ! -d "$checkout/test/integration/features" ]; then
  echo "no Gotenberg checkout given: skipped"
  exit 0
fi
checkout="$(cd "$checkout" && pwd)"
case "$binary" in /*) ;; *) binary="$(pwd)/$binary" ;; esac
# A --json path relative to where we were called.
for i in "${!pass[@]}"; do
  if [ "${pass[$i]}" = "--json" ]; then
    j=$((i + 1)); case "${pass[$j]}" in /*) ;; *) pass[$j]="$(pwd)/${pass[$j]}" ;; esac
  fi
done

missing=()
for entry in "${PACKAGES[@]}"; do
  command -v "${entry%%:*}" >/dev/null || missing+=("${entry#*:}")
done
[ ${#missing[@]} -eq 0 ] || bash "$root/scripts/apt-install.sh" "${missing[@]}"

python=/usr/bin/python3
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo -n"
cd "$here"
# The namespace when we may make one (root, or sudo without a password); else the host's network.
if $sudo unshare --net --mount -- true 2>/dev/null; then
  exec $sudo unshare --net --mount -- "$python" "$here/runner.py" --netns --pdfgate "$binary" \
    "${pass[@]+"${pass[@]}"}" "$checkout"
fi
echo "warning: cannot make a network namespace (needs root or sudo): running in the host's network" >&2
exec "$python" "$here/runner.py" --pdfgate "$binary" "${pass[@]+"${pass[@]}"}" "$checkout"
