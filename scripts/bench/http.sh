#!/usr/bin/env bash
# The HTTP part of `make bench` (issue 4): wrk against a release `pdfgate serve` on loopback,
# with a real token, on the store bench.sh seeded with 100,000 documents; then the server's
# peak RSS while a 1 GiB upload streams in. Prints `key value` lines like pdfgate-bench.
# Usage: http.sh BIN_DIR STORE OUT_DIR
set -euo pipefail
bin="$1"; store="$2"; out="$3"
port=18765
base="http://127.0.0.1:$port"

token="$("$bin/pdfgate" token create --owner bench --store "$store")"
"$bin/pdfgate" serve --store "$store" --port "$port" --auth tokens --max-upload-bytes 2147483648 \
  --log-level warning > "$out/serve.out" 2> "$out/serve.log" &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do curl -fs "$base/healthz" >/dev/null && break; sleep 0.1; done

auth="Authorization: Bearer $token"
job=$(curl -fsS -X POST "$base/v1/jobs" -H "$auth" -H 'Content-Type: application/json' \
  -d '{"type":"DOC_TO_PDF","original_filename":"bench.docx"}' | sed 's/.*"job_id":"\([^"]*\)".*/\1/')

# wrk's summary → requests/s and p99 in milliseconds.
measure() {
  local name="$1" url="$2"
  wrk -t2 -c64 -d10s --latency -H "$auth" "$url" > "$out/wrk-$name.txt"
  awk -v n="$name" '
    /Requests\/sec:/ { print "http." n ".rps", $2 }
    $1 == "99%" { v = $2; u = v; sub(/[0-9.]+/, "", u); sub(/[a-z]+$/, "", v)
                  f = (u == "us") ? 0.001 : (u == "ms") ? 1 : (u == "s") ? 1000 : 60000
                  print "http." n ".p99_ms", v * f }
    /Non-2xx/ { print "http." n ".non2xx", $NF }' "$out/wrk-$name.txt"
}
# The server's threads while wrk runs: a request that waited on a thread blocked in a store
# call would show as threads added under load; the event loops, the cooperative pool and the
# tools' waiters are all there before it starts. SQLite's readers are a fixed pool of queues
# (one per core) that GRDB opens as reads first overlap: a second of load brings them up, so
# "before" counts them and "peak" shows whether the load added any more.
threads() { awk '$1 == "Threads:" { print $2 }' "/proc/$server/status"; }
under_load() {
  local name="$1" url="$2" peak
  curl -fsS "$url" -H "$auth" >/dev/null
  wrk -t2 -c64 -d1s -H "$auth" "$url" > /dev/null
  echo "http.$name.threads_before $(threads)"
  ( peak=0; while kill -0 "$server" 2>/dev/null; do t=$(threads); [ "${t:-0}" -gt "$peak" ] && peak=$t && echo "$peak" > "$out/threads-$name"; sleep 0.05; done ) &
  local sampler=$!
  measure "$name" "$url"
  kill "$sampler" 2>/dev/null; wait "$sampler" 2>/dev/null || true
  echo "http.$name.threads_peak $(cat "$out/threads-$name")"
}
under_load job "$base/v1/jobs/$job"
under_load documents "$base/v1/documents?folder=Big&limit=50&sort=-created_at"

# The web page in headless Chromium on the same 100,000 documents: library shown, next 50.
"$bin/pdfgate-bench" page "$base" "$token" Big 2>> "$out/page.log"

# 1 GiB upload: RSS before, then the peak (VmHWM) after; a sparse file costs no disk to read.
kib() { awk -v k="$1" '$1 == k":" { print $2 }' "/proc/$server/status"; }
truncate -s 1G "$out/upload-1g.bin"
answer=$(curl -fsS -X POST "$base/v1/jobs" -H "$auth" -H 'Content-Type: application/json' \
  -d '{"type":"DOC_TO_PDF","original_filename":"huge.docx"}')
url=$(printf '%s' "$answer" | sed 's/.*"url":"\([^"]*\)".*/\1/')
echo 5 > "/proc/$server/clear_refs" 2>/dev/null || true   # resets VmHWM: the peak is the upload's
before=$(kib VmRSS)
start=$(date +%s.%N)
curl -fsS -X PUT "$url" -H 'Content-Type: application/octet-stream' -T "$out/upload-1g.bin" -o /dev/null
end=$(date +%s.%N)
peak=$(kib VmHWM)
rm -f "$out/upload-1g.bin"
echo "upload.rss_before_mib $(awk -v k="$before" 'BEGIN { print k / 1024 }')"
echo "upload.rss_peak_mib $(awk -v k="$peak" 'BEGIN { print k / 1024 }')"
echo "upload.rss_growth_mib $(awk -v a="$before" -v b="$peak" 'BEGIN { print (b - a) / 1024 }')"
echo "upload.mib_per_s $(awk -v s="$start" -v e="$end" 'BEGIN { print 1024 / (e - s) }')"

# (d) Converting a 200 MB upload: a second gateway routes office jobs to a Gotenberg stand-in
# that reads every byte; the gateway's peak RSS across upload, staging and the outbound
# multipart stream, against its RSS before.
fake_port_file="$out/fake-gotenberg.port"
"$bin/pdfgate-bench" fake-gotenberg Fixtures/pdf/one-page.pdf > "$fake_port_file" 2> "$out/fake-gotenberg.log" &
fake=$!
trap 'kill $server $fake ${server2:-} 2>/dev/null; wait $server 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do [ -s "$fake_port_file" ] && break; sleep 0.1; done
port2=18766
"$bin/pdfgate" serve --store "$out/store-200mb" --port "$port2" --routes "DOC_TO_PDF=gotenberg=http://127.0.0.1:$(cat "$fake_port_file")" \
  --max-upload-bytes 314572800 --log-level warning > /dev/null 2> "$out/serve-200mb.log" &
server2=$!
for _ in $(seq 1 100); do curl -fs "http://127.0.0.1:$port2/healthz" >/dev/null && break; sleep 0.1; done
head -c 209715200 /dev/urandom > "$out/input-200mb.docx"
kib2() { awk -v k="$1" '$1 == k":" { print $2 }' "/proc/$server2/status"; }
echo 5 > "/proc/$server2/clear_refs" 2>/dev/null || true
before2=$(kib2 VmRSS)
job2=$(curl -fsS -X POST "http://127.0.0.1:$port2/v1/jobs?filename=input-200mb.docx" -H 'Content-Type: application/octet-stream' \
  -T "$out/input-200mb.docx" | sed 's/.*"job_id":"\([^"]*\)".*/\1/')
status=""
for _ in $(seq 1 600); do
  status=$(curl -fsS "http://127.0.0.1:$port2/v1/jobs/$job2" | sed 's/.*"status":"\([A-Z]*\)".*/\1/')
  case "$status" in SUCCEEDED|FAILED|CANCELLED) break ;; esac
  sleep 0.2
done
peak2=$(kib2 VmHWM)
rm -f "$out/input-200mb.docx"
echo "convert200.status_ok $([ "$status" = SUCCEEDED ] && echo 1 || echo 0)"
echo "convert200.rss_before_mib $(awk -v k="$before2" 'BEGIN { print k / 1024 }')"
echo "convert200.rss_growth_mib $(awk -v a="$before2" -v b="$peak2" 'BEGIN { print (b - a) / 1024 }')"
