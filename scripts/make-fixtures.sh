#!/usr/bin/env bash
# Regenerates everything under Fixtures/ from scratch with real tools: reportlab + pikepdf
# (Python), qpdf, LibreOffice (soffice, python3-uno), calibre (ebook-convert), Chromium and
# poppler-utils (pdfinfo) for the measurements; then the office, web and ebook sets. The code is
# the package scripts/fixtures (`python3 -m fixtures` lists its commands).
#
#   bash scripts/make-fixtures.sh            # ~5-10 minutes on 2 idle cores
#
# Idempotent: Fixtures/ is deleted and rebuilt every run (office/sample-password.odt is kept).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export TZ=UTC LC_ALL=C.UTF-8 SOURCE_DATE_EPOCH=1704164645
# Debian's python3 (the system one has reportlab/pikepdf/uno; a pyenv shim may not).
PYTHONPATH="$ROOT/scripts" exec /usr/bin/python3 -m fixtures all "$ROOT/Fixtures"
