#!/usr/bin/env bash
# The search part of `make bench` (issue 30): the store bench.sh seeded with 100,000 documents
# gets varied text in its index (pdfgate-bench search-seed), then two-word queries, each taken
# from one document's text, go through HTTP to a release `pdfgate serve`, one at a time, as a
# person's search box sends them. Prints `key value` lines like pdfgate-bench.
# Usage: bench-search.sh BIN_DIR STORE OUT_DIR
set -euo pipefail
bin="$1"; store="$2"; out="$3"
port=18766
base="http://127.0.0.1:$port"

"$bin/pdfgate-bench" search-seed "$store" "$out/search-queries.txt"
du -sk "$store/.pdfgate" | awk '{ printf "search.store_mib %.1f\n", $1 / 1024 }'

token="$("$bin/pdfgate" token create --owner bench --store "$store")"
"$bin/pdfgate" serve --store "$store" --port "$port" --auth tokens --log-level warning > "$out/search-serve.out" 2> "$out/search-serve.log" &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do curl -fs "$base/healthz" >/dev/null && break; sleep 0.1; done

# curl's own clock (time_total: connect to last byte), so starting curl is not counted.
query() {
  curl -fsS -o /dev/null -w '%{time_total}\n' -H "Authorization: Bearer $token" -G "$base/v1/documents" \
    --data-urlencode "q=$1" --data-urlencode "limit=20"
}
percentiles() {
  sort -g | awk -v n="$1" '{ v[NR] = $1 * 1000 } END {
    p50 = v[int((NR + 1) * 0.5)]; p99 = v[int(NR * 0.99) > 0 ? int(NR * 0.99) : 1]
    printf "search.%s.p50_ms %.2f\nsearch.%s.p99_ms %.2f\nsearch.%s.count %d\n", n, p50, n, p99, n, NR }'
}
# A first pass warms the page cache the way a running server's is; the second is measured.
while read -r words; do query "$words" > /dev/null; done < "$out/search-queries.txt"
while read -r words; do query "$words"; done < "$out/search-queries.txt" | percentiles two_words
# The same words as phrases: the positions of every match are read.
while read -r words; do query "\"$words\""; done < "$out/search-queries.txt" | percentiles phrase
# One folder's scope on top of the words (every seeded document is in Big).
while read -r words; do
  curl -fsS -o /dev/null -w '%{time_total}\n' -H "Authorization: Bearer $token" -G "$base/v1/documents" \
    --data-urlencode "q=$words" --data-urlencode "folder=Big" --data-urlencode "limit=20"
done < "$out/search-queries.txt" | percentiles in_folder
