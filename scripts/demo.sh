#!/usr/bin/env bash
# Files the fixture PDFs into a store and shows the library: what the gateway does to every
# converted document, runnable before the server exists.
set -euo pipefail
cd "$(dirname "$0")/.."
store="${1:-./data}"
pdfgate=".build/debug/pdfgate"

echo "== filing Fixtures/pdf into $store (folder Demo; clashes become 'Name 01', …)"
valid=()
for f in Fixtures/pdf/*.pdf; do
  case "$(basename "$f")" in
    not-a-pdf.pdf|empty.pdf|truncated.pdf|encrypted.pdf|hostile-*) ;;
    *) valid+=("$f") ;;
  esac
done
"$pdfgate" add "${valid[@]}" --folder Demo --on-conflict rename --store "$store"

echo
echo "== a file that is not a PDF is refused with a reason, and nothing is filed:"
"$pdfgate" add Fixtures/pdf/not-a-pdf.pdf --folder Demo --store "$store" || true

echo
echo "== the library:"
"$pdfgate" ls --recursive --sort -page_count --store "$store"
echo
"$pdfgate" fsck --store "$store"
echo
echo "Try: $pdfgate info <ID> --store $store    ·    $pdfgate --help"
