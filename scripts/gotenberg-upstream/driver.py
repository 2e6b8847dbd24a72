"""Inside the suite's own network namespace (see run.sh): the loopback `nginx-webserver`, a
`pdfgate serve` on port 3000 started with the Gotenberg flags of the suite's docker-compose
file, then pytest over the unedited suite.

    python driver.py PDFGATE_BINARY SUITE_DIRECTORY [PYTEST_ARGS...]

Exits with pytest's status; pdfgate's log is printed when something failed.
"""

import functools
import http.server
import os
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

GOTENBERG_PORT = 3000
WEBSERVER_PORT = 80


def bring_up_network(scratch: Path) -> None:
    """Loopback up, and `nginx-webserver` naming it, as the compose network's DNS would."""
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    hosts = scratch / "hosts"
    hosts.write_text("127.0.0.1 localhost nginx-webserver\n::1 localhost\n")
    subprocess.run(["mount", "--bind", str(hosts), "/etc/hosts"], check=True)


def serve_content(directory: Path) -> http.server.ThreadingHTTPServer:
    """What the compose file's nginx serves: tests/docker/content, read-only."""

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format, *args):  # noqa: A002
            pass

    handler = functools.partial(Quiet, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", WEBSERVER_PORT), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def start_pdfgate(binary: str, scratch: Path) -> tuple[subprocess.Popen, Path]:
    """pdfgate with the suite's Gotenberg flags (docker-compose.ci-test.yml), plus the one
    setting Gotenberg does not need: nginx-webserver is a private address, which our SSRF
    rules refuse unless the host is allowed by name."""
    log = scratch / "pdfgate.log"
    arguments = [
        binary,
        "serve",
        "--store",
        str(scratch / "store"),
        "--api-port",
        str(GOTENBERG_PORT),
        "--log-level=info",
        "--log-format=text",
        "--chromium-allow-list=^file:///tmp/.*",
        "--chromium-allow-list=^http://nginx-webserver",
        "--allow-host",
        "nginx-webserver",
    ]
    process = subprocess.Popen(arguments, stdout=log.open("w"), stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"pdfgate exited with {process.returncode}:\n{log.read_text()[-4000:]}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{GOTENBERG_PORT}/health", timeout=5) as answer:
                if answer.status == 200:
                    return process, log
        except OSError:
            pass
        time.sleep(0.5)
    process.kill()
    raise SystemExit(f"pdfgate did not answer /health within 180 s:\n{log.read_text()[-4000:]}")


def main() -> int:
    binary, suite, pytest_arguments = sys.argv[1], Path(sys.argv[2]), sys.argv[3:]
    with tempfile.TemporaryDirectory(prefix="gotenberg-upstream-") as directory:
        scratch = Path(directory)
        bring_up_network(scratch)
        webserver = serve_content(suite / "tests" / "docker" / "content")
        pdfgate, log = start_pdfgate(binary, scratch)
        try:
            environment = dict(os.environ)
            here = str(Path(__file__).resolve().parent)
            environment["PYTHONPATH"] = here + os.pathsep + environment.get("PYTHONPATH", "")
            environment["PDFGATE_SUITE_PORTS"] = f"{GOTENBERG_PORT},{WEBSERVER_PORT}"
            command = [sys.executable, "-m", "pytest", "-p", "pdfgate_fixtures", "-p", "no:cacheprovider", *pytest_arguments]
            status = subprocess.run(command, cwd=suite, env=environment).returncode
        finally:
            pdfgate.terminate()
            try:
                pdfgate.wait(timeout=60)
            except subprocess.TimeoutExpired:
                pdfgate.kill()
            webserver.shutdown()
        if status != 0:
            print("\n--- pdfgate's log, last lines ---\n" + log.read_text()[-6000:], file=sys.stderr)
        return status


if __name__ == "__main__":
    sys.exit(main())
