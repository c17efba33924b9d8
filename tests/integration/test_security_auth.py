"""Auth on every route, keys compared in constant time, and no key in any answer, log line or view.

tests/integration/test_auth_and_logs.py covers the Authorization rule upstream,
the redactor and the common 401s; this file covers the rest:

- every route the app has (read from the app at test time, so a new route
  cannot be forgotten), each of its methods, and unknown paths: 401,
  OpenAI-shaped, for a missing key and for each wrong credential; `/healthz`
  (exactly that path) stays open, and so do the inspect page's own files
  (`PAGE_PATHS`: a person needs the page to type the key in), which hold no data;
- which credentials count. Decisions: only `Authorization: Bearer <key>`
  and `x-api-key: <key>` (as Anthropic's clients send it) authenticate; the
  scheme is case-insensitive (RFC 9110) and may be followed
  by more than one space; whitespace around the key is not part of a header
  value (RFC 9110 §5.5), so `Bearer <key> ` is `Bearer <key>`. A key in the
  query (`?api_key=`), in `api-key` or `Proxy-Authorization`, a wrong `x-api-key`,
  a prefix or an extension of a key, another case, an empty key, and a second
  Authorization header after a wrong first one are all refused. A configured key
  that is empty or blank can never be used;
- constant time: every configured key is compared, with `hmac.compare_digest`,
  as SHA-256 digests of equal length, whichever key matches;
- no key in an error body, a log line (also checked for every integration test by
  the `logs` fixture in conftest.py), the startup banner, `repr(settings)`, the
  route dry run or `/readyz`.
"""

from __future__ import annotations

import asyncio
import http.client
import io
import json
import re

import httpx
import pytest
from fastapi.routing import APIRoute
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect as websocket_connect

import proxy.middleware
from proxy.app import create_app
from proxy.cli.serve_cmd import print_banner
from proxy.inspect.routes import PAGE_PATHS
from proxy.middleware import RequestContext

from .conftest import KNOWN_SECRETS, TEST_API_KEY, TEST_CLIENT_KEY, TEST_UPSTREAM_KEY, secrets_in
from .engines import real_engine

SECOND_KEY = "second-proxy-key-0f3b7a9e2c"
FILLERS = {"name": "sql-query-tuning", "path": "models", "rest": "anything", "request_id": "anything"}
EXTRA_PATHS = ["/", "/nope", "/v2/models", "/v1", "/v1/", "/healthz/", "/HEALTHZ", "//healthz", "/healthz/x",
               "/readyz", "/docs", "/openapi.json", "/v1/skills/sql-query-tuning/files/SKILL.md"]
WRONG = [
    None, "", "Bearer", "Bearer ", f"Bearer {TEST_API_KEY[:-1]}", f"Bearer {TEST_API_KEY}x",
    f"Bearer {TEST_API_KEY[1:]}", f"Bearer {TEST_API_KEY.upper()}", f"Bearer {TEST_API_KEY} {TEST_API_KEY}",
    f"Bearer {TEST_API_KEY},{TEST_API_KEY}", f"Bearer{TEST_API_KEY}", f"Bearer\t{TEST_API_KEY}", TEST_API_KEY,
    f"Basic {TEST_API_KEY}", f"Token {TEST_API_KEY}", f"Bearer {TEST_UPSTREAM_KEY}", f"Bearer {TEST_CLIENT_KEY}",
    f"Bearer {TEST_API_KEY[:8]}", f"Bearer {SECOND_KEY[:-1]}", "Bearer null", "Bearer undefined",
]
RIGHT = [f"Bearer {TEST_API_KEY}", f"bearer {TEST_API_KEY}", f"BEARER {TEST_API_KEY}", f"BeArEr {TEST_API_KEY}",
         f"Bearer  {TEST_API_KEY}", f"Bearer {TEST_API_KEY} ", f"Bearer {SECOND_KEY}"]
OTHER_PLACES = [({"x-api-key": f"Bearer {TEST_API_KEY}"}, ""), ({"x-api-key": TEST_API_KEY[:-1]}, ""),
                ({"x-api-key": ""}, ""), ({"api-key": TEST_API_KEY}, ""),
                ({"proxy-authorization": f"Bearer {TEST_API_KEY}"}, ""), ({}, f"?api_key={TEST_API_KEY}"),
                ({}, f"?key={TEST_API_KEY}"), ({}, f"?access_token={TEST_API_KEY}")]


