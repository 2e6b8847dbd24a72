#!/usr/bin/env bash
# The WebDAV part of `make bench`: /dav/ beside `rclone serve webdav` on the same files, in the
# same run, and the change feed of a large library. Prints `key value` lines like pdfgate-bench.
#
#   webdav.sh BIN_DIR FOLDER_STORE FEED_STORE PDF_DIR OUT_DIR
#
# FOLDER_STORE: a store seeded with one folder `Big` of owner `bench` (bench.sh's 10,000-document
# store); rclone serves that folder's files straight from disk. FEED_STORE: the 100,000-document
# store, whose change feed is paged through. PDF_DIR: the bench's 200 distinct PDFs (1–50
# pages); 1,000 files, five names each, are copied in and out with rclone, to each server.
set -euo pipefail
bin="$1"; folder_store="$2"; feed_store="$3"; pdfs="$4"; out="$5"
mkdir -p "$out"
out="$(cd "$out" && pwd)"  # the copy check below reads it from another directory
port=18780; peer_files_port=18781; peer_empty_port=18782; feed_port=18783
base="http://127.0.0.1:$port"
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT
wait_for() { for _ in $(seq 1 200); do curl -s -o /dev/null "$1" && return 0; sleep 0.1; done; echo "no answer from $1" >&2; exit 1; }

token="$("$bin/pdfgate" token create --owner bench --store "$folder_store")"
"$bin/pdfgate" serve --store "$folder_store" --port "$port" --auth tokens --log-level warning > "$out/webdav-serve.log" 2>&1 &
pids+=($!)
rclone serve webdav "$folder_store/bench/Big" --addr "127.0.0.1:$peer_files_port" > "$out/rclone-files.log" 2>&1 &
pids+=($!)
mkdir -p "$out/rclone-root"
rclone serve webdav "$out/rclone-root" --addr "127.0.0.1:$peer_empty_port" > "$out/rclone-empty.log" 2>&1 &
pids+=($!)
wait_for "$base/healthz"; wait_for "http://127.0.0.1:$peer_files_port/"; wait_for "http://127.0.0.1:$peer_empty_port/"

documents=$(find "$folder_store/bench/Big" -maxdepth 1 -name '*.pdf' | wc -l)
echo "webdav.folder_documents $documents"

# PROPFIND Depth 1 of the folder, alternating the two servers, 21 rounds; curl's own clock.
propfind() { curl -fsS -o /dev/null -w '%{time_total}\n' -X PROPFIND -H 'Depth: 1' "$@"; }
: > "$out/propfind-ours.txt"; : > "$out/propfind-rclone.txt"
for _ in $(seq 1 21); do
  propfind -u "bench:$token" "$base/dav/Big/" >> "$out/propfind-ours.txt"
  propfind "http://127.0.0.1:$peer_files_port/" >> "$out/propfind-rclone.txt"
done
median() { sort -g "$1" | awk '{ v[NR] = $1 * 1000 } END { printf "%.1f", v[int((NR + 1) / 2)] }'; }
echo "webdav.propfind.ours_p50_ms $(median "$out/propfind-ours.txt")"
echo "webdav.propfind.rclone_p50_ms $(median "$out/propfind-rclone.txt")"

# rclone copy of 1,000 PDFs in, then out again, to each server.
rm -rf "$out/copy-in" && mkdir -p "$out/copy-in"
for k in 1 2 3 4 5; do
  for f in "$pdfs"/*.pdf; do cp "$f" "$out/copy-in/$k-$(basename "$f")"; done
done
bytes=$(du -cb "$out/copy-in"/*.pdf | awk '$2 == "total" { print $1 }')
echo "webdav.copy.files $(ls "$out/copy-in" | wc -l)"
echo "webdav.copy.mib $(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1048576 }')"
export RCLONE_CONFIG_OURS_TYPE=webdav RCLONE_CONFIG_OURS_URL="$base/dav/" RCLONE_CONFIG_OURS_VENDOR=other \
  RCLONE_CONFIG_OURS_USER=bench RCLONE_CONFIG_OURS_PASS="$(rclone obscure "$token")"
export RCLONE_CONFIG_PEER_TYPE=webdav RCLONE_CONFIG_PEER_URL="http://127.0.0.1:$peer_empty_port/" RCLONE_CONFIG_PEER_VENDOR=other
seconds() { local start; start=$(date +%s.%N); "$@" > /dev/null 2>> "$out/rclone.log"; awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.2f", e - s }'; }
mibps() { awk -v b="$bytes" -v s="$1" 'BEGIN { printf "%.2f", b / 1048576 / s }'; }
# A store used before holds the last run's copy: start both sides empty (not timed).
rclone purge --config /dev/null ours:In 2> /dev/null || true
rclone purge --config /dev/null peer:In 2> /dev/null || true
rm -rf "$out/copy-out-ours" "$out/copy-out-peer"
ours_in=$(seconds rclone copy --config /dev/null "$out/copy-in" ours:In)
peer_in=$(seconds rclone copy --config /dev/null "$out/copy-in" peer:In)
ours_out=$(seconds rclone copy --config /dev/null ours:In "$out/copy-out-ours")
peer_out=$(seconds rclone copy --config /dev/null peer:In "$out/copy-out-peer")
echo "webdav.copy.in_ours_s $ours_in"
echo "webdav.copy.in_rclone_s $peer_in"
echo "webdav.copy.out_ours_s $ours_out"
echo "webdav.copy.out_rclone_s $peer_out"
echo "webdav.copy.in_ours_mib_per_s $(mibps "$ours_in")"
echo "webdav.copy.in_rclone_mib_per_s $(mibps "$peer_in")"
echo "webdav.copy.out_ours_mib_per_s $(mibps "$ours_out")"
echo "webdav.copy.out_rclone_mib_per_s $(mibps "$peer_out")"
same=$(cd "$out/copy-in" && for f in *.pdf; do if cmp -s "$f" "$out/copy-out-ours/$f"; then echo ok; fi; done | wc -l)
echo "webdav.copy.identical $same"

# The change feed of the 100,000-document store, page by page (500 a page, the default).
feed_token="$("$bin/pdfgate" token create --owner bench --store "$feed_store")"
"$bin/pdfgate" serve --store "$feed_store" --port "$feed_port" --auth tokens --log-level warning > "$out/feed-serve.log" 2>&1 &
pids+=($!)
wait_for "http://127.0.0.1:$feed_port/healthz"
: > "$out/feed-times.txt"
since=""; changes=0
while :; do
  curl -fsS -o "$out/feed-page.json" -w '%{time_total}\n' -H "Authorization: Bearer $feed_token" "http://127.0.0.1:$feed_port/v1/changes?limit=500${since:+&since=$since}" >> "$out/feed-times.txt"
  read -r count more token_next < <(python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); print(len(p["changes"]), p["more"], p["token"])' "$out/feed-page.json")
  changes=$((changes + count)); since="$token_next"
  [ "$more" = True ] || break
done
echo "webdav.feed.changes $changes"
echo "webdav.feed.pages $(wc -l < "$out/feed-times.txt")"
echo "webdav.feed.page_p50_ms $(median "$out/feed-times.txt")"
echo "webdav.feed.page_max_ms $(sort -g "$out/feed-times.txt" | tail -1 | awk '{ printf "%.1f", $1 * 1000 }')"
