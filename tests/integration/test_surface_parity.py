"""Every chat surface gets what Chat Completions gets: the same test, once per wire format.

The scan timeout and its fallback, context fork, the model override, the skills
index, per-upstream routing by model, `X-Skills-Mode: off`, and keys kept out
of the log and out of the upstream's hands, each through the real proxy in
front of upstreams that are real HTTP servers (surface_echo_upstream.py)
answering every surface in its own format. Each surface is described once
below: how a client writes a conversation in it, and how to read back what
the upstream received.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from proxy.engine.skill_engine import SkillEngine
from proxy.settings import Settings
from proxy.upstream.config import UpstreamConfig

from .conftest import TEST_API_KEY, TEST_UPSTREAM_KEY
from .engines import FALLBACK, SlowEngine
from .servers import ServerThread
from .surface_echo_upstream import SurfaceEchoUpstream

Turns = list[tuple[str, str]]  # (role, text)
SYSTEM = "You are terse."
HISTORY: Turns = [("user", "hello"), ("assistant", "hi")]


@dataclass(frozen=True)
class Surface:
    name: str
    path: str
    write: Callable[[str, Turns, str | None], dict[str, Any]]  # model, turns, system -> body
    read: Callable[[Any], tuple[str | None, Turns]]  # received body -> system, turns

    def post(self, proxy: Any, turns: Turns, system: str | None = None, model: str = "m",
             **headers: str) -> httpx.Response:
        return httpx.post(proxy.url + self.path, json=self.write(model, turns, system), headers=headers, timeout=10)


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content or [] if isinstance(part, dict))


def _chat_write(model: str, turns: Turns, system: str | None) -> dict[str, Any]:
    messages = [{"role": "system", "content": system}] if system else []
    return {"model": model, "messages": [*messages, *({"role": r, "content": t} for r, t in turns)]}


def _chat_read(body: Any) -> tuple[str | None, Turns]:
    messages = body["messages"]
    system = messages[0]["content"] if messages and messages[0]["role"] == "system" else None
    return system, [(m["role"], _text(m["content"])) for m in messages[1 if system is not None else 0:]]


def _responses_write(model: str, turns: Turns, system: str | None) -> dict[str, Any]:
    body: dict[str, Any] = {"model": model, "input": [{"type": "message", "role": r, "content": t} for r, t in turns]}
    return {**body, "instructions": system} if system else body


def _responses_read(body: Any) -> tuple[str | None, Turns]:
    items = [body["input"]] if isinstance(body["input"], str) else body["input"]
    turns = [("user", item) if isinstance(item, str) else (item["role"], _text(item["content"])) for item in items]
    return body.get("instructions"), turns


def _messages_write(model: str, turns: Turns, system: str | None) -> dict[str, Any]:
    body: dict[str, Any] = {"model": model, "max_tokens": 64, "messages": [{"role": r, "content": t} for r, t in turns]}
    return {**body, "system": system} if system else body


def _messages_read(body: Any) -> tuple[str | None, Turns]:
    system = body.get("system")
    return (_text(system) if system is not None else None), [(m["role"], _text(m["content"]))
                                                               for m in body["messages"]]


def _ollama_write(model: str, turns: Turns, system: str | None) -> dict[str, Any]:
    return {**_chat_write(model, turns, system), "stream": False}


SURFACES = [
    Surface("chat_completions", "/v1/chat/completions", _chat_write, _chat_read),
    Surface("responses", "/v1/responses", _responses_write, _responses_read),
    Surface("messages", "/v1/messages", _messages_write, _messages_read),
    Surface("ollama_chat", "/api/chat", _ollama_write, _chat_read),
]


def skill_text(name: str, description: str, extra: str = "") -> str:
    return f"---\nname: {name}\ndescription: {description}\n{extra}---\n# Steps\nDo the thing.\n"


@pytest.fixture(params=SURFACES, ids=[surface.name for surface in SURFACES])
def surface(request: pytest.FixtureRequest) -> Surface:
    return request.param


@pytest.fixture(scope="module")
def _echo_servers() -> Iterator[tuple[SurfaceEchoUpstream, SurfaceEchoUpstream]]:
    first, second = SurfaceEchoUpstream("first"), SurfaceEchoUpstream("second")
    with ServerThread(first) as one, ServerThread(second) as two:
        first.url, second.url = one.url, two.url
        yield first, second


@pytest.fixture
def echo(_echo_servers: tuple[SurfaceEchoUpstream, SurfaceEchoUpstream]) -> SurfaceEchoUpstream:
    for server in _echo_servers:
        server.clear()
    return _echo_servers[0]


@pytest.fixture
def second(_echo_servers: tuple[SurfaceEchoUpstream, SurfaceEchoUpstream], echo: SurfaceEchoUpstream
           ) -> SurfaceEchoUpstream:
    return _echo_servers[1]


@pytest.fixture
def skills_root(make_skill: Any, tmp_path: Any) -> Any:
    make_skill("summarise-isolated", skill_text(
        "summarise-isolated", "Summarise a pasted document in five bullet points.", "context: fork\nmodel: small\n"))
    make_skill("pdf-forms", skill_text("pdf-forms", "Fill in PDF forms and read PDF form fields."))
    return tmp_path / "skills"


@pytest.fixture
def start(start_proxy: Any, echo: SurfaceEchoUpstream, skills_root: Any) -> Iterator[Callable[..., Any]]:
    engines: list[Any] = []

    def run(engine: Any = None, **settings: Any) -> Any:
        if engine is None:
            engine = SkillEngine.from_settings(Settings(roots=(str(skills_root),), **settings), watch=False)
            engines.append(engine)
        return start_proxy(engine=engine, **{"upstream": echo.url + "/v1", **settings})

    yield run
    for engine in engines:
        engine.close()


def test_a_slow_preprocessor_falls_back_and_the_request_still_goes_out(start, echo, surface):
    proxy = start(engine=SlowEngine(1.0), scan_timeout=0.1)
    answer = surface.post(proxy, [("user", "fill the tax form")])
    assert answer.status_code == 200 and answer.headers["x-skills-route"] == "fallback"
    _, turns = surface.read(echo.last(surface.path))
    assert turns[-1][1] == FALLBACK + " fill the tax form"


def test_a_fork_skill_sends_only_its_packet(start, echo, surface, logs):
    proxy = start()
    answer = surface.post(proxy, [*HISTORY, ("user", "$summarise-isolated the long report text")], system=SYSTEM)
    assert answer.status_code == 200 and answer.headers["x-skills-route"] == "explicit:summarise-isolated"
    system, turns = surface.read(echo.last(surface.path))
    assert system is None and len(turns) == 1
    assert turns[0][0] == "user" and turns[0][1].startswith("<skill_invocation_packet")
    assert logs.wait_for("context_fork")["dropped_messages"] == 3


def test_an_allowed_model_override_replaces_the_model(start, echo, surface, logs):
    proxy = start(model_overrides={"small": "qwen2.5-0.5b-instruct"})
    surface.post(proxy, [("user", "$summarise-isolated the report")], model="client-model")
    assert echo.last(surface.path)["model"] == "qwen2.5-0.5b-instruct"
    assert logs.wait_for("request", path=surface.path)["upstream_model"] == "qwen2.5-0.5b-instruct"


def test_the_skills_index_goes_into_the_system_prompt_the_same_on_every_turn(start, echo, surface):
    proxy = start(skills_index="system")
    surface.post(proxy, [("user", "hello")], system=SYSTEM)
    first_system, _ = surface.read(echo.last(surface.path))
    assert first_system is not None and first_system.startswith(SYSTEM + "\n\n<available_skills count=\"2\"")
    surface.post(proxy, [*HISTORY, ("user", "and now?")], system=SYSTEM)
    assert surface.read(echo.last(surface.path))[0] == first_system


def test_each_request_goes_to_the_upstream_serving_its_model(start, echo, second, surface):
    proxy = start(upstreams=(UpstreamConfig("first", echo.url + "/v1", ("model-a",)),
                             UpstreamConfig("second", second.url + "/v1", ("model-b",))))
    assert surface.post(proxy, [("user", "hello")], model="model-b").status_code == 200
    assert surface.post(proxy, [("user", "hello")], model="model-a").status_code == 200
    assert [body["model"] for path, _, body in second.received if path == surface.path] == ["model-b"]
    assert [body["model"] for path, _, body in echo.received if path == surface.path] == ["model-a"]


def test_skills_off_by_header_sends_the_body_as_the_client_wrote_it(start, echo, surface):
    proxy = start()
    body = surface.write("m", [*HISTORY, ("user", "$pdf-forms fill it")], SYSTEM)
    answer = httpx.post(proxy.url + surface.path, content=json.dumps(body), headers={"x-skills-mode": "off"})
    assert answer.status_code == 200 and answer.headers["x-skills-route"] == "off"
    assert echo.last(surface.path) == body


def test_the_proxys_key_stays_with_the_proxy_and_the_upstream_gets_its_own(start, echo, surface, logs):
    proxy = start(api_keys=(TEST_API_KEY,), upstream_api_key=TEST_UPSTREAM_KEY)
    refused = surface.post(proxy, [("user", "hello")])
    assert refused.status_code == 401
    answer = surface.post(proxy, [("user", "hello")], authorization=f"Bearer {TEST_API_KEY}")
    assert answer.status_code == 200
    _, headers, _ = echo.received[-1]
    assert headers["authorization"] == f"Bearer {TEST_UPSTREAM_KEY}"
    assert TEST_API_KEY not in json.dumps(headers)
    assert logs.wait_for("request", path=surface.path, status=200)["surface"] == surface.name
