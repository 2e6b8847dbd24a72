#!/usr/bin/env bash
# The bucket part of `make bench`: the library's documents in an S3 bucket (a throwaway one-node
# Ceph RADOS Gateway this script starts and stops, scripts/s3-scratch.sh) beside the folder tree,
# in the same run: two release servers of the same build on SQLite, one `--documents tree`, one
# `--documents s3://…`. Documents filed per second (PUT /v1/documents/{id}, 8 clients), the S3
# requests radosgw served per filed document (its log), download p50 (cold: fetched from the
# bucket into the node's cache; warm: read again), PROPFIND Depth 1 of a folder of 10,000
# documents, and what the bucket holds, counted with boto3 (scripts/s3_peek.py).
# Prints `key value` lines like pdfgate-bench. Usage: s3.sh BIN_DIR OUT_DIR [PDF_DIR]
#
# PDF_DIR: bench.sh's PDFs of 1–50 pages (doc-001.pdf…); those missing of the 300 filed here are
# cut the same way with qpdf (qpdf gives each file an /ID of its own, so all 300 differ).
set -euo pipefail
bin="$1"; out="$2"; pdfs_in="${3:-}"
documents=300 big=10000 rounds=21
bucket=pdfgate-bench prefix=bench
tree_port=18800; bucket_port=18801
tree="http://127.0.0.1:$tree_port"; bkt="http://127.0.0.1:$bucket_port"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
rm -rf "$out/store-tree" "$out/store-bucket" "$out/pdfs" "$out/dl" && mkdir -p "$out/pdfs" "$out/dl"

