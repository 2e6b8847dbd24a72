"""The "Gotenberg container": `pdfgate gotenberg` as a subprocess on 127.0.0.1.

A scenario's container is started from its environment table, as Docker gets it, plus what
Gotenberg's harness adds to every container (containers.go's applyDefaultEnv: the three
permissive allow lists, unless the scenario sets them, even to ""). Our own flags are only
where and what to serve from: `--host 127.0.0.1` (tests never listen elsewhere), a fresh
`--store`, and outside our network namespace a free `--port` (inside it, Gotenberg's 3000).
Nothing else of ours.

Gotenberg starts a fresh container per scenario; a warm pdfgate is reused across scenarios
with the same environment (start-up and converter warm-up cost time) and restarted when the
environment differs or the process died. Its stdout and stderr go to one log file; the log
steps read the start-up part plus what came after the scenario began, as a fresh container's
log would hold.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

# containers.go: integrationAllowList, applied unless the scenario names the variable.
HARNESS_DEFAULTS = {
    "CHROMIUM_ALLOW_LIST": ".+",
    "API_DOWNLOAD_FROM_ALLOW_LIST": ".+",
    "WEBHOOK_ALLOW_LIST": ".+",
}

# Variables of the runner's own environment that would change how pdfgate or Gotenberg's flags
# read: not passed on (a container has only its image's and the scenario's variables).
_SCRUB_PREFIXES = ("PDFGATE_", "API_", "CHROMIUM_", "LIBREOFFICE_", "PDFENGINES_", "WEBHOOK_",
                   "PROMETHEUS_", "LOG_", "GOTENBERG_", "QPDF_", "EXIFTOOL_", "PDFCPU_", "PDFTK_")
_SCRUB_NAMES = {"TZ"}

START_TIMEOUT = 120  # containers.go gives a container 2 minutes
BINARY_WAIT = 300  # the binary may be rebuilt under us: wait this long for it to come back


class GatewayError(Exception):
    pass


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def container_env(table_env: dict[str, str] | None) -> dict[str, str]:
    env = dict(table_env or {})
    for k, v in HARNESS_DEFAULTS.items():
        env.setdefault(k, v)
    return env


class Gateway:
    def __init__(self, binary: Path, scratch: Path, fixed_port: int = 0):
        self.binary = binary
        self.fixed_port = fixed_port  # 3000 inside our namespace: pdfgate gotenberg's default
        self.scratch = scratch
        self.proc: subprocess.Popen | None = None
        self.env_key: tuple | None = None
        self.port = 0
        self.log_path: Path | None = None
        self.startup_end = 0  # log offset once /health answered
        self.starts = 0

    # -- lifecycle -----------------------------------------------------------------------------
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def ensure(self, env: dict[str, str]) -> None:
        """A running pdfgate with exactly this container environment."""
        key = tuple(sorted(env.items()))
        if self.alive() and self.env_key == key:
            return
        self.stop()
        self._start(env, key)

    def _wait_for_binary(self) -> None:
        deadline = time.monotonic() + BINARY_WAIT
        while not (self.binary.is_file() and os.access(self.binary, os.X_OK)):
            if time.monotonic() > deadline:
                raise GatewayError(f"no pdfgate binary at {self.binary} (waited {BINARY_WAIT} s)")
            time.sleep(2)

    def _start(self, env: dict[str, str], key: tuple) -> None:
        self._wait_for_binary()
        self.starts += 1
        run_dir = self.scratch / f"pdfgate-{self.starts}"
        run_dir.mkdir(parents=True, exist_ok=True)
        self.log_path = run_dir / "pdfgate.log"
        # In our own network namespace Gotenberg's own port is free: use it, as a container does
        # (the /debug route reports it). Elsewhere a free port, named with --port.
        self.port = self.fixed_port or free_port()
        if self.fixed_port:
            self._wait_port_free()
        proc_env = {k: v for k, v in os.environ.items()
                    if not k.startswith(_SCRUB_PREFIXES) and k not in _SCRUB_NAMES}
        proc_env.update(env)
        args = [str(self.binary), "gotenberg", "--host", "127.0.0.1", "--store", str(run_dir / "store")]
        if not self.fixed_port:
            args += ["--port", str(self.port)]
        for attempt in range(3):
            log = self.log_path.open("ab")
            try:
                self.proc = subprocess.Popen(args, env=proc_env, stdout=log, stderr=subprocess.STDOUT,
                                             stdin=subprocess.DEVNULL, start_new_session=True, cwd=run_dir)
            except OSError as e:  # e.g. the binary is being replaced right now
                log.close()
                if attempt == 2:
                    raise GatewayError(f"cannot start {self.binary}: {e}") from e
                time.sleep(3)
                self._wait_for_binary()
                continue
            log.close()
            break
        self.env_key = key
        root = env.get("API_ROOT_PATH", "")
        health = f"{root}health" if root else "/health"
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            code = self.proc.poll()
            if code is not None:
                self.proc = None
                raise GatewayError(f"pdfgate exited with status {code} at start: {self.log_tail()}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{health}", timeout=5) as answer:
                    if answer.status == 200:
                        self.startup_end = self.log_path.stat().st_size
                        return
            except urllib.error.HTTPError:
                pass
            except OSError:
                pass
            time.sleep(0.25)
        self.stop()
        raise GatewayError(f"pdfgate did not answer {health} with 200 within {START_TIMEOUT} s: {self.log_tail()}")

    def _wait_port_free(self, seconds: float = 15) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
                s.settimeout(1)
                if s.connect_ex(("127.0.0.1", self.port)) != 0:
                    return
            time.sleep(0.2)
        raise GatewayError(f"port {self.port} is still taken by another process")

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        self.env_key = None
        if proc is None or proc.poll() is not None:
            return
        # Our own process group (start_new_session): pdfgate and the converters it started.
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait(timeout=10)

    # -- logs ----------------------------------------------------------------------------------
    def log_offset(self) -> int:
        return self.log_path.stat().st_size if self.log_path and self.log_path.exists() else 0

    def log_since(self, offset: int) -> str:
        """Start-up lines plus everything after `offset`: what a fresh container's log holds."""
        if not self.log_path or not self.log_path.exists():
            return ""
        data = self.log_path.read_bytes()
        start = data[: self.startup_end]
        rest = data[max(offset, self.startup_end):]
        return (start + rest).decode("utf-8", errors="replace")

    def log_tail(self, lines: int = 15) -> str:
        if not self.log_path or not self.log_path.exists():
            return "(no log)"
        text = self.log_path.read_text(errors="replace").strip().split("\n")
        return " | ".join(text[-lines:])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"