@pytest.fixture
def guarded(start_proxy):
    engine = real_engine()
    yield start_proxy(engine=engine, api_keys=(TEST_API_KEY, SECOND_KEY), upstream_api_key=TEST_UPSTREAM_KEY)
    engine.close()


def port_of(running) -> int:
    return int(running.url.rsplit(":", 1)[1])


def send(port: int, method: str, target: str, headers: list[tuple[str, str | bytes]] = ()) -> tuple[int, dict, bytes]:
    """One request with headers sent exactly as given (repeated, with trailing spaces, raw bytes)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.putrequest(method, target, skip_accept_encoding=True)
        for name, value in headers:
            connection.putheader(name, value)
        connection.putheader("content-length", "0")
        connection.endheaders()
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def route_targets(app) -> list[tuple[str, str]]:
    """(method, path) for every method of every route the app has, path parameters filled in."""
    targets = []
    for route in app.routes:
        path = re.sub(r"\{(\w+)(?::\w+)?\}", lambda m: FILLERS[m.group(1)], route.path)
        targets += [(method, path) for method in sorted(route.methods)]
    return targets


def assert_unauthorized(status: int, headers: dict, body: bytes, method: str, what: str) -> None:
    assert status == 401, (what, status, body[:300])
    assert headers.get("www-authenticate") == "Bearer" and headers.get("x-request-id"), what
    if method != "HEAD":
        answer = json.loads(body)
        error = answer["error"]
        if answer.get("type") == "error":  # Anthropic's shape, on /v1/messages
            assert error["type"] == "authentication_error" and "x-api-key" in error["message"], what
        else:
            assert error["code"] == "invalid_api_key" and error["type"] and "Authorization: Bearer" in error["message"]
    assert not secrets_in(body.decode("utf-8", "replace")) and SECOND_KEY not in body.decode(), what


def test_every_route_and_method_needs_the_key_except_healthz(guarded, upstream):
    app = create_app(guarded.settings, guarded.engine)
    assert all(isinstance(route, APIRoute) for route in app.routes), "no websocket or mounted route bypasses auth"
    targets = [t for t in route_targets(app) if t[1] != "/healthz" and t[1] not in PAGE_PATHS]
    targets += [(method, path) for path in EXTRA_PATHS for method in ("GET", "POST")]
    assert {p for _, p in targets} >= {"/v1/chat/completions", "/v1/models", "/v1/skills", "/v1/skills/route",
                                       "/v1/skills/sql-query-tuning", "/readyz", "/models", "/v1/skills/anything"}
    port, tried = port_of(guarded), 0
    for method, path in targets:
        for authorization in WRONG:
            headers = [] if authorization is None else [("authorization", authorization)]
            assert_unauthorized(*send(port, method, path, headers), method, f"{method} {path} {authorization!r}")
            tried += 1
    assert upstream.received == [], "nothing reaches the upstream without the key"
    for method, path in targets:
        status, _, body = send(port, method, path, [("authorization", f"Bearer {TEST_API_KEY}")])
        assert status != 401, (method, path, body[:200])
    print(f"\nauth: {len(targets)} method+path pairs x {len(WRONG)} wrong credentials = {tried} requests, all 401")


def test_the_open_inspect_page_paths_serve_only_the_page_files(guarded, upstream):
    app = create_app(guarded.settings, guarded.engine)
    open_targets = [t for t in route_targets(app) if t[1] in PAGE_PATHS]
    assert {p for _, p in open_targets} == {"/_skillproxy", "/_skillproxy/"}
    port = port_of(guarded)
    for path in sorted(PAGE_PATHS):
        for method in ("GET", "POST", "DELETE"):
            status, _headers, body = send(port, method, path, [])
            if method == "GET":
                assert status in (200, 308) and b"sql-query-tuning" not in body, path
            else:
                assert status in (404, 405) and b"sql-query-tuning" not in body, (method, path, status)
    assert upstream.received == []


def test_healthz_is_open_with_any_credential(guarded):
    port = port_of(guarded)
    for authorization in WRONG:
        headers = [] if authorization is None else [("authorization", authorization)]
        status, _, body = send(port, "GET", "/healthz", headers)
        assert status == 200 and json.loads(body) == {"status": "ok"}


def test_which_credentials_count(guarded, upstream):
    port = port_of(guarded)
    for authorization in RIGHT:
        status, _, body = send(port, "GET", "/v1/models", [("authorization", authorization)])
        assert status == 200, (authorization, body[:200])
    assert [r.header("authorization") for r in upstream.received] == [f"Bearer {TEST_UPSTREAM_KEY}"] * len(RIGHT)
    for key in (TEST_API_KEY, f" {SECOND_KEY} "):
        status, _, body = send(port, "GET", "/v1/models", [("x-api-key", key)])
        assert status == 200, (key, body[:200])
    assert upstream.received[-1].header("x-api-key") == TEST_UPSTREAM_KEY, "the upstream gets its own key"
    for headers, query in OTHER_PLACES:
        status, response_headers, body = send(port, "GET", "/v1/models" + query, list(headers.items()))
        assert_unauthorized(status, response_headers, body, "GET", f"{headers} {query}")
    repeated = [("authorization", "Bearer wrong-key"), ("authorization", f"Bearer {TEST_API_KEY}")]
    assert_unauthorized(*send(port, "GET", "/v1/models", repeated), "GET", "a wrong first Authorization header")
    assert len(upstream.received) == len(RIGHT) + 2


def test_a_client_key_is_not_sent_upstream_in_another_header_either(guarded, upstream):
    httpx.get(guarded.base_url + "/models", headers={"authorization": f"Bearer {TEST_API_KEY}"})
    sent = dict(upstream.last().headers)
    assert sent["authorization"] == f"Bearer {TEST_UPSTREAM_KEY}"
    assert TEST_API_KEY not in json.dumps(sent) and SECOND_KEY not in json.dumps(sent)


@pytest.mark.parametrize("configured", [("",), ("", "   "), ("\t",)], ids=["empty", "empty-and-blank", "tab"])
def test_an_empty_or_blank_configured_key_can_never_be_used(start_proxy, upstream, configured):
    proxy_ = start_proxy(api_keys=configured)
    port = port_of(proxy_)
    for headers in ([], [("authorization", "Bearer")], [("authorization", "Bearer ")],
                    [("authorization", "Bearer \t ")], [("authorization", "")]):
        assert_unauthorized(*send(port, "GET", "/v1/models", headers), "GET", repr(headers))
    assert upstream.received == []


def test_configured_keys_are_trimmed_and_compared_as_utf8_bytes(start_proxy, upstream):
    unicode_key = "clé-ünïcode-kèy-7"
    proxy_ = start_proxy(api_keys=(f"  {TEST_API_KEY}\n", unicode_key))
    port = port_of(proxy_)
    assert send(port, "GET", "/v1/models", [("authorization", f"Bearer {TEST_API_KEY}")])[0] == 200
    assert send(port, "GET", "/v1/models", [("authorization", b"Bearer " + unicode_key.encode())])[0] == 200
    wrong_encoding = b"Bearer " + unicode_key.encode("latin-1")
    assert send(port, "GET", "/v1/models", [("authorization", wrong_encoding)])[0] == 401


def test_a_websocket_handshake_without_a_key_is_refused(guarded):
    with pytest.raises(InvalidStatus) as refused:
        websocket_connect(f"ws://127.0.0.1:{port_of(guarded)}/v1/chat/completions", open_timeout=10)
    assert refused.value.response.status_code == 403


# ---- constant time -----------------------------------------------------------------------

async def answer_ok(scope, receive, send_) -> None:
    await send_({"type": "http.response.start", "status": 200, "headers": []})
    await send_({"type": "http.response.body", "body": b""})


def authorize(context: RequestContext, authorization: str | None) -> int:
    """The status the middleware answers a request with this Authorization header with."""
    headers = [] if authorization is None else [(b"authorization", authorization.encode())]
    scope = {"type": "http", "method": "GET", "path": "/v1/models", "headers": headers}
    sent: list[dict] = []

    async def receive() -> dict:
        return {"type": "http.request", "body": b""}

    async def record(message: dict) -> None:
        sent.append(message)

    asyncio.run(context(scope, receive, record))
    return sent[0]["status"]


def test_every_key_is_compared_with_compare_digest_whichever_matches(monkeypatch):
    keys = (TEST_API_KEY, SECOND_KEY, "third-key-that-is-much-longer-than-the-others-" * 3)
    compared: list[tuple[int, int]] = []
    real_compare = proxy.middleware.hmac.compare_digest

    def counting(a, b):
        compared.append((len(a), len(b)))
        return real_compare(a, b)

    monkeypatch.setattr(proxy.middleware.hmac, "compare_digest", counting)
    context = RequestContext(answer_ok, api_keys=keys)
    cases = [(f"Bearer {keys[0]}", 200), (f"Bearer {keys[2]}", 200), (f"Bearer {keys[1]}", 200),
             ("Bearer wrong", 401), (f"Basic {keys[0]}", 401), (None, 401), ("Bearer ", 401)]
    for authorization, status in cases:
        compared.clear()
        assert authorize(context, authorization) == status, authorization
        assert len(compared) == len(keys), f"{authorization!r}: {len(compared)} comparisons, not one per key"
        assert set(compared) == {(32, 32)}, "digests of equal length: the time says nothing about a key's length"


# ---- no key in any answer, log line or view ------------------------------------------------

def test_no_key_in_error_bodies_logs_or_views(guarded, upstream, logs):
    client = httpx.Client(base_url=guarded.base_url, timeout=30)
    good = {"authorization": f"Bearer {TEST_API_KEY}"}
    answers = [
        client.post("/chat/completions", json={"model": "error-openai", "messages": [{"role": "user", "content": "x"}]},
                    headers=good),
        client.post("/chat/completions", content=b"{not json", headers=good),
        client.get("/skills/nope", headers=good),
        client.get("/skills/sql-query-tuning/files/%2e%2e/x", headers=good),
        client.get("/models", headers={"authorization": f"Bearer {TEST_CLIENT_KEY}"}),
        client.get(f"/models?api_key={TEST_API_KEY}"),
        client.post("/skills/route", headers=good, json={"messages": [
            {"role": "user", "content": f"my key is {TEST_CLIENT_KEY}, Authorization: Bearer {TEST_CLIENT_KEY}"}]}),
        client.get(guarded.url + "/readyz", headers=good),
    ]
    client.close()
    assert [a.status_code for a in answers] == [404, 400, 404, 400, 401, 401, 200, 200]
    for answer in answers[:6] + answers[7:]:
        assert not secrets_in(answer.text) and SECOND_KEY not in answer.text, answer.text[:300]
    assert TEST_API_KEY not in answers[6].text and TEST_UPSTREAM_KEY not in answers[6].text
    logs.wait_for("request", path="/readyz")
    assert len(logs.events("request")) >= len(answers)
    assert not secrets_in(logs.text()) and SECOND_KEY not in logs.text()
    banner = io.StringIO()
    print_banner(guarded.settings, guarded.engine.startup_summary(), banner)
    for view in (banner.getvalue(), repr(guarded.settings), str(guarded.settings)):
        assert not any(secret in view for secret in (*KNOWN_SECRETS, SECOND_KEY)), view


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
def test_an_upstream_that_echoes_its_key_in_an_error_has_it_redacted(guarded, upstream, logs, stream):
    answer = httpx.post(guarded.base_url + "/chat/completions", headers={"authorization": f"Bearer {TEST_API_KEY}"},
                        json={"model": "fault-401-echo-key", "stream": stream,
                              "messages": [{"role": "user", "content": "hi"}]}, timeout=30)
    assert upstream.last().header("authorization") == f"Bearer {TEST_UPSTREAM_KEY}"  # the echo was real
    assert answer.status_code == 401
    assert answer.json()["error"]["message"] == "Incorrect API key provided: [redacted]"
    assert answer.json()["error"]["code"] == "invalid_api_key"
    logs.wait_for("request", status=401)
    assert not secrets_in(answer.text) and not secrets_in(logs.text())
