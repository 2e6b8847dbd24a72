#!/usr/bin/env bash
# The PDF operations part of `make bench` (issue 15): a merge of 50 library PDFs (1 to 50 pages
# each, 1,275 pages in all) and a PDF/A-2b of a 50-page PDF. Ours is a release `pdfgate serve`
# on loopback, timed from the request to SUCCEEDED (the job's whole pipeline: sandboxed tool,
# inspection, filing); the peer is the same tool run by hand (qpdf, Ghostscript). Medians of 5.
# Peak RSS (GNU time, the process tree): ours is `pdfgate merge`/`pdfgate pdfa`, the same job in
# a command's own engine, its sandboxed qpdf or Ghostscript included. Prints `key value` lines.
# Usage: pdf-ops.sh BIN_DIR PDF_DIR OUT_DIR (from the repository's root; pdf_ops.py is its Python)
set -euo pipefail
bin="$1"; pdfs="$2"; out="$3"
here="$(dirname "$0")"
store="$out/store"
rm -rf "$out" && mkdir -p "$out"
port=18766
base="http://127.0.0.1:$port"

inputs=()
for i in $(seq 1 50); do inputs+=("$pdfs/doc-$(printf %03d "$i").pdf"); done
big="$pdfs/doc-050.pdf"
id_of() { python3 "$here/pdf_ops.py" first-id; }
ids=()
for file in "${inputs[@]}"; do ids+=("$("$bin/pdfgate" add "$file" --store "$store" --folder In --json | id_of)"); done
big_id="$("$bin/pdfgate" add "$big" --store "$store" --folder Big --json | id_of)"

token="$("$bin/pdfgate" token create --owner default --store "$store")"
"$bin/pdfgate" serve --store "$store" --port "$port" --auth tokens --log-level warning > "$out/serve.out" 2> "$out/serve.log" &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do curl -fs "$base/healthz" >/dev/null && break; sleep 0.1; done

# Each job: POST, then GET every 5 ms until it ends; seconds from the POST to SUCCEEDED.
python3 "$here/pdf_ops.py" ours "$base" "$token" "$big_id" "${ids[@]}" > "$out/ours.txt"
kill $server; wait $server 2>/dev/null || true
trap - EXIT
cat "$out/ours.txt"

# The peers, by hand, and everyone's peak RSS.
definition="$out/pdfa-def.ps"
sed -e 's#(srgb.icc) % Customise#(/usr/share/color/icc/ghostscript/srgb.icc)#' -e '/\/Title (Title)/,+1d' \
  "$(ls /usr/share/ghostscript/*/lib/PDFA_def.ps | tail -1)" > "$definition"
merge_peer=(qpdf --empty --pages "${inputs[@]}" -- "$out/merged-by-hand.pdf")
pdfa_peer=(gs -q -dNOPAUSE -dBATCH -dSAFER -dPDFA=2 -dPDFACompatibilityPolicy=1 -sColorConversionStrategy=RGB -sDEVICE=pdfwrite
  --permit-file-read=/usr/share/color/icc/ghostscript/srgb.icc -sOutputFile="$out/pdfa-by-hand.pdf" "$definition" "$big")
median_of_5() { python3 "$here/pdf_ops.py" median-of-5 "$@"; }
rss_mib() { /usr/bin/time -f %M -o "$out/rss.txt" "$@" > /dev/null 2>> "$out/cli.log"; awk '{ printf "%.1f", $1 / 1024 }' "$out/rss.txt"; }
echo "ops.merge.peer_s $(median_of_5 "${merge_peer[@]}")"
echo "ops.pdfa.peer_s $(median_of_5 "${pdfa_peer[@]}")"
echo "ops.merge.peer_rss_mib $(rss_mib "${merge_peer[@]}")"
echo "ops.pdfa.peer_rss_mib $(rss_mib "${pdfa_peer[@]}")"
echo "ops.merge.ours_rss_mib $(rss_mib "$bin/pdfgate" merge "${ids[@]}" --store "$store" --folder Out)"
echo "ops.pdfa.ours_rss_mib $(rss_mib "$bin/pdfgate" pdfa "$big_id" --store "$store" --folder Out)"
