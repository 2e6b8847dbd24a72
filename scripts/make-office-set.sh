#!/usr/bin/env bash
# Builds Fixtures/office-set/: 15 varied, realistic office documents for the office-conversion
# benchmark (Pillow for the pictures, LibreOffice through UNO for the documents). The code is the
# package scripts/fixtures/office_set; its docstring says what and why.
#
#   bash scripts/make-office-set.sh            # ~1-2 minutes
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export TZ=UTC LC_ALL=C.UTF-8 SOURCE_DATE_EPOCH=1704164645
# Debian's python3: it has uno and PIL; a pyenv shim may not.
PYTHONPATH="$ROOT/scripts" exec /usr/bin/python3 -m fixtures office-set "$ROOT/Fixtures/office-set"
