"""Integration fixtures: a real fake upstream and the real proxy, each under uvicorn on 127.0.0.1:0.

`upstream` is the fake upstream (see fake_upstream.py), cleared for each test.
`start_proxy(engine=..., observers=..., tracing=..., **settings)` starts a proxy in front of it; `proxy` is
one with the marker engine, `running` one with the real engine on skills/. `logs` reads the JSON
log lines the proxy wrote. `redis_server` is a real redis-server without a password.

Every log a test produces is grepped at teardown (the `logs` fixture): none of
the well-known test secrets below, and no `Bearer` followed by a value that is
not `[redacted]`, may appear in it. Tests that configure keys use these
constants, so a key that reaches a log line fails whichever test logged it.
"""

from __future__ import annotations

import io
import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from proxy.app import create_app
from proxy.logs.setup import configure_logging
from proxy.settings import Settings

from .anthropic_upstream import AnthropicUpstream
from .engines import MarkerEngine, real_engine
from .fake_upstream import FakeUpstream
from .redis_server import RedisServer
from .servers import ServerThread

TEST_API_KEY = "sk-skillproxy-test-proxy-key-6c1d0e9b"
TEST_UPSTREAM_KEY = "sk-skillproxy-test-upstream-key-a83f42d7"
TEST_CLIENT_KEY = "sk-skillproxy-test-client-key-51e7b0c3"
TEST_SECOND_UPSTREAM_KEY = "sk-skillproxy-test-second-upstream-key-94b2c6e1"  # for a second of several upstreams
KNOWN_SECRETS = (TEST_API_KEY, TEST_UPSTREAM_KEY, TEST_CLIENT_KEY, TEST_SECOND_UPSTREAM_KEY)
UNREDACTED_BEARER = re.compile(r"(?i)\bbearer\s+(?!\[redacted\])[A-Za-z0-9._~+/=\-]+")


def secrets_in(text: str) -> list[str]:
    """The well-known test secrets, and every Bearer value left unredacted, found in `text`."""
    return [s for s in KNOWN_SECRETS if s in text] + UNREDACTED_BEARER.findall(text)


class LogCapture(io.StringIO):
    """Everything the proxy logged, as text and as parsed JSON events."""

    def __init__(self) -> None:
        super().__init__()
        self.lock = threading.Lock()

    def write(self, text: str) -> int:
        with self.lock:
            return super().write(text)

    def text(self) -> str:
        with self.lock:
            return self.getvalue()

    def events(self, name: str | None = None) -> list[dict[str, Any]]:
        parsed = [json.loads(line) for line in self.text().splitlines() if line.startswith("{")]
        return [e for e in parsed if name is None or e.get("event") == name]

    def wait_for(self, name: str, timeout: float = 5.0, **match: Any) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for event in self.events(name):
                if all(event.get(k) == v for k, v in match.items()):
                    return event
            time.sleep(0.02)
        raise AssertionError(f"no {name} log event matching {match}; got {self.events(name)}")


@dataclass
class RunningProxy:
    url: str
    settings: Settings
    engine: Any

    @property
    def base_url(self) -> str:
        return self.url + "/v1"


@pytest.fixture(scope="session")
def _fake_server() -> Iterator[tuple[FakeUpstream, str]]:
    app = FakeUpstream()
    with ServerThread(app) as server:
        yield app, server.url


@pytest.fixture(scope="session")
def _anthropic_server() -> Iterator[tuple[AnthropicUpstream, str]]:
    app = AnthropicUpstream()
    with ServerThread(app) as server:
        yield app, server.url


@pytest.fixture
def claude(_anthropic_server: tuple[AnthropicUpstream, str]) -> AnthropicUpstream:
    """The fake Anthropic Messages upstream, its recordings cleared."""
    app, url = _anthropic_server
    app.clear()
    app.url = url
    return app


@pytest.fixture
def upstream(_fake_server: tuple[FakeUpstream, str]) -> FakeUpstream:
    app, url = _fake_server
    app.clear()
    app.url = url
    app.gate = threading.Semaphore(0)
    app.gate_timeouts = 0
    return app


@pytest.fixture
def logs() -> Iterator[LogCapture]:
    capture = LogCapture()
    yield capture
    leaked = secrets_in(capture.text())
    assert not leaked, f"secrets reached the proxy's log: {leaked}"


@pytest.fixture
def start_proxy(upstream: FakeUpstream, logs: LogCapture) -> Iterator[Callable[..., RunningProxy]]:
    with ExitStack() as stack:

        def start(engine: Any = None, observers: tuple[Any, ...] = (), tracing: Any = None,
                  **overrides: Any) -> RunningProxy:
            base = {"upstream": upstream.url + "/v1", "roots": (), "connect_timeout": 1.0, "read_timeout": 5.0,
                    "log_format": "json", "log_events": True}  # the tests read the step events too
            settings = Settings(**{**base, **overrides})
            configure_logging(settings, stream=logs)
            engine = engine or MarkerEngine()
            server = stack.enter_context(ServerThread(create_app(settings, engine, observers=observers,
                                                                 tracing=tracing)))
            return RunningProxy(server.url, settings, engine)

        yield start


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    """A real redis-server without a password, stopped at teardown."""
    server = RedisServer(tmp_path).start()
    yield server
    server.stop()


@pytest.fixture
def proxy(start_proxy: Callable[..., RunningProxy]) -> RunningProxy:
    return start_proxy()


@pytest.fixture
def running(start_proxy: Callable[..., RunningProxy]) -> Iterator[RunningProxy]:
    """The proxy with the real skill engine over the project's skills/."""
    engine = real_engine()
    yield start_proxy(engine=engine)
    engine.close()


def chat_body(model: str = "json", text: str = "hi", **extra: Any) -> dict[str, Any]:
    return {"model": model, "messages": [{"role": "system", "content": "be brief"},
                                         {"role": "user", "content": text}], **extra}