scratch="$(bash scripts/s3-scratch.sh start "$bucket")"
s3dir="$(sed -n 1p <<<"$scratch")"; endpoint="$(sed -n 2p <<<"$scratch")"
access="$(sed -n 3p <<<"$scratch")"; secret="$(sed -n 4p <<<"$scratch")"
rgwlog="$s3dir/log/client.rgw.log"
declare -A server_pid
cleanup() {
  for pid in "${server_pid[@]}"; do kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true; done
  grep ' beast: ' "$rgwlog" > "$out/radosgw-requests.log" 2>/dev/null || true
  bash scripts/s3-scratch.sh stop "$s3dir"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
fail() { echo "s3.sh: $*" >&2; exit 1; }
now() { date +%s.%N; }
wait_healthy() { for _ in $(seq 1 200); do curl -fs "$1/healthz" >/dev/null && return 0; sleep 0.05; done; fail "no answer from $1"; }
# A PUT takes a creation from its owner's pace (600 a minute by default): lifted, as cluster.sh does.
start() {  # name port [--documents …]
  local name="$1" port="$2"
  shift 2
  # Something there already (a second run?) would answer for this server, which cannot bind.
  if (: < "/dev/tcp/127.0.0.1/$port") 2> /dev/null; then fail "port $port is taken"; fi
  AWS_ACCESS_KEY_ID="$access" AWS_SECRET_ACCESS_KEY="$secret" AWS_REGION=us-east-1 AWS_ENDPOINT_URL="$endpoint" \
    "$bin/pdfgate" serve --store "$out/store-$name" --port "$port" --jobs-per-minute 1000000 --log-level warning "$@" \
    >> "$out/serve-$name.out" 2>> "$out/serve-$name.log" &
  server_pid[$name]=$!
  wait_healthy "http://127.0.0.1:$port"
}
stop() { kill "${server_pid[$1]}"; wait "${server_pid[$1]}" 2>/dev/null || true; unset "server_pid[$1]"; }
start tree "$tree_port" --documents tree
start bucket "$bucket_port" --documents "s3://$bucket/$prefix"

# Document i's id: the same on both servers, so the bucket's keys can be checked against them.
id() { printf '00000000-0000-4000-8000-%012d' "$1"; }
for i in $(seq 1 "$documents"); do
  f="$out/pdfs/doc-$(printf %03d "$i").pdf"
  if [ -n "$pdfs_in" ] && [ -f "$pdfs_in/doc-$(printf %03d "$i").pdf" ]; then
    cp "$pdfs_in/doc-$(printf %03d "$i").pdf" "$f"
  else
    [ -f "$out/sixty.pdf" ] || { src=Fixtures/pdf/many-pages.pdf; qpdf --empty --pages "$src" "$src" "$src" "$src" "$src" -- "$out/sixty.pdf"; }
    qpdf "$out/sixty.pdf" --pages . "1-$(( (i - 1) % 50 + 1 ))" -- "$f"
  fi
done
[ "$(sha256sum "$out"/pdfs/*.pdf | awk '{ print $1 }' | sort -u | wc -l)" -eq "$documents" ] || fail "the $documents PDFs are not all different"
echo "s3.documents $documents"

# radosgw's access lines (`beast: … "PUT /bucket/key HTTP/1.1" 200 …`, written at its default
# log level) from byte OFFSET of its log (rgw_offset) up to time UNTIL (rgw_clock), `METHOD PATH`
# a line. Its log thread writes a moment after the fact: a line stamped past UNTIL, or a second
# without one, says it caught up.
rgw_offset() { stat -c %s "$rgwlog"; }
rgw_clock() { date -u +%Y-%m-%dT%H:%M:%S.%3N; }
rgw_requests() {  # offset until
  for _ in $(seq 1 10); do
    [[ "$(tail -n 1 "$rgwlog" | cut -c 1-23)" > "$2" ]] && break
    sleep 0.1
  done
  tail -c +"$(($1 + 1))" "$rgwlog" | awk -v until="$2" 'substr($0, 1, 23) <= until' \
    | sed -n 's/.* beast: .*\] "\([A-Z]*\) \([^ ]*\) .*/\1 \2/p'
}
# CPU time (ms) of the processes PID… and their children so far, from /proc.
cpu_ms() {
  local pid ticks=0
  for pid in "$@" $(for p in "$@"; do pgrep -P "$p" || true; done); do
    ticks=$((ticks + $(awk '{ print $14 + $15 }' "/proc/$pid/stat" 2>/dev/null || echo 0)))
  done
  echo $((ticks * 1000 / $(getconf CLK_TCK)))
}
ceph_pids() { cat "$s3dir/mon.pid" "$s3dir/osd.pid" "$s3dir/rgw.pid"; }
# Waits until the server's search indexer has read every document it holds (it reads each new
# document once: from the bucket, on a bucket node), so it is not measured alongside.
indexed() {  # base-url count
  local metrics ready pending
  for _ in $(seq 1 1200); do
    metrics=$(curl -fsS "$1/metrics")
    ready=$(awk '/^pdfgate_search_index_documents\{state="(ready|failed)"\}/ { n += $2 } END { print n + 0 }' <<<"$metrics")
    pending=$(awk '/^pdfgate_search_index_documents\{state="pending"\}/ { print $2 + 0 }' <<<"$metrics")
    [ "$ready" -ge "$2" ] && [ "${pending:-1}" -eq 0 ] && return 0
    sleep 0.1
  done
  fail "$1 did not index its $2 documents in 2 minutes (ready or failed: $ready, pending: $pending)"
}

# 1. Filing: PUT of the 300 PDFs, 8 clients (xargs -P 8 curl), until the last 201.
file_all() {  # base-url
  seq 1 "$documents" | xargs -P 8 -n 1 sh -c 'i=$(printf %03d "$3")
    curl -fsS -o /dev/null -X PUT -H "Content-Type: application/pdf" --data-binary "@$2/doc-$i.pdf" \
      "$1/v1/documents/00000000-0000-4000-8000-000000000$i?name=doc-$i"' sh "$1" "$out/pdfs"
}
# Where the two cores went while filing: each server (with its inspection workers), and on the
# bucket's side Ceph (monitor, OSD, radosgw); the clients have the rest.
per_doc() { awk -v a="$1" -v b="$2" -v n="$documents" 'BEGIN { printf "%.2f", (b - a) / n }'; }
cpu_before=$(cpu_ms "${server_pid[tree]}")
begin=$(now); file_all "$tree"; end=$(now)
tree_cpu=$(per_doc "$cpu_before" "$(cpu_ms "${server_pid[tree]}")")
tree_rate=$(awk -v n="$documents" -v b="$begin" -v e="$end" 'BEGIN { printf "%.1f", n / (e - b) }')
indexed "$tree" "$documents"
offset=$(rgw_offset)
cpu_before=$(cpu_ms "${server_pid[bucket]}"); ceph_before=$(cpu_ms $(ceph_pids))
begin=$(now); file_all "$bkt"; end=$(now)
bucket_cpu=$(per_doc "$cpu_before" "$(cpu_ms "${server_pid[bucket]}")"); ceph_cpu=$(per_doc "$ceph_before" "$(cpu_ms $(ceph_pids))")
bucket_rate=$(awk -v n="$documents" -v b="$begin" -v e="$end" 'BEGIN { printf "%.1f", n / (e - b) }')
indexed "$bkt" "$documents"
echo "s3.tree.filed_per_s $tree_rate"
echo "s3.bucket.filed_per_s $bucket_rate"
echo "s3.bucket_vs_tree.filed_ratio $(awk -v a="$bucket_rate" -v b="$tree_rate" 'BEGIN { printf "%.2f", a / b }')"
echo "s3.tree.filing_cpu_ms_per_document $tree_cpu"
echo "s3.bucket.filing_cpu_ms_per_document $bucket_cpu"
echo "s3.bucket.ceph_cpu_ms_per_document $ceph_cpu"

# 4. S3 requests while filing, until the indexer had read each new document (a GET unless the
# node kept the upload in its cache).
rgw_requests "$offset" "$(rgw_clock)" > "$out/requests-filing.txt"
per_document() { awk -v n="$documents" -v m="$1" '$1 == m || m == "" { c++ } END { printf "%.2f", c / n }' "$out/requests-filing.txt"; }
echo "s3.bucket.requests_per_document $(per_document "")"
echo "s3.bucket.puts_per_document $(per_document PUT)"
echo "s3.bucket.gets_per_document $(per_document GET)"

# 5. What landed, read with boto3: one object per document, its key PREFIX/documents/<id>/<sha256>.pdf
# and its size those of the PDF sent.
for i in $(seq 1 "$documents"); do
  f="$out/pdfs/doc-$(printf %03d "$i").pdf"
  printf '%s/documents/%s/%s.pdf\t%s\n' "$prefix" "$(id "$i")" "$(sha256sum "$f" | awk '{ print $1 }')" "$(stat -c %s "$f")"
done | sort > "$out/objects-expected.txt"
/usr/bin/python3 scripts/s3_peek.py --endpoint "$endpoint" --access-key "$access" --secret-key "$secret" \
  list "$bucket" "$prefix/documents/" | jq -r '[.key, .size] | @tsv' | sort > "$out/objects-listed.txt"
diff "$out/objects-expected.txt" "$out/objects-listed.txt" > "$out/objects-diff.txt" \
  || fail "the bucket does not hold exactly the $documents documents filed (expected < > listed): $(head -20 "$out/objects-diff.txt")"
echo "s3.bucket.objects_after_filing $(wc -l < "$out/objects-listed.txt")"

# 2. Downloads, one at a time on one connection (curl's clock per transfer), each compared with
# what was sent. Every document is in the bucket node's cache by now (kept at upload, or fetched
# by the indexer): the node is restarted with its cache emptied, so the first read fetches from S3.
stop bucket
rm -rf -- "$out/store-bucket/.pdfgate/cache/objects"
start bucket "$bucket_port" --documents "s3://$bucket/$prefix"
download_all() {  # base-url name
  local i config="$out/dl/$2.curl"
  mkdir -p "$out/dl/$2"
  : > "$config"
  for i in $(seq -f %03g 1 "$documents"); do
    printf 'url = "%s/v1/documents/00000000-0000-4000-8000-000000000%s/content"\noutput = "%s"\n' \
      "$1" "$i" "$(sed 's/[\\"]/\\&/g' <<<"$out/dl/$2/doc-$i.pdf")" >> "$config"
  done
  curl -sS -K "$config" -w '%{http_code} %{time_total}\n' > "$out/dl/$2.times"
  [ "$(awk '$1 == 200' "$out/dl/$2.times" | wc -l)" -eq "$documents" ] || fail "$2: not every download answered 200 ($out/dl/$2.times)"
  for i in $(seq -f %03g 1 "$documents"); do
    cmp -s "$out/pdfs/doc-$i.pdf" "$out/dl/$2/doc-$i.pdf" || fail "$2: doc-$i came back different"
  done
}
median_ms() { awk '{ print $2 }' "$1" | sort -g | awk '{ v[NR] = $1 * 1000 } END { printf "%.2f", v[int((NR + 1) / 2)] }'; }
download_all "$tree" tree
offset=$(rgw_offset)
download_all "$bkt" cold
rgw_requests "$offset" "$(rgw_clock)" > "$out/requests-cold.txt"
offset=$(rgw_offset)
download_all "$bkt" warm
rgw_requests "$offset" "$(rgw_clock)" > "$out/requests-warm.txt"
echo "s3.tree.download_p50_ms $(median_ms "$out/dl/tree.times")"
echo "s3.bucket.download_cold_p50_ms $(median_ms "$out/dl/cold.times")"
echo "s3.bucket.download_warm_p50_ms $(median_ms "$out/dl/warm.times")"
echo "s3.bucket.download_cold_gets $(grep -c '^GET ' "$out/requests-cold.txt" || true)"
echo "s3.bucket.download_warm_requests $(wc -l < "$out/requests-warm.txt")"

