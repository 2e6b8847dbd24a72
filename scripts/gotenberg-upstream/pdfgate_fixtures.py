"""A pytest plugin standing in for pytest-docker's two fixtures, `docker_ip` and
`docker_services`, so the gotenberg-client suite's own conftest finds pdfgate and the static
server where its docker-compose services would be (driver.py started both on loopback).
"""

import os
import time

import pytest

GOTENBERG, WEBSERVER = (int(port) for port in os.environ["PDFGATE_SUITE_PORTS"].split(","))


class LoopbackServices:
    """pytest-docker's `Services`, for services that are already running."""

    ports = {
        "gotenberg-client-test-server": GOTENBERG,
        "gotenberg-client-test-server-edge": GOTENBERG,
        "nginx-webserver": WEBSERVER,
        "nginx-webserver-edge": WEBSERVER,
    }

    def port_for(self, service: str, container_port: int) -> int:
        return self.ports[service]

    def wait_until_responsive(self, check, timeout: float, pause: float, clock=time.monotonic) -> None:
        deadline = clock() + timeout
        while not check():
            if clock() > deadline:
                raise TimeoutError(f"not responsive within {timeout} s")
            time.sleep(pause)


@pytest.fixture(scope="session")
def docker_ip() -> str:
    return "127.0.0.1"


@pytest.fixture(scope="session")
def docker_services() -> LoopbackServices:
    return LoopbackServices()
