"""The Python half of pdf-ops.sh (the PDF operations part of `make bench`).

    python3 pdf_ops.py first-id < ANSWER                  the id of `pdfgate add --json`'s first document
    python3 pdf_ops.py ours BASE TOKEN BIG_ID ID…         ours: merges of the IDs, PDF/A-2b of BIG_ID
    python3 pdf_ops.py median-of-5 COMMAND…               the median of 5 runs of COMMAND, in seconds
"""
import json
import statistics
import subprocess
import sys
import time
import urllib.request


def first_id():
    print(json.load(sys.stdin)[0]["id"])


def ours(base, token, big, *ids):
    """Each job: POST, then GET every 5 ms until it ends; seconds from the POST to SUCCEEDED.
    Medians of 5; prints `key value` lines."""
    def call(method, path, body=None):
        request = urllib.request.Request(base + path, method=method, data=None if body is None else json.dumps(body).encode(),
                                         headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
        with urllib.request.urlopen(request) as answer:
            return json.load(answer)

    def job(path, body):
        start = time.monotonic()
        job = call("POST", path, body)
        while job["status"] not in ("SUCCEEDED", "FAILED", "CANCELLED"):
            time.sleep(0.005)
            job = call("GET", "/v1/jobs/" + job["job_id"])
        if job["status"] != "SUCCEEDED":
            sys.exit("job failed: %s" % job)
        return time.monotonic() - start, job["document"]["page_count"]

    ids = list(ids)
    merges = [job("/v1/documents/merge", {"documents": ids, "name": "Merged", "folder": "Out"}) for _ in range(5)]
    pdfas = [job("/v1/documents/%s/operations" % big, {"operations": [{"op": "pdfa", "part": "2b"}], "folder": "Out"})
             for _ in range(5)]
    print("ops.merge.ours_s", statistics.median(t for t, _ in merges))
    print("ops.merge.pages", merges[0][1])
    print("ops.pdfa.ours_s", statistics.median(t for t, _ in pdfas))
    print("ops.pdfa.pages", pdfas[0][1])


def median_of_5(*command):
    times = []
    for _ in range(5):
        start = time.monotonic()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        times.append(time.monotonic() - start)
    print(statistics.median(times))


COMMANDS = {"first-id": first_id, "ours": ours, "median-of-5": median_of_5}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        sys.exit(__doc__.strip())
    COMMANDS[sys.argv[1]](*sys.argv[2:])