# 3. PROPFIND Depth 1 of a folder of 10,000 documents. Seeded by PUT of a one-page PDF, 16 at a
# time from one curl (a process per request would take the cores from the servers), into
# folder `Big` (made by the first PUT alone).
cp Fixtures/pdf/one-page.pdf "$out/one-page.pdf"
seed() {  # base-url name
  local config="$out/seed-$2.curl" pdf
  pdf="$(sed 's/[\\"]/\\&/g' <<<"$out/one-page.pdf")"
  curl -fsS -o /dev/null -X PUT -H 'Content-Type: application/pdf' --data-binary @"$out/one-page.pdf" \
    "$1/v1/documents/00000000-0000-4000-9000-000000000001?name=big-00001&folder=Big"
  printf 'header = "Content-Type: application/pdf"\n' > "$config"
  for i in $(seq -f %05g 2 "$big"); do
    printf 'url = "%s/v1/documents/00000000-0000-4000-9000-0000000%s?name=big-%s&folder=Big"\nupload-file = "%s"\noutput = "/dev/null"\n' \
      "$1" "$i" "$i" "$pdf" >> "$config"
  done
  local begin; begin=$(now)
  curl -sS --no-progress-meter --parallel --parallel-immediate --parallel-max 16 -K "$config" -w '%{http_code}\n' > "$out/seed-$2.codes"
  awk -v b="$begin" -v e="$(now)" 'BEGIN { printf "%.1f", e - b }'
  [ "$(grep -c '^201$' "$out/seed-$2.codes")" -eq $((big - 1)) ] || fail "$2: not every seeding PUT answered 201 ($out/seed-$2.codes)"
}
echo "s3.propfind_documents $big"
seconds=$(seed "$tree" tree)
echo "s3.tree.seed_s $seconds"
indexed "$tree" $((documents + big))
seconds=$(seed "$bkt" bucket)
echo "s3.bucket.seed_s $seconds"
# The bucket node's indexer, which may still be reading the new documents (from S3, one at a
# time, those not in its cache: minutes at this radosgw's ~50 ms a read), is not waited for; the
# rounds alternate, so both nodes run beside it. Of the requests radosgw serves meanwhile, its
# object GETs and the janitor's listings of PREFIX/documents/ (every --documents-grace / 4) are
# counted apart.
pending=$(curl -fsS "$bkt/metrics" | awk '/^pdfgate_search_index_documents\{state="pending"\}/ { print $2 + 0 }')
echo "s3.bucket.index_pending_at_propfind ${pending:-0}"
propfind() { curl -fsS -o /dev/null -w '%{http_code} %{time_total}\n' -X PROPFIND -H 'Depth: 1' "$1/dav/Big/"; }
: > "$out/propfind-tree.txt"; : > "$out/propfind-bucket.txt"
offset=$(rgw_offset)
for _ in $(seq 1 "$rounds"); do
  propfind "$tree" >> "$out/propfind-tree.txt"
  propfind "$bkt" >> "$out/propfind-bucket.txt"
