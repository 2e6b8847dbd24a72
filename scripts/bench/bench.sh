#!/usr/bin/env bash
# `make bench`: builds in release mode, measures, and prints each figure beside its peer or
# target. Everything runs on this machine; nothing touches the network. The parts beside this
# file (http.sh, pdf-ops.sh, scan.sh, search.sh, cluster.sh, gotenberg.sh, webdav.sh, s3.sh) each print `key value`
# lines; they run from the repository's root, as this script does.
#
#   bash scripts/bench/bench.sh        BENCH_DIR (bench-out), BENCH_DOCUMENTS (100000),
#                                      BENCH_PARTS=stores (only what the store layer decides)
set -euo pipefail
if [ "${1:-}" = --help ] || [ "${1:-}" = -h ]; then
  sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'
  exit 0
fi
cd "$(dirname "$0")/../.."
out="${BENCH_DIR:-bench-out}"
documents="${BENCH_DOCUMENTS:-100000}"
rm -rf "$out" && mkdir -p "$out/pdfs"

swift build -c release --product pdfgate-bench >/dev/null
swift build -c release --product pdfgate >/dev/null
bin="$(swift build -c release --show-bin-path)"

# 200 distinct PDFs of 1–50 pages, cut from a 60-page document with qpdf.
src=Fixtures/pdf/many-pages.pdf
qpdf --empty --pages "$src" "$src" "$src" "$src" "$src" -- "$out/sixty.pdf"
for i in $(seq 1 200); do
  n=$(( (i - 1) % 50 + 1 ))
  qpdf "$out/sixty.pdf" --pages . "1-$n" -- "$out/pdfs/doc-$(printf %03d "$i").pdf"
done

