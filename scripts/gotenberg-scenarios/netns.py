"""Inside the network namespace run.sh made (unshare --net --mount): bring loopback up and name
it `host.docker.internal`, as Docker's host-gateway does for Gotenberg's containers.

Why a namespace rather than writing 127.0.0.1 into the scenarios: several scenarios depend on
the host name itself (an allow list `^https?://host.docker.internal.*`, an extra header scoped
to `docker\\.internal:(\\d+)`, a cookie for `host.docker.internal:%d`), so the name must resolve.
The hosts file is bind-mounted over /etc/hosts in this mount namespace only; nothing outside
changes. In the namespace nothing but loopback exists: every listener is private to the run,
and a page that reaches for the internet fails at once instead of hanging.
"""

from __future__ import annotations

import socket
import subprocess
from pathlib import Path

ALIAS = "host.docker.internal"


def enter(scratch: Path) -> None:
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    hosts = scratch / "hosts"
    original = Path("/etc/hosts").read_text() if Path("/etc/hosts").exists() else "127.0.0.1 localhost\n"
    hosts.write_text(original.rstrip("\n") + f"\n127.0.0.1 {ALIAS}\n")
    subprocess.run(["mount", "--bind", str(hosts), "/etc/hosts"], check=True)
    address = socket.gethostbyname(ALIAS)
    if address != "127.0.0.1":
        raise SystemExit(f"{ALIAS} resolves to {address}, not 127.0.0.1, inside the namespace")
