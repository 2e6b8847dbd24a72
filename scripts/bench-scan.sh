#!/usr/bin/env bash
# The scan part of `make bench` (issue 30): 20 photographed pages (A4 at 300 dpi, grey JPEGs of
# different text and noise, made once by ImageMagick and cached) sent as one multipart
# SCAN_TO_PDF create to a release `pdfgate serve`, timed from the request to SUCCEEDED (upload,
# every header read, the sandboxed img2pdf run, inspection, filing); the peer is Debian's img2pdf
# run by hand on the same files. Medians of 5. Every image of our PDF is compared with the JPEG
# sent (pdfimages -j, cmp). Prints `key value` lines.
# Usage: bench-scan.sh BIN_DIR OUT_DIR
set -euo pipefail
bin="$1"; out="$2"
rm -rf "$out" && mkdir -p "$out"
pages="$(bash "$(dirname "$0")/make-scan-pages.sh" 20)"
port=18767
base="http://127.0.0.1:$port"

"$bin/pdfgate" serve --store "$out/store" --port "$port" --log-level warning > "$out/serve.out" 2> "$out/serve.log" &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do curl -fs "$base/healthz" >/dev/null && break; sleep 0.1; done

python3 - "$base" "$pages" "$out" > "$out/ours.txt" <<'PY'
import glob, json, os, statistics, subprocess, sys, time, urllib.request
base, pages, out = sys.argv[1], sys.argv[2], sys.argv[3]
files = sorted(glob.glob(pages + "/page-*.jpg"))
def scan():
    args = ["curl", "-fsS", base + "/v1/jobs"]
    for f in files: args += ["-F", "file=@" + f]
    start = time.monotonic()
    job = json.loads(subprocess.run(args, check=True, capture_output=True).stdout)
    while job["status"] not in ("SUCCEEDED", "FAILED", "CANCELLED"):
        time.sleep(0.005)
        with urllib.request.urlopen(base + "/v1/jobs/" + job["job_id"]) as answer: job = json.load(answer)
    assert job["status"] == "SUCCEEDED", job
    return time.monotonic() - start, job
times, last = [], None
for _ in range(5):
    seconds, last = scan()
    times.append(seconds)
print("scan.pages", len(files))
print("scan.ours_s", statistics.median(times))
print("scan.ours_pages_per_s", len(files) / statistics.median(times))
with open(out + "/document-path", "w") as f: f.write(last["document"]["path"])
PY
cat "$out/ours.txt"
document="$out/store/$(cat "$out/document-path")"

# Byte for byte: each image pdfimages takes out of our PDF against the JPEG sent for its page.
mkdir -p "$out/images"
pdfimages -j "$document" "$out/images/image"
same=0; i=0
for page in "$pages"/page-*.jpg; do
  cmp -s "$page" "$out/images/image-$(printf %03d "$i").jpg" && same=$((same + 1))
  i=$((i + 1))
done
echo "scan.identical_images $same"

# The peer: img2pdf by hand, the same 20 files, medians of 5.
python3 - "$pages" "$out/peer.pdf" <<'PY'
import glob, statistics, subprocess, sys, time
files = sorted(glob.glob(sys.argv[1] + "/page-*.jpg"))
times = []
for _ in range(5):
    start = time.monotonic()
    subprocess.run(["img2pdf", *files, "-o", sys.argv[2]], check=True)
    times.append(time.monotonic() - start)
print("scan.peer_s", statistics.median(times))
PY
