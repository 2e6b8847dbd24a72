#!/usr/bin/env bash
# The search part of `make bench` (issue 30): a library of 100,000 documents gets varied text in
# its index (pdfgate-bench search-seed), then two-word queries, each taken from one document's
# text, go through HTTP to a release `pdfgate serve`, one at a time, as a person's search box
# sends them. Prints `key value` lines like pdfgate-bench.
#
#   search.sh BIN_DIR STORE OUT_DIR                     # SQLite: STORE is already seeded (bench.sh's)
#   search.sh BIN_DIR STORE OUT_DIR postgres COUNT      # PostgreSQL: a throwaway server this script
#                                                     # starts, COUNT documents seeded into STORE
# The PostgreSQL figures are printed as search.pg.*.
set -euo pipefail
bin="$1"; store="$2"; out="$3"; backend="${4:-sqlite}"
mkdir -p "$out"
port=18766
base="http://127.0.0.1:$port"
prefix=search
database=()
pids=()
pgdir=""
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true; done
  [ -z "$pgdir" ] || bash scripts/postgres-scratch.sh stop "$pgdir"
}
trap cleanup EXIT

if [ "$backend" = postgres ]; then
  prefix=search.pg
  port=18767
  base="http://127.0.0.1:$port"
  scratch="$(bash scripts/postgres-scratch.sh start)"
  pgdir="$(sed -n 1p <<<"$scratch")"; pgurl="$(sed -n 2p <<<"$scratch")"
  psql "$pgurl" -qc "CREATE DATABASE search" >/dev/null
  url="${pgurl%/*}/search"
  database=(--database "$url")
  "$bin/pdfgate-bench" seed "$store" "$5" Fixtures/pdf/one-page.pdf "$url" | sed "s/^seed\./$prefix.seed_rows./"
  "$bin/pdfgate-bench" search-seed "$store" "$out/$prefix-queries.txt" "$url" | sed "s/^search\./$prefix./"
  # The rows, the index and its GIN indexes: the database's size on disk.
  psql "$url" -tAc "SELECT pg_database_size('search')" | awk -v p="$prefix" '{ printf "%s.database_mib %.1f\n", p, $1 / 1048576 }'
else
  "$bin/pdfgate-bench" search-seed "$store" "$out/$prefix-queries.txt"
  # The database alone: the store's staging holds http.sh's 1 GiB upload.
  du -ck "$store/.pdfgate"/gateway.sqlite* | awk '$2 == "total" { printf "search.store_mib %.1f\n", $1 / 1024 }'
fi
queries="$out/$prefix-queries.txt"

token="$("$bin/pdfgate" token create --owner bench --store "$store" "${database[@]}")"
"$bin/pdfgate" serve --store "$store" "${database[@]}" --port "$port" --auth tokens --log-level warning \
  > "$out/$prefix-serve.out" 2> "$out/$prefix-serve.log" &
pids+=($!)
for _ in $(seq 1 100); do curl -fs "$base/healthz" >/dev/null && break; sleep 0.1; done

# curl's own clock (time_total: connect to last byte), so starting curl is not counted.
query() {
  curl -fsS -o /dev/null -w '%{time_total}\n' -H "Authorization: Bearer $token" -G "$base/v1/documents" \
    --data-urlencode "q=$1" --data-urlencode "limit=20" "${@:2}"
}
percentiles() {
  sort -g | awk -v n="$1" -v p="$prefix" '{ v[NR] = $1 * 1000 } END {
    p50 = v[int((NR + 1) * 0.5)]; p99 = v[int(NR * 0.99) > 0 ? int(NR * 0.99) : 1]
    printf "%s.%s.p50_ms %.2f\n%s.%s.p99_ms %.2f\n%s.%s.count %d\n", p, n, p50, p, n, p99, p, n, NR }'
}
# A first pass warms the caches the way a running server's are; the second is measured.
while read -r words; do query "$words" > /dev/null; done < "$queries"
while read -r words; do query "$words"; done < "$queries" | percentiles two_words
# The same words as phrases: the positions of every match are read.
while read -r words; do query "\"$words\""; done < "$queries" | percentiles phrase
# One folder's scope on top of the words (every seeded document is in Big).
while read -r words; do query "$words" --data-urlencode "folder=Big"; done < "$queries" | percentiles in_folder
