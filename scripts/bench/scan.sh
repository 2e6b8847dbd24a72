#!/usr/bin/env bash
# The scan and OCR part of `make bench` (issue 30). 20 photographed pages of known text (A4 at
# 300 dpi, grey JPEGs, English and German, tilted, with noise: scripts/make-scan-fixtures.sh,
# made once and cached, the ground truth beside each page) go to a release `pdfgate serve`:
#   - as one SCAN_TO_PDF job, medians of 5, beside img2pdf by hand; every image of our PDF is
#     compared with the JPEG sent (pdfimages -j, cmp);
#   - as one SCAN_TO_PDF job with ocr (eng+deu), beside img2pdf + ocrmypdf by hand with its
#     defaults, one run each; the word error rate of each against the ground truth
#     (pdftotext -raw, page by page).
# Timed from the request to SUCCEEDED (scan.py). Prints `key value` lines. Usage: scan.sh BIN_DIR OUT_DIR
set -euo pipefail
bin="$1"; out="$2"
rm -rf "$out" && mkdir -p "$out"
pages="$(bash "$(dirname "$0")/../make-scan-fixtures.sh" 20)"
port=18767
base="http://127.0.0.1:$port"

"$bin/pdfgate" serve --store "$out/store" --port "$port" --log-level warning > "$out/serve.out" 2> "$out/serve.log" &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do curl -fs "$base/healthz" >/dev/null && break; sleep 0.1; done

python3 "$(dirname "$0")/scan.py" "$base" "$pages" "$out"
