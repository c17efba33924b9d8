"""A real `redis-server` (Debian's package, installed by .ci/run) on a free port of 127.0.0.1.

`RedisServer` runs one in a temporary folder with persistence off, can be
stopped and started again on the same port (a Redis outage), and is stopped
at teardown. The `redis_server` fixture (conftest.py) is one without a password;
tests that need one build their own with `password=`.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from pathlib import Path

import redis


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class RedisServer:
    def __init__(self, folder: Path, password: str | None = None) -> None:
        self.folder = folder
        self.password = password
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        auth = f":{self.password}@" if self.password else ""
        return f"redis://{auth}127.0.0.1:{self.port}/0"

    def client(self) -> redis.Redis:
        return redis.Redis(host="127.0.0.1", port=self.port, password=self.password, socket_timeout=2)

    def start(self) -> RedisServer:
        binary = shutil.which("redis-server")
        assert binary, "redis-server is not installed: .ci/run installs Debian's redis-server package"
        command = [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                   "--dir", str(self.folder)]
        if self.password:
            command += ["--requirepass", self.password]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self._wait_until_it_answers()
        return self

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)
        self.process = None

    def turn_keys(self) -> list[bytes]:
        return sorted(self.client().keys("skillproxy:turn:*"))

    def _wait_until_it_answers(self) -> None:
        deadline = time.monotonic() + 10
        while True:
            try:
                if self.client().ping():
                    return
            except redis.RedisError:
                if time.monotonic() > deadline or (self.process and self.process.poll() is not None):
                    raise RuntimeError(f"redis-server did not start on port {self.port}") from None
                time.sleep(0.05)