done
rgw_requests "$offset" "$(rgw_clock)" > "$out/requests-propfind.txt"
echo "s3.tree.propfind_p50_ms $(median_ms "$out/propfind-tree.txt")"
echo "s3.bucket.propfind_p50_ms $(median_ms "$out/propfind-bucket.txt")"
background="^GET /$bucket/($prefix/documents/|\\?list-type=2&prefix=$prefix%2Fdocuments%2F)"
echo "s3.bucket.propfind_requests $(grep -cEv "$background" "$out/requests-propfind.txt" || true)"
echo "s3.bucket.propfind_background_requests $(grep -cE "$background" "$out/requests-propfind.txt" || true)"
# Catalog-only, shown outright: with radosgw stopped the bucket node still lists the whole folder.
bash scripts/s3-scratch.sh stop-gateway "$s3dir"
propfind_outage="$(curl -fsS -w '\n%{time_total}\n' -X PROPFIND -H 'Depth: 1' "$bkt/dav/Big/")" \
  || fail "PROPFIND of the bucket node's Big failed while radosgw was stopped"
bash scripts/s3-scratch.sh start-gateway "$s3dir"
listed=$(grep -o '<D:href>[^<]*\.pdf</D:href>' <<<"$propfind_outage" | wc -l)
[ "$listed" -eq "$big" ] || fail "PROPFIND of the bucket node's Big, radosgw stopped, lists $listed documents, not $big"
echo "s3.bucket.propfind_outage_listed $listed"
echo "s3.bucket.propfind_outage_ms $(tail -n 1 <<<"$propfind_outage" | awk '{ printf "%.2f", $1 * 1000 }')"

# 5 again: every document the bucket node holds has its one object, and nothing else is there.
objects=$(/usr/bin/python3 scripts/s3_peek.py --endpoint "$endpoint" --access-key "$access" --secret-key "$secret" \
  list "$bucket" "$prefix/" | wc -l)
[ "$objects" -eq $((documents + big)) ] || fail "the bucket holds $objects objects under $prefix/, not the $((documents + big)) documents filed"
echo "s3.bucket.objects $objects"