# Counts print as integers, times and sizes with two decimals.
get() { awk -v k="$1" '$1 == k { v = $2 + 0; if (v == int(v) && v >= 100) printf "%d", v; else printf "%.2f", v }' "$out/results.txt"; }
count() { awk -v k="$1" '$1 == k { printf "%d", $2 }' "$out/results.txt"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f", a / b; else print "n/a" }'; }
percent() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f", 100 * a / b; else print "n/a" }'; }

# BENCH_PARTS=stores measures only what the stores and the engine decide (inspection, the
# library, the HTTP API, the pipeline, the cluster, the bucket), not the converters: for comparing two
# builds of the store layer in a few minutes. Anything else measures everything.
parts="${BENCH_PARTS:-all}"
"$bin/pdfgate-bench" inspect "$out/pdfs" > "$out/results.txt"
"$bin/pdfgate-bench" seed "$out/store-small" 10000 Fixtures/pdf/one-page.pdf > /dev/null
"$bin/pdfgate-bench" library "$out/store-small" | sed 's/^library\./small./' >> "$out/results.txt"
"$bin/pdfgate-bench" seed "$out/store" "$documents" Fixtures/pdf/one-page.pdf >> "$out/results.txt"
"$bin/pdfgate-bench" library "$out/store" >> "$out/results.txt"
bash scripts/bench/http.sh "$bin" "$out/store" "$out" >> "$out/results.txt"
if [ "$parts" != stores ]; then
  bash scripts/bench/pdf-ops.sh "$bin" "$out/pdfs" "$out/ops" >> "$out/results.txt"
  "$bin/pdfgate-bench" office Fixtures/office-set "$out/office" >> "$out/results.txt"
  /usr/bin/python3 scripts/fidelity/word_corpus.py .build/fidelity > /dev/null
  "$bin/pdfgate-bench" fidelity "$out/fidelity" >> "$out/results.txt"
  "$bin/pdfgate-bench" url Fixtures/web-set "$out/url" >> "$out/results.txt"
  /usr/bin/python3 scripts/bench/fontconfig-lookups.py >> "$out/results.txt"
  "$bin/pdfgate-bench" ebook Fixtures/ebook-set "$out/ebook" >> "$out/results.txt"
  bash scripts/bench/scan.sh "$bin" "$out/scan" >> "$out/results.txt"
fi
"$bin/pdfgate-bench" pipeline "$out/pipeline" 200 Fixtures/pdf/one-page.pdf >> "$out/results.txt"
"$bin/pdfgate-bench" pipeline-indexed "$out/pipeline-indexed" 200 Fixtures/pdf/many-pages.pdf >> "$out/results.txt"
"$bin/pdfgate-bench" pipeline "$out/pipeline-many" 200 Fixtures/pdf/many-pages.pdf | sed 's/^pipeline\./pipeline_many./' >> "$out/results.txt"
# Last on the 100,000-document store: it gives every document text in the index.
bash scripts/bench/search.sh "$bin" "$out/store" "$out" >> "$out/results.txt"
# The same search with the rows and the index in PostgreSQL: its own store, seeded alike.
bash scripts/bench/search.sh "$bin" "$out/store-pg-search" "$out" postgres "$documents" >> "$out/results.txt"
[ "$parts" = stores ] || "$bin/pdfgate-bench" polling Fixtures/pdf/one-page.pdf "$out/polling" >> "$out/results.txt"
bash scripts/bench/cluster.sh "$bin" "$out/cluster" >> "$out/results.txt" 2> "$out/cluster.log"
[ "$parts" = stores ] || bash scripts/bench/gotenberg.sh "$bin" "$out/door" >> "$out/results.txt"
bash scripts/bench/webdav.sh "$bin" "$out/store-small" "$out/store" "$out/pdfs" "$out/webdav" >> "$out/results.txt" 2> "$out/webdav.log"
bash scripts/bench/s3.sh "$bin" "$out/s3" "$out/pdfs" >> "$out/results.txt" 2> "$out/s3.log"

cat <<REPORT

PDF inspection: $(get inspect.files) PDFs, $(get inspect.pages) pages (median of 9 rounds of ours, 3 of pdfinfo)
  ours (pool of 2 workers)       $(get inspect.ours_s) s
  pdfinfo per file, 2 parallel   $(get inspect.pdfinfo_parallel2_s) s   → ours is $(ratio "$(get inspect.pdfinfo_parallel2_s)" "$(get inspect.ours_s)")× faster   (target ≥ 10×)
  pdfinfo per file, serial       $(get inspect.pdfinfo_serial_s) s   → ours is $(ratio "$(get inspect.pdfinfo_serial_s)" "$(get inspect.ours_s)")× faster
  peak RSS: ours $(get inspect.ours_parent_rss_mib) MiB parent + $(get inspect.ours_worker_rss_mib) MiB per worker; pdfinfo $(get inspect.pdfinfo_rss_mib) MiB per process

Library at $(get seed.documents) documents (seeded in $(get seed.s) s), medians
  page of 50 by -created_at, first   $(get library.list_first_page_ms) ms   (10,000 docs: $(get small.list_first_page_ms) ms; target < 10 ms)
  page of 50 by -created_at, deep    $(get library.list_any_page_ms) ms   (10,000 docs: $(get small.list_any_page_ms) ms)
  rename                             $(get library.rename_ms) ms   (10,000 docs: $(get small.rename_ms) ms; target < 5 ms)
  move                               $(get library.move_ms) ms   (10,000 docs: $(get small.move_ms) ms; target < 5 ms)
  peak RSS: listing $(get library.list_rss_mib), rename $(get library.rename_rss_mib), move $(get library.move_rss_mib) MiB   (10,000 docs: $(get small.list_rss_mib), $(get small.rename_rss_mib), $(get small.move_rss_mib) MiB); seeding $(get seed.rss_mib) MiB

HTTP API on loopback (wrk, 2 threads, 64 connections, 10 s; release build, bearer token)
  GET /v1/jobs/{id}                    $(get http.job.rps) req/s, p99 $(get http.job.p99_ms) ms   (target ≥ 5,000 req/s, p99 < 20 ms)
  GET /v1/documents, 50 of $(get seed.documents)   $(get http.documents.rps) req/s, p99 $(get http.documents.p99_ms) ms   (target ≥ 1,000 req/s)
  the server's threads under each: $(count http.job.threads_before) → peak $(count http.job.threads_peak), $(count http.documents.threads_before) → peak $(count http.documents.threads_peak)   (flat: no request waits on a thread of its own)
  web page, folder of $(get seed.documents) in headless Chromium: shown in $(get page.library_interactive_ms) ms (target < 500), next 50 in $(get page.next_page_ms) ms (target < 200)
  200 MB office job via a Gotenberg stand-in  RSS grows +$(get convert200.rss_growth_mib) MiB from $(get convert200.rss_before_mib) MiB (target < 50 MB; succeeded: $(get convert200.status_ok))
  1 GiB upload (PUT, streamed to disk)  RSS $(get upload.rss_before_mib) → peak $(get upload.rss_peak_mib) MiB: +$(get upload.rss_growth_mib) MiB   (target < 64 MB) at $(get upload.mib_per_s) MiB/s

PDF operations (qpdf, Ghostscript), medians of 5; ours from the request to SUCCEEDED through a release server
  merge 50 library PDFs ($(count ops.merge.pages) pages)   ours $(get ops.merge.ours_s) s, peak RSS $(get ops.merge.ours_rss_mib) MiB   qpdf by hand $(get ops.merge.peer_s) s, $(get ops.merge.peer_rss_mib) MiB   → ours $(ratio "$(get ops.merge.ours_s)" "$(get ops.merge.peer_s)")× its time
  PDF/A-2b of a $(count ops.pdfa.pages)-page PDF     ours $(get ops.pdfa.ours_s) s, peak RSS $(get ops.pdfa.ours_rss_mib) MiB   gs by hand $(get ops.pdfa.peer_s) s, $(get ops.pdfa.peer_rss_mib) MiB   → ours $(ratio "$(get ops.pdfa.ours_s)" "$(get ops.pdfa.peer_s)")× its time
  (peak RSS: the process tree, ours as pdfgate merge / pdfgate pdfa, which runs the same job in the command's own engine)

Local office conversion: the $(count office.files) files of Fixtures/office-set ($(count office.pages) pages, 11 kinds), two at a time on 2 warm LibreOffice slots
  ours, sandboxed   $(get office.ours_per_s) files/s, p50 $(get office.ours_p50_s) s
  ours, unsandboxed $(get office.unsealed_per_s) files/s, p50 $(get office.unsealed_p50_s) s   → the sandbox costs $(awk -v a="$(get office.ours_per_s)" -v b="$(get office.unsealed_per_s)" 'BEGIN { printf "%.1f", (1 - a / b) * 100 }') % of throughput (target ≤ 10 %)
  cold soffice --convert-to per file $(get office.soffice_per_s) files/s, p50 $(get office.soffice_p50_s) s   → ours $(ratio "$(get office.ours_per_s)" "$(get office.soffice_per_s)")× its throughput (target ≥ 5×), p50 $(ratio "$(get office.soffice_p50_s)" "$(get office.ours_p50_s)")× lower
  cold soffice, 2 lanes in parallel   $(get office.soffice_parallel2_per_s) files/s   → ours $(ratio "$(get office.ours_per_s)" "$(get office.soffice_parallel2_per_s)")× its throughput (target ≥ 2.5×)

Likeness: the page or slide count Word and PowerPoint wrote into $(count fidelity.files) files of public test suites ($(count fidelity.multi_page_files) of several pages; scripts/fidelity)
  ours (warm, sealed)     $(count fidelity.ours_agree) agree = $(percent "$(count fidelity.ours_agree)" "$(count fidelity.files)") %, multi-page $(count fidelity.ours_multi_agree) = $(percent "$(count fidelity.ours_multi_agree)" "$(count fidelity.multi_page_files)") %   (target ≥ 97 %, ≥ 85 %)
  soffice --convert-to    $(count fidelity.soffice_agree) agree = $(percent "$(count fidelity.soffice_agree)" "$(count fidelity.files)") %, multi-page $(count fidelity.soffice_multi_agree) = $(percent "$(count fidelity.soffice_multi_agree)" "$(count fidelity.multi_page_files)") %
$(sed 's/^/  /' "$out/fidelity/differing.txt" 2>/dev/null)

Font lookups (libfontconfig's own FcFontSort and FcFontMatch, ten common families; scripts/bench/fontconfig-lookups.py)
  every face ($(count fontconfig.faces_all))      sort $(get fontconfig.sort_us_all) µs, match $(get fontconfig.match_us_all) µs
  Type 1 left out ($(count fontconfig.faces_no_type1), as fonts.conf does)   sort $(get fontconfig.sort_us_no_type1) µs, match $(get fontconfig.match_us_no_type1) µs   → $(awk -v a="$(get fontconfig.sort_us_no_type1)" -v b="$(get fontconfig.sort_us_all)" 'BEGIN { printf "%.0f", (1 - a / b) * 100 }') % less per sort

URL → PDF: the $(count url.pages) pages of Fixtures/web-set ($(count url.printed_pages) PDF pages: articles with pictures, a 600-row table, SVG charts, a scripted page…) on 127.0.0.1, $(count url.jobs) jobs
  ours, sandboxed    p50 $(get url.ours_p50_s) s (one client), $(get url.ours_per_s) pages/s (2 clients)   (target p50 ≤ 0.3 s)
  ours, unsandboxed  p50 $(get url.unsealed_p50_s) s, $(get url.unsealed_per_s) pages/s   → the sandbox costs $(awk -v a="$(get url.ours_per_s)" -v b="$(get url.unsealed_per_s)" 'BEGIN { printf "%.1f", (1 - a / b) * 100 }') % of throughput (target ≤ 10 %)
  cold chromium --headless --print-to-pdf per page   p50 $(get url.chromium_p50_s) s, $(get url.chromium_per_s) pages/s (2 lanes)   → ours $(ratio "$(get url.ours_per_s)" "$(get url.chromium_per_s)")× its throughput (target ≥ 3×), p50 $(ratio "$(get url.chromium_p50_s)" "$(get url.ours_p50_s)")× lower

EPUB → PDF: the $(count ebook.files) books of Fixtures/ebook-set ($(count ebook.pages) pages: a short story, a novel, a picture book, a technical book, an anthology), two at a time on 2 warm Calibre workers
  ours, sandboxed    $(get ebook.ours_per_s) books/s, p50 $(get ebook.ours_p50_s) s
  ours, unsandboxed  $(get ebook.unsealed_per_s) books/s, p50 $(get ebook.unsealed_p50_s) s   → the sandbox costs $(awk -v a="$(get ebook.ours_per_s)" -v b="$(get ebook.unsealed_per_s)" 'BEGIN { printf "%.1f", (1 - a / b) * 100 }') % of throughput
  cold ebook-convert per book   $(get ebook.cold_per_s) books/s, p50 $(get ebook.cold_p50_s) s   → ours $(ratio "$(get ebook.ours_per_s)" "$(get ebook.cold_per_s)")× its throughput
  cold ebook-convert, 2 lanes   $(get ebook.cold_parallel2_per_s) books/s   → ours $(ratio "$(get ebook.ours_per_s)" "$(get ebook.cold_parallel2_per_s)")× its throughput

Scans: $(count scan.pages) photographed A4 pages (300 dpi grey JPEGs of known English and German text), one SCAN_TO_PDF job through a release server
  ours, request → SUCCEEDED   $(get scan.ours_s) s, $(get scan.ours_pages_per_s) pages/s (median of 5; target ≥ 10 pages/s); $(count scan.identical_images) of $(count scan.pages) images byte-identical to the JPEGs sent
  img2pdf by hand             $(get scan.peer_s) s   → ours $(ratio "$(get scan.ours_s)" "$(get scan.peer_s)")× its time (ours adds the upload, the sandbox, inspection and filing)
  with OCR (eng+deu), ours    $(get ocr.ours_s) s, word error rate $(get ocr.ours_wer_pct) %
  img2pdf + ocrmypdf by hand  $(get ocr.peer_s) s, word error rate $(get ocr.peer_wer_pct) %   → ours $(ratio "$(get ocr.peer_s)" "$(get ocr.ours_s)")× its throughput (target ≥ 1.5×, WER within 1 point)

Remote gateway jobs (fake v1 peer on 127.0.0.1; each duration 3× with +0.25/0.5/0.75 s; means, worst): requests per job, detection delay
  ~1 s job    ours (event stream) $(get polling.ours.1s.polls) req, $(get polling.ours.1s.delay_s) s (worst $(get polling.ours.1s.worst_delay_s))   backoff polling $(get polling.polled.1s.polls), $(get polling.polled.1s.delay_s) s   every 1 s: $(get polling.fixed.1s.polls), $(get polling.fixed.1s.delay_s) s (worst $(get polling.fixed.1s.worst_delay_s))
  ~5 s job    ours (event stream) $(get polling.ours.5s.polls) req, $(get polling.ours.5s.delay_s) s (worst $(get polling.ours.5s.worst_delay_s))   backoff polling $(get polling.polled.5s.polls), $(get polling.polled.5s.delay_s) s   every 1 s: $(get polling.fixed.5s.polls), $(get polling.fixed.5s.delay_s) s (worst $(get polling.fixed.5s.worst_delay_s))
  ~30 s job   ours (event stream) $(get polling.ours.30s.polls) req, $(get polling.ours.30s.delay_s) s (worst $(get polling.ours.30s.worst_delay_s))   backoff polling $(get polling.polled.30s.polls), $(get polling.polled.30s.delay_s) s   every 1 s: $(get polling.fixed.30s.polls), $(get polling.fixed.30s.delay_s) s (worst $(get polling.fixed.30s.worst_delay_s))
  (target: fewer polls than every 1 s for jobs ≥ 5 s, delay ≤ max(0.5 s, 15 % of the job))

Pipeline overhead, instant converter: $(get pipeline.jobs) jobs one after another
  $(get pipeline.jobs_per_s) jobs/s, p50 $(get pipeline.p50_ms) ms per job (create → stage → convert → inspect → file → SUCCEEDED; target ≤ 20 ms)

Search, $(count search.documents) documents with varied text (1–3 pages of Zipf-drawn words; index seeded in $(get search.seed_s) s; store $(get search.store_mib) MiB), through HTTP, $(count search.two_words.count) queries of two words from one document's text, one at a time
  two words        p50 $(get search.two_words.p50_ms) ms, p99 $(get search.two_words.p99_ms) ms   (target p50 ≤ 10 ms, p99 ≤ 50 ms)
  as a phrase      p50 $(get search.phrase.p50_ms) ms, p99 $(get search.phrase.p99_ms) ms
  within a folder  p50 $(get search.in_folder.p50_ms) ms, p99 $(get search.in_folder.p99_ms) ms
  PostgreSQL, the same queries on the same text ($(count search.pg.documents) documents; index seeded in $(get search.pg.seed_s) s; database $(get search.pg.database_mib) MiB)
    two words        p50 $(get search.pg.two_words.p50_ms) ms, p99 $(get search.pg.two_words.p99_ms) ms   → $(ratio "$(get search.pg.two_words.p50_ms)" "$(get search.two_words.p50_ms)")× SQLite's p50   (target p50 ≤ 10 ms, p99 ≤ 50 ms)
    as a phrase      p50 $(get search.pg.phrase.p50_ms) ms, p99 $(get search.pg.phrase.p99_ms) ms
    within a folder  p50 $(get search.pg.in_folder.p50_ms) ms, p99 $(get search.pg.in_folder.p99_ms) ms
  indexing beside the pipeline (a 12-page PDF per job): p50 $(get pipeline_indexed.p50_ms) ms with the indexer reading every document's text vs $(get pipeline_many.p50_ms) ms without → $(ratio "$(get pipeline_indexed.p50_ms)" "$(get pipeline_many.p50_ms)")× ($(count pipeline_indexed.indexed) documents indexed; target ≤ 1.1×)

WebDAV at /dav/ beside rclone serve webdav (rclone $(rclone version 2>/dev/null | awk 'NR == 1 { print $2 }')) on the same files, in the same run
  PROPFIND Depth 1, folder of $(count webdav.folder_documents)   ours p50 $(get webdav.propfind.ours_p50_ms) ms, rclone $(get webdav.propfind.rclone_p50_ms) ms   → ours $(ratio "$(get webdav.propfind.rclone_p50_ms)" "$(get webdav.propfind.ours_p50_ms)")× rclone's speed (target ≥ 1×)
  rclone copy of $(count webdav.copy.files) PDFs ($(get webdav.copy.mib) MiB) in: ours $(get webdav.copy.in_ours_s) s, rclone $(get webdav.copy.in_rclone_s) s; $(get webdav.copy.in_ours_mib_per_s) MiB/s, rclone $(get webdav.copy.in_rclone_mib_per_s) MiB/s   → $(ratio "$(get webdav.copy.in_ours_mib_per_s)" "$(get webdav.copy.in_rclone_mib_per_s)")× (target ≥ 0.8×; ours fsyncs and inspects each file)
  rclone copy of them out      ours $(get webdav.copy.out_ours_mib_per_s) MiB/s, rclone $(get webdav.copy.out_rclone_mib_per_s) MiB/s   → $(ratio "$(get webdav.copy.out_ours_mib_per_s)" "$(get webdav.copy.out_rclone_mib_per_s)")×; $(count webdav.copy.identical) came back byte for byte
  change feed of $(count webdav.feed.changes) changes   $(count webdav.feed.pages) pages of 500: p50 $(get webdav.feed.page_p50_ms) ms, worst $(get webdav.feed.page_max_ms) ms   (target ≤ 10 ms a page)

Documents in an S3 bucket beside the folder tree (a throwaway one-node Ceph RADOS Gateway, scripts/s3-scratch.sh; two servers of this build on SQLite, same run)
  filed by PUT, $(count s3.documents) PDFs of 1–50 pages, 8 clients   tree $(get s3.tree.filed_per_s) docs/s, bucket $(get s3.bucket.filed_per_s) docs/s   → bucket $(get s3.bucket_vs_tree.filed_ratio)× the tree's (target ≥ 0.8×)
    CPU per document filed: tree's server $(get s3.tree.filing_cpu_ms_per_document) ms; bucket's server $(get s3.bucket.filing_cpu_ms_per_document) ms + Ceph $(get s3.bucket.ceph_cpu_ms_per_document) ms
  S3 requests per filed document   $(get s3.bucket.puts_per_document) PUT (target 1), $(get s3.bucket.requests_per_document) in all ($(get s3.bucket.gets_per_document) GET: what a node uploads joins its cache, so its indexer reads it locally)
  download, one at a time, p50     tree $(get s3.tree.download_p50_ms) ms; bucket cold $(get s3.bucket.download_cold_p50_ms) ms ($(count s3.bucket.download_cold_gets) GETs from S3), warm $(get s3.bucket.download_warm_p50_ms) ms ($(count s3.bucket.download_warm_requests) requests)   → warm $(ratio "$(get s3.bucket.download_warm_p50_ms)" "$(get s3.tree.download_p50_ms)")× the tree's
  PROPFIND Depth 1, folder of $(count s3.propfind_documents)   tree p50 $(get s3.tree.propfind_p50_ms) ms, bucket $(get s3.bucket.propfind_p50_ms) ms   → $(ratio "$(get s3.bucket.propfind_p50_ms)" "$(get s3.tree.propfind_p50_ms)")× the tree's (target 1×: catalog only)
    $(count s3.bucket.propfind_requests) S3 requests of its own (the indexer, $(count s3.bucket.index_pending_at_propfind) documents behind, and the janitor made $(count s3.bucket.propfind_background_requests)); with radosgw stopped it lists all $(count s3.bucket.propfind_outage_listed) in $(get s3.bucket.propfind_outage_ms) ms
  (the folder seeded by PUT, 16 at a time: tree $(get s3.tree.seed_s) s, bucket $(get s3.bucket.seed_s) s; boto3 finds $(count s3.bucket.objects) objects in the bucket, one per document)

Several gateways on one PostgreSQL (a throwaway server on this machine; fsync on for both)
  pipeline overhead p50: PostgreSQL $(get pipeline_pg.p50_ms) ms vs SQLite $(get pipeline.p50_ms) ms per job → $(ratio "$(get pipeline_pg.p50_ms)" "$(get pipeline.p50_ms)")× SQLite's   (target ≤ 2×)
  GET /v1/jobs/{id}, one node          $(get http.pg_job.rps) req/s, p99 $(get http.pg_job.p99_ms) ms vs SQLite $(get http.job.rps) req/s   (target ≥ 5,000 req/s); threads $(count http.pg_job.threads_before) → peak $(count http.pg_job.threads_peak)
  300 jobs, instant converter          SQLite 1 node $(get cluster.sqlite1.jobs_per_s) jobs/s; PostgreSQL 1 node $(get cluster.pg1.jobs_per_s), 3 nodes $(get cluster.pg3.jobs_per_s) jobs/s (3 nodes share these 2 cores)
  takeover of a SIGKILLed node's job   $(get cluster.takeover_s) s with a $(get cluster.lease_s) s lease   (target ≤ lease + 2 s)

Gotenberg's routes beside /v1, one release server, two clients, the faster of two alternating passes ($(get door.pdfs) of $(get door.pdfs_expected) answers were PDFs)
  office set ($(count door.office_files) files)  /v1 (create, events, download) $(get door.office_v1_per_s) files/s   /forms/libreoffice/convert $(get door.office_door_per_s) files/s   → the door costs $(awk -v a="$(get door.office_door_per_s)" -v b="$(get door.office_v1_per_s)" 'BEGIN { printf "%.1f", (1 - a / b) * 100 }') % (target ≤ 5 %)
  web set ($(count door.web_pages) pages)      /v1 $(get door.web_v1_per_s) pages/s   /forms/chromium/convert/url $(get door.web_door_per_s) pages/s   → the door costs $(awk -v a="$(get door.web_door_per_s)" -v b="$(get door.web_v1_per_s)" 'BEGIN { printf "%.1f", (1 - a / b) * 100 }') %
REPORT
