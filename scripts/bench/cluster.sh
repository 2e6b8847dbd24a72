#!/usr/bin/env bash
# The cluster part of `make bench` (issue 13), on a throwaway PostgreSQL this script starts and
# stops (scripts/postgres-scratch.sh), beside the embedded SQLite in the same run: pipeline
# overhead per job, GET /v1/jobs/{id} with wrk, jobs/s with an instant converter on 1 and 3
# nodes, and how long another node takes to resume a SIGKILLed node's job.
# Prints `key value` lines like pdfgate-bench. Usage: cluster.sh BIN_DIR OUT_DIR
set -euo pipefail
bin="$1"; out="$2"
mkdir -p "$out"
scratch="$(bash scripts/postgres-scratch.sh start)"
pgdir="$(sed -n 1p <<<"$scratch")"; pgurl="$(sed -n 2p <<<"$scratch")"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
  bash scripts/postgres-scratch.sh stop "$pgdir"
}
trap cleanup EXIT
# A fresh database on the scratch server; prints its URL.
database() { psql "$pgurl" -qc "CREATE DATABASE $1" >/dev/null; echo "${pgurl%/*}/$1"; }
now() { date +%s.%N; }
wait_healthy() { for _ in $(seq 1 200); do curl -fs "$1/healthz" >/dev/null && return 0; sleep 0.05; done; return 1; }

# 1. The engine's overhead per job, one after another, every row in PostgreSQL.
"$bin/pdfgate-bench" pipeline "$out/pipeline-pg" 200 Fixtures/pdf/one-page.pdf "$(database pipeline)"

# 2. GET /v1/jobs/{id} against one node on PostgreSQL (no job cache on a shared database).
url="$(database http)"
token="$("$bin/pdfgate" token create --owner bench --store "$out/store-http" --database "$url" 2>/dev/null)"
"$bin/pdfgate" serve --store "$out/store-http" --database "$url" --port 18770 --auth tokens --log-level warning \
  > /dev/null 2> "$out/serve-http.log" &
pids+=($!)
wait_healthy http://127.0.0.1:18770
auth="Authorization: Bearer $token"
job=$(curl -fsS -X POST http://127.0.0.1:18770/v1/jobs -H "$auth" -H 'Content-Type: application/json' \
  -d '{"type":"DOC_TO_PDF","original_filename":"bench.docx"}' | sed 's/.*"job_id":"\([^"]*\)".*/\1/')
server="${pids[-1]}"
threads() { awk '$1 == "Threads:" { print $2 }' "/proc/$server/status"; }
echo "http.pg_job.threads_before $(threads)"
( peak=0; while kill -0 "$server" 2>/dev/null; do t=$(threads); [ "${t:-0}" -gt "$peak" ] && peak=$t && echo "$peak" > "$out/threads-pg"; sleep 0.05; done ) &
sampler=$!
wrk -t2 -c64 -d10s --latency -H "$auth" "http://127.0.0.1:18770/v1/jobs/$job" > "$out/wrk-pg-job.txt"
kill "$sampler" 2>/dev/null; wait "$sampler" 2>/dev/null || true
echo "http.pg_job.threads_peak $(cat "$out/threads-pg")"
awk '/Requests\/sec:/ { print "http.pg_job.rps", $2 }
     $1 == "99%" { v = $2; u = v; sub(/[0-9.]+/, "", u); sub(/[a-z]+$/, "", v)
                   f = (u == "us") ? 0.001 : (u == "ms") ? 1 : (u == "s") ? 1000 : 60000; print "http.pg_job.p99_ms", v * f }' \
  "$out/wrk-pg-job.txt"
kill "${pids[-1]}"; wait "${pids[-1]}" 2>/dev/null || true

