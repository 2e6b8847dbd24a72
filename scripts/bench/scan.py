"""The Python half of scan.sh (scans and OCR in `make bench`): one SCAN_TO_PDF job of 20 pages
against BASE, medians of 5, beside img2pdf by hand, every image compared with the JPEG sent; then
the job with OCR beside img2pdf + ocrmypdf, the word error rate of each against the pages' text.
Prints `key value` lines.

    python3 scan.py BASE PAGES_DIR OUT_DIR
"""
import json
import re
import statistics
import subprocess
import sys
import time
import urllib.request

base, pages, out = sys.argv[1], sys.argv[2], sys.argv[3]
files = [f"{pages}/p{n}.jpg" for n in range(1, 21)]
truth = [open(f"{pages}/p{n}.txt").read() for n in range(1, 21)]


def scan(fields):
    args = ["curl", "-fsS", base + "/v1/jobs"]
    for f in files: args += ["-F", "file=@" + f]
    for key, value in fields: args += ["-F", f"{key}={value}"]
    start = time.monotonic()
    job = json.loads(subprocess.run(args, check=True, capture_output=True).stdout)
    while job["status"] not in ("SUCCEEDED", "FAILED", "CANCELLED"):
        time.sleep(0.005)
        with urllib.request.urlopen(base + "/v1/jobs/" + job["job_id"]) as answer: job = json.load(answer)
    assert job["status"] == "SUCCEEDED", job
    return time.monotonic() - start, f"{out}/store/" + job["document"]["path"]


def words(text):
    return re.findall(r"\w+", text.lower())


def distance(a, b):
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        previous, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (x != y))
    return row[-1]


def wer(pdf):
    errors = total = 0
    for n, expected in enumerate(truth, 1):
        got = subprocess.run(["pdftotext", "-raw", "-f", str(n), "-l", str(n), pdf, "-"], check=True, capture_output=True, text=True).stdout
        errors += distance(words(expected), words(got)); total += len(words(expected))
    return 100.0 * errors / total


def timed(command):
    start = time.monotonic(); subprocess.run(command, check=True, capture_output=True); return time.monotonic() - start


def main():
    times = []
    for _ in range(5):
        seconds, pdf = scan([])
        times.append(seconds)
    print("scan.pages", len(files))
    print("scan.ours_s", statistics.median(times))
    print("scan.ours_pages_per_s", len(files) / statistics.median(times))
    subprocess.run(["pdfimages", "-j", pdf, f"{out}/image"], check=True)
    same = sum(open(f, "rb").read() == open(f"{out}/image-{n:03d}.jpg", "rb").read() for n, f in enumerate(files))
    print("scan.identical_images", same)
    print("scan.peer_s", statistics.median(timed(["img2pdf", *files, "-o", f"{out}/peer.pdf"]) for _ in range(5)))

    seconds, pdf = scan([("ocr", "true"), ("ocr_languages", '["eng","deu"]')])
    print("ocr.pages", len(files))
    print("ocr.ours_s", seconds)
    print("ocr.ours_wer_pct", wer(pdf))
    peer = timed(["img2pdf", *files, "-o", f"{out}/peer.pdf"]) + timed(["ocrmypdf", "-l", "eng+deu", f"{out}/peer.pdf", f"{out}/peer-ocr.pdf"])
    print("ocr.peer_s", peer)
    print("ocr.peer_wer_pct", wer(f"{out}/peer-ocr.pdf"))


if __name__ == "__main__":
    main()
