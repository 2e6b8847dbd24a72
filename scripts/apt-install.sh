#!/usr/bin/env bash
# Installs the named Debian packages without their recommends, quietly; through sudo when not
# root. The one place the project's scripts call apt-get from.
#
#   bash scripts/apt-install.sh PACKAGE...
set -euo pipefail
[ $# -gt 0 ] || exit 0
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "installing: $*" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "$@" >/dev/null
