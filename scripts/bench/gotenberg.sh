#!/usr/bin/env bash
# Issue 28's figure for `make bench`: the same office set and web set converted through
# Gotenberg's routes and through our /v1 API, two clients at a time, against one release
# `pdfgate serve` in the same run. /v1 is what a client of ours does: create, follow the job's
# events to its end, download the PDF; the door is one Gotenberg request that answers with it.
# Each path runs twice after a warm-up, alternating, and keeps its faster pass.
# Prints `key value` lines like pdfgate-bench.   Usage: gotenberg.sh BIN_DIR OUT_DIR
set -euo pipefail
bin="$1"; out="$2"
rm -rf "$out" && mkdir -p "$out/pdfs"
port=18770; web=18771
base="http://127.0.0.1:$port"

python3 -m http.server "$web" --bind 127.0.0.1 --directory Fixtures/web-set > "$out/web.log" 2>&1 &
site=$!
"$bin/pdfgate" serve --store "$out/store" --port "$port" --allow-host 127.0.0.1 --log-level warning \
  > "$out/serve.out" 2> "$out/serve.log" &
server=$!
trap 'kill $server $site 2>/dev/null; wait $server 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do curl -fs "$base/healthz" >/dev/null && break; sleep 0.1; done
for _ in $(seq 1 100); do curl -fs "http://127.0.0.1:$web/index.txt" >/dev/null && break; sleep 0.1; done

office=()
for f in Fixtures/office-set/*; do [ "$(basename "$f")" = README.md ] || office+=("$f"); done
urls=()
while read -r page; do [ -n "$page" ] && urls+=("http://127.0.0.1:$web/$page"); done < Fixtures/web-set/index.txt

# One conversion each way; the PDF lands in $out/pdfs, named by the path and the input.
v1_file() {
  local id url
  id=$(curl -fsS -X POST "$base/v1/jobs?filename=$(basename "$1")" -H 'Content-Type: application/octet-stream' \
    --data-binary @"$1" | sed 's/.*"job_id":"\([^"]*\)".*/\1/')
  v1_finish "$id" "v1-$(basename "$1")"
}
v1_url() {
  local id
  id=$(curl -fsS -X POST "$base/v1/jobs" -H 'Content-Type: application/json' \
    -d "{\"type\":\"URL_TO_PDF\",\"url\":\"$1\"}" | sed 's/.*"job_id":"\([^"]*\)".*/\1/')
  v1_finish "$id" "v1-$(basename "$1")"
}
v1_finish() {
  curl -fsS -N "$base/v1/jobs/$1/events" > /dev/null
  local url
  url=$(curl -fsS "$base/v1/jobs/$1" | sed 's/.*"download_url":"\([^"]*\)".*/\1/')
  curl -fsS -o "$out/pdfs/$2.pdf" "$url"
}
door_file() { curl -fsS -F "files=@$1" -o "$out/pdfs/door-$(basename "$1").pdf" "$base/forms/libreoffice/convert"; }
door_url() { curl -fsS -F "url=$1" -o "$out/pdfs/door-$(basename "$1").pdf" "$base/forms/chromium/convert/url"; }
export -f v1_file v1_url v1_finish door_file door_url
export base out

# Seconds for one pass of `fn` over the inputs, two at a time.
pass() {
  local fn="$1"; shift
  local start end
  start=$(date +%s.%N)
  printf '%s\n' "$@" | xargs -P 2 -I{} bash -c "$fn \"\$1\"" _ {}
  end=$(date +%s.%N)
  awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f", e - s }'
}
best() { awk -v a="$1" -v b="$2" 'BEGIN { print (a < b) ? a : b }'; }

# Warm-up: every tool started once each way.
v1_file "${office[0]}"; door_file "${office[0]}"; v1_url "${urls[0]}"; door_url "${urls[0]}"

v1o1=$(pass v1_file "${office[@]}"); dooro1=$(pass door_file "${office[@]}")
v1o2=$(pass v1_file "${office[@]}"); dooro2=$(pass door_file "${office[@]}")
v1w1=$(pass v1_url "${urls[@]}"); doorw1=$(pass door_url "${urls[@]}")
v1w2=$(pass v1_url "${urls[@]}"); doorw2=$(pass door_url "${urls[@]}")

v1o=$(best "$v1o1" "$v1o2"); dooro=$(best "$dooro1" "$dooro2")
v1w=$(best "$v1w1" "$v1w2"); doorw=$(best "$doorw1" "$doorw2")
# Every answer a PDF: a failed conversion must not pass for a fast one.
pdfs=0
for f in "$out"/pdfs/*.pdf; do head -c 5 "$f" | grep -q '%PDF-' && pdfs=$((pdfs + 1)); done
echo "door.office_files ${#office[@]}"
echo "door.web_pages ${#urls[@]}"
echo "door.office_v1_s $v1o"
echo "door.office_door_s $dooro"
echo "door.web_v1_s $v1w"
echo "door.web_door_s $doorw"
echo "door.office_v1_per_s $(awk -v n="${#office[@]}" -v t="$v1o" 'BEGIN { print n / t }')"
echo "door.office_door_per_s $(awk -v n="${#office[@]}" -v t="$dooro" 'BEGIN { print n / t }')"
echo "door.web_v1_per_s $(awk -v n="${#urls[@]}" -v t="$v1w" 'BEGIN { print n / t }')"
echo "door.web_door_per_s $(awk -v n="${#urls[@]}" -v t="$doorw" 'BEGIN { print n / t }')"
echo "door.pdfs $pdfs"
echo "door.pdfs_expected $(( (${#office[@]} + ${#urls[@]}) * 2 ))"
