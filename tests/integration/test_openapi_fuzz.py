"""schemathesis against the app's own OpenAPI document: no request, valid or not, gets a 500.

Every operation in `create_app(...).openapi()` is fuzzed through a real proxy (uvicorn on
127.0.0.1, the real skill engine over skills/) in front of a real upstream server. Bodies and
X-Skills-* headers come from the request-body documentation the chat routes carry; schemathesis
sends both what that schema allows and what it does not. Every answer must be under 500 and, when
it is a 4xx, an OpenAI-shaped error without a traceback.

The upstream here answers every request with a well-formed 200 and judges nothing: the shared fake
upstream reads `messages` and fails on malformed ones, as a real server may, and its 500 would pass
through. Behind this one, any 500 can only be the proxy's.
"""

from __future__ import annotations

import io
import json
import re
import warnings
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings

from proxy.app import create_app
from proxy.logs.setup import configure_logging
from proxy.settings import Settings

from .engines import MarkerEngine, real_engine
from .fake_upstream import completion, content_events
from .servers import ServerThread

EXAMPLES_PER_OPERATION = 25


class AnsweringUpstream:
    """An OpenAI-compatible server that answers everything: SSE for `stream: true` chats, JSON otherwise."""

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        body = await _read_body(receive)
        if scope["path"] == "/v1/chat/completions" and _wants_stream(body):
            await send({"type": "http.response.start", "status": 200,
                        "headers": [(b"content-type", b"text/event-stream")]})
            await send({"type": "http.response.body", "body": b"".join(content_events())})
            return
        data = completion("fine") if scope["path"] == "/v1/chat/completions" else {"object": "list", "data": []}
        payload = json.dumps(data).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode())]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": payload})


def _wants_stream(body: bytes) -> bool:
    try:
        return json.loads(body).get("stream") is True
    except (ValueError, AttributeError):
        return False


async def _read_body(receive: Any) -> bytes:
    parts = []
    while True:
        message = await receive()
        parts.append(message.get("body", b""))
        if not message.get("more_body"):
            return b"".join(parts)


async def _lifespan(receive: Any, send: Any) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return


def _app_schema() -> dict[str, Any]:
    with warnings.catch_warnings():  # routes with several methods share an operationId; FastAPI warns
        warnings.simplefilter("ignore")
        document = create_app(Settings(roots=()), MarkerEngine()).openapi()
    for path, operations in document["paths"].items():
        for operation in operations.values():
            _declare_path_parameters(path, operation)
    return document


def _declare_path_parameters(path: str, operation: dict[str, Any]) -> None:
    """A catch-all whose handler ignores its `{rest}` has it undeclared; schemathesis needs it declared."""
    declared = {p["name"] for p in operation.get("parameters", []) if p.get("in") == "path"}
    for name in re.findall(r"{(\w+)}", path):
        if name not in declared:
            operation.setdefault("parameters", []).append(
                {"name": name, "in": "path", "required": True, "schema": {"type": "string"}})


schema = schemathesis.openapi.from_dict(_app_schema())
schema.config.generation.update(max_examples=EXAMPLES_PER_OPERATION, deterministic=True)



class ErrorWatch(io.StringIO):
    """The proxy's log stream, keeping only the lines about unhandled errors (and counting requests)."""

    def __init__(self) -> None:
        super().__init__()
        self.unhandled: list[str] = []
        self.requests = 0

    def write(self, text: str) -> int:
        self.requests += re.search(r'"event":\s*"request"', text) is not None
        if '"unhandled_error"' in text:
            self.unhandled.append(text)
        return len(text)


PROXY_LOG = ErrorWatch()


@pytest.fixture(scope="module")
def proxy_url() -> Iterator[str]:
    engine = real_engine()
    with ServerThread(AnsweringUpstream()) as upstream:
        settings = Settings(upstream=upstream.url + "/v1", roots=(), connect_timeout=2.0, read_timeout=10.0,
                            log_format="json")
        configure_logging(settings, stream=PROXY_LOG)
        with ServerThread(create_app(settings, engine)) as proxy:
            yield proxy.url
    engine.close()


@schema.parametrize()
@settings(max_examples=EXAMPLES_PER_OPERATION, derandomize=True, database=None, deadline=None,
          suppress_health_check=list(HealthCheck))
def test_no_operation_answers_500(case, proxy_url):
    response = case.call(base_url=proxy_url, timeout=30)
    assert response.status_code < 500, f"{case.method} {case.formatted_path}: {response.status_code} {response.text}"
    assert "Traceback" not in response.text
    assert PROXY_LOG.unhandled == []  # an error after the answer began shows in the log, not in the status
    if 400 <= response.status_code < 500 and case.method != "HEAD":
        answer = response.json()
        error = answer["error"]
        shaped = "type" in error and (answer.get("type") == "error" or "code" in error)  # Anthropic's, or OpenAI's
        assert isinstance(error["message"], str) and error["message"] and shaped