# 3. Throughput with an instant converter (a Gotenberg stand-in that answers at once): 300 jobs
# created 8 at a time, round robin over the nodes, until the last one SUCCEEDED.
fake_port_file="$out/fake.port"
"$bin/pdfgate-bench" fake-gotenberg Fixtures/pdf/one-page.pdf > "$fake_port_file" 2> /dev/null &
pids+=($!)
for _ in $(seq 1 100); do [ -s "$fake_port_file" ] && break; sleep 0.05; done
fake="http://127.0.0.1:$(cat "$fake_port_file")"
throughput() {  # name nodes database-url-or-sqlite
  local name="$1" nodes="$2" db="$3" store="$out/store-$1" started=() ports=()
  for i in $(seq 0 $((nodes - 1))); do
    port=$((18780 + i))
    "$bin/pdfgate" serve --store "$store" --database "$db" --port "$port" --node "n$i" --routes "DOC_TO_PDF=gotenberg=$fake" \
      --max-active-jobs 100000 --jobs-per-minute 1000000 --log-level warning > /dev/null 2> "$out/serve-$name-$i.log" &
    pids+=($!); started+=($!); ports+=("$port")
  done
  for port in "${ports[@]}"; do wait_healthy "http://127.0.0.1:$port"; done
  local begin; begin=$(now)
  seq 0 299 | xargs -P 8 -I{} sh -c 'port=$((18780 + {} % '"$nodes"')); curl -fsS -o /dev/null -X POST \
    "http://127.0.0.1:$port/v1/jobs?filename=sample.docx&name=job-{}" -H "Content-Type: application/octet-stream" \
    --data-binary @Fixtures/office/sample.docx'
  local done_count=0
  for _ in $(seq 1 1200); do
    done_count=$(curl -fsS "http://127.0.0.1:18780/metrics" | awk '/^pdfgate_jobs\{status="SUCCEEDED"\}/ { print $2 }')
    [ "${done_count:-0}" -ge 300 ] && break
    sleep 0.05
  done
  local end; end=$(now)
  echo "cluster.$name.jobs_per_s $(awk -v n="$done_count" -v b="$begin" -v e="$end" 'BEGIN { print n / (e - b) }')"
  for pid in "${started[@]}"; do kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true; done
}
throughput sqlite1 1 sqlite
throughput pg1 1 "$(database throughput1)"
throughput pg3 3 "$(database throughput3)"

# 4. Takeover: a job mid-conversion (the stand-in takes 60 s) on one of two nodes; that node is
# SIGKILLed; the time until the other node holds the job's lease. Lease 5 s.
slow_port_file="$out/slow.port"
"$bin/pdfgate-bench" fake-gotenberg Fixtures/pdf/one-page.pdf 60 > "$slow_port_file" 2> /dev/null &
pids+=($!)
for _ in $(seq 1 100); do [ -s "$slow_port_file" ] && break; sleep 0.05; done
url="$(database takeover)"
declare -A node_pid
for i in 0 1; do
  "$bin/pdfgate" serve --store "$out/store-takeover" --database "$url" --port $((18790 + i)) --node "n$i" --lease 5 \
    --routes "DOC_TO_PDF=gotenberg=http://127.0.0.1:$(cat "$slow_port_file")" --log-level warning > /dev/null 2> "$out/serve-takeover-$i.log" &
  pids+=($!); node_pid[n$i]=$!
done
wait_healthy http://127.0.0.1:18790; wait_healthy http://127.0.0.1:18791
curl -fsS -o /dev/null -X POST "http://127.0.0.1:18790/v1/jobs?filename=sample.docx" -H 'Content-Type: application/octet-stream' \
  --data-binary @Fixtures/office/sample.docx
holder=""
for _ in $(seq 1 200); do
  holder=$(psql "$url" -tAc "SELECT lease_node FROM jobs WHERE status = 'PROCESSING'")
  [ -n "$holder" ] && break
  sleep 0.05
done
killed=$(now)
kill -9 "${node_pid[$holder]}"
for _ in $(seq 1 400); do
  now_holder=$(psql "$url" -tAc "SELECT lease_node FROM jobs WHERE status = 'PROCESSING'")
  [ -n "$now_holder" ] && [ "$now_holder" != "$holder" ] && break
  sleep 0.05
done
echo "cluster.takeover_s $(awk -v a="$killed" -v b="$(now)" 'BEGIN { print b - a }')"
echo "cluster.lease_s 5"
