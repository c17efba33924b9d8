"""Zero escapes from a skill folder, through every surface that opens skill files.

The attack paths and the planted world are tests/attack_paths.py: skill `pdf`
in a real skill root, a marker file holding SECRET in each of the six folders
above it, in a sibling `pdf-private`, in `outside/` and in /tmp, and symlinks
out of `pdf` of every kind. Each attack goes through:

(a) the proxy's own tool loop: a scripted model (scripted_model.py) calls
    `read_skill_file` and `list_skill_files` with it; the tool results are what
    the upstream received in the next round;
(b) `SkillTools.call` on the real engine, as the tool loop calls it;
(c) HTTP: `GET /v1/skills/pdf/files/{path}` and `GET /v1/skills/{name}`, once
    percent-encoded so the proxy decodes exactly the attack, once raw on the
    request line (dots, slashes, backslashes and `%` escapes as typed).

Every attempt must end in a clear refusal (an `error: ...` tool result that
says why; a 4xx OpenAI-shaped body over HTTP, never a 500), the marker must
appear in no answer, tool result, log event or error message, and nothing may
be forwarded upstream. Run with -s to see the summary line.
"""

from __future__ import annotations

import http.client
import json
from collections import Counter
from collections.abc import Iterator
from urllib.parse import unquote

import httpx
import pytest

from proxy.core.catalog.paths import PathRefused, is_inside, real_folder, resolve_in_folder
from proxy.core.tools.skill_tools import LIST_SKILL_FILES, READ_SKILL_FILE
from tests.attack_paths import SECRET, SKILL, Attack, World, plant

from .engines import real_engine

TOOLS = (READ_SKILL_FILE, LIST_SKILL_FILES)
UNRESERVED = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_~")
RAW_KEPT = frozenset(range(0x21, 0x7F)) - frozenset(b"?#")
RAW_SPECIALS = [
    "/v1/../secret.txt", "/v1/%2e%2e/secret.txt", "/v1/skills/../../secret.txt", "/v1/skills/pdf/../pdf-private",
    "/v1/skills/pdf/files/../../secret.txt", "/v1/skills/pdf/files/%2e%2e/%2e%2e/secret.txt",
    "/v1/skills/pdf/files/..%2f..%2fsecret.txt", "/v1/skills/pdf/files//etc/passwd", "/../../secret.txt",
    "/v1/skills/pdf/files/scripts/../../../secret.txt", "/v1/skills/pdf-private/files/secret.txt",
    "/v1/skills/pdf/files/..\\..\\secret.txt", "/v1/skills/pdf%2f..%2fpdf-private/files/secret.txt",
    "/v1/models/../../secret.txt", "//v1/skills/pdf/files/../x", "/v1/skills/pdf/files/%c0%ae%c0%ae/secret.txt",
]


class Tally:
    """Attempts per surface and every escape seen, for the summary line."""

    def __init__(self) -> None:
        self.attempts: Counter[str] = Counter()
        self.parser_rejected = 0
        self.decoded_inside = 0
        self.escapes: list[str] = []
        self.attacks = 0

    def check(self, surface: str, what: str, text: str, contained: bool) -> None:
        """Count one attempt; an escape is the marker in `text`, or an outcome other than the expected one."""
        self.attempts[surface] += 1
        if SECRET in text or not contained:
            self.escapes.append(f"{surface}: {what[:80]!r} -> {text[:160]!r}")

    def escapes_in(self, surface: str) -> list[str]:
        return [escape for escape in self.escapes if escape.startswith(f"{surface}: ")]

    def line(self) -> str:
        per_surface = ", ".join(f"{name} {count}" for name, count in sorted(self.attempts.items()))
        return (f"attack paths: {self.attacks} x 3 surfaces ({sum(self.attempts.values())} attempts: "
                f"{per_surface}), escapes: {len(self.escapes)}")


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    planted = plant(tmp_path_factory.mktemp("attack"))
    yield planted
    planted.remove_tmp_marker()


@pytest.fixture(scope="module")
def engine(world: World):
    engine = real_engine(roots=(str(world.root),))
    yield engine
    engine.close()


@pytest.fixture(scope="module")
def tally(world: World) -> Iterator[Tally]:
    counts = Tally()
    counts.attacks = len(world.all_attacks())
    yield counts
    print(f"\n{counts.line()}; raw paths answered by the HTTP parser: {counts.parser_rejected}, "
          f"decoded to a file inside the skill and served: {counts.decoded_inside}")


@pytest.fixture
def attacked(start_proxy, engine):
    return start_proxy(engine=engine)


def expected_code(attack: Attack) -> str:
    return "path_refused" if attack.refused else "not_found"


# ---- (a) the proxy's tool loop -----------------------------------------------------------

def test_the_tool_loop_refuses_every_attack_path(attacked, upstream, logs, world, tally):
    attacks = world.all_attacks()
    calls = [{"name": tool, "arguments": {"skill": SKILL, "path": a.path}} for a in attacks for tool in TOOLS]
    controls = [{"name": READ_SKILL_FILE, "arguments": {"skill": SKILL, "path": "references/guide.md"}},
                {"name": LIST_SKILL_FILES, "arguments": {"skill": SKILL}}]
    script = json.dumps([{"calls": calls + controls}, {"answer": "ok"}])
    response = httpx.post(attacked.base_url + "/chat/completions", headers={"x-fake-script": script}, timeout=60,
                          json={"model": "scripted", "messages": [{"role": "user", "content": "fill the pdf form"}]})
    assert response.status_code == 200, response.text[:500]
    assert response.json()["choices"][0]["message"]["content"] == "ok" and SECRET not in response.text
    results = [m["content"] for m in upstream.received[1].json["messages"] if m["role"] == "tool"]
    assert len(results) == len(calls) + 2
    events = logs.events("skill_tool_call")
    assert len(events) == len(calls) + 2
    for index, (call, result, event) in enumerate(zip(calls, results, events)):
        attack = attacks[index // 2]
        refused = result.startswith("error: ") and event["ok"] is False and event["error"] == expected_code(attack)
        tally.check("tool loop", f"{call['name']} {attack.path}", result + json.dumps(event), refused)
        if attack.refused:
            assert result.startswith("error: path refused: ") and len(result) > 30, (attack, result)
        else:
            assert "has no file" in result, (attack, result)
    guide, listing = results[-2:]
    assert guide == "guide" and "references/guide.md" in listing and SECRET not in listing
    assert tally.escapes_in("tool loop") == []
    assert SECRET not in logs.text()


# ---- (b) SkillTools on the real engine -----------------------------------------------------

def test_skill_tools_refuse_every_attack_path(engine, world, tally):
    tools = engine.skill_tools()
    for attack in world.all_attacks():
        for tool in TOOLS:
            result = tools.call(tool, json.dumps({"skill": SKILL, "path": attack.path}))
            refused = (not result.ok and result.content.startswith("error: ")
                       and result.event["error"] == expected_code(attack))
            tally.check("SkillTools", f"{tool} {attack.path}", result.content + json.dumps(result.event), refused)
    assert tally.escapes_in("SkillTools") == []
    listing = tools.call(LIST_SKILL_FILES, {"skill": SKILL})
    assert listing.ok and SECRET not in listing.content
    paths = [f["path"] for f in json.loads(listing.content)["files"]]
    assert "references/guide.md" in paths and not any(p.endswith("secret.txt") for p in paths)
    assert tools.call(READ_SKILL_FILE, {"skill": "linked"}).ok, "a symlinked skill folder is not an escape"


# ---- (c) HTTP ------------------------------------------------------------------------------

def encoded(text: str) -> str:
    """Every byte but the unreserved ones percent-encoded, dots too: the proxy decodes exactly `text`."""
    return "".join(chr(b) if b in UNRESERVED else f"%{b:02X}" for b in text.encode("utf-8", "surrogatepass"))


def raw(text: str) -> str:
    """`text` as typed on the request line: only what would break the line is encoded."""
    return "".join(chr(b) if b in RAW_KEPT else f"%{b:02X}" for b in text.encode("utf-8", "surrogatepass"))


def decodes_to_itself(text: str) -> bool:
    return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace") == text


def served_from_inside(world: World, target: str) -> bool:
    """True when the raw target, decoded as the server decodes it, names a file inside the skill folder."""
    prefix = f"/v1/skills/{SKILL}/files/"
    if not target.startswith(prefix):
        return False
    try:
        resolved = resolve_in_folder(world.pdf, unquote(target.removeprefix(prefix), errors="replace"))
    except PathRefused:
        return False
    return resolved.is_file() and is_inside(resolved, real_folder(world.pdf))


def raw_get(port: int, target: str) -> tuple[int, str, str]:
    """A GET with `target` on the request line exactly as given (http.client does not normalise)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.putrequest("GET", target, skip_accept_encoding=True)
        connection.endheaders()
        response = connection.getresponse()
        return response.status, response.getheader("content-type", ""), response.read().decode("utf-8", "replace")
    finally:
        connection.close()


def assert_openai_error(status: int, content_type: str, body: str, what: str) -> None:
    assert 400 <= status < 500, (what, status, body[:300])
    assert content_type.startswith("application/json"), (what, content_type, body[:300])
    error = json.loads(body)["error"]
    assert error["message"] and error["type"] and error["code"], (what, body[:300])


def test_http_file_and_skill_routes_refuse_every_attack_path(attacked, upstream, logs, world, tally):
    client = httpx.Client(base_url=attacked.base_url, timeout=30)
    assert client.get(f"/skills/{SKILL}/files/references/guide.md").text == "guide", "the route works at all"
    assert client.get(f"/skills/{SKILL}").json()["name"] == SKILL
    for attack in world.all_attacks():
        response = client.get(f"/skills/{SKILL}/files/{encoded(attack.path)}")
        what = f"GET files {attack.path}"
        assert_openai_error(response.status_code, response.headers["content-type"], response.text, what)
        if decodes_to_itself(attack.path):
            assert response.status_code == (400 if attack.refused else 404), (what, response.text[:300])
        tally.check("HTTP", what, response.text, response.status_code in (400, 404))
        response = client.get(f"/skills/{encoded(attack.path)}")
        assert_openai_error(response.status_code, response.headers["content-type"], response.text, attack.path)
        tally.check("HTTP", f"GET skill {attack.path}", response.text, response.status_code in (400, 404))
    client.close()
    assert upstream.received == [], "no attack was forwarded upstream"
    assert tally.escapes_in("HTTP") == []
    assert SECRET not in logs.text() and logs.events("unhandled_error") == []


def test_raw_request_lines_with_dot_segments_are_refused(attacked, upstream, logs, world, tally):
    port = int(attacked.url.rsplit(":", 1)[1])
    targets = [f"/v1/skills/{SKILL}/files/{raw(a.path)}" for a in world.all_attacks()]
    targets += [f"/v1/skills/{raw(a.path)}" for a in world.all_attacks()] + RAW_SPECIALS
    for target in targets:
        status, content_type, body = raw_get(port, target)
        if status == 200 and served_from_inside(world, target):
            tally.decoded_inside += 1  # such as references%2fguide.md: a file of the skill itself
            tally.check("HTTP raw", target, body, True)
            continue
        if not content_type.startswith("application/json"):
            tally.parser_rejected += 1  # refused by the HTTP parser before the app ran
            assert status == 400, (target, status, body[:200])
        else:
            assert_openai_error(status, content_type, body, target)
        tally.check("HTTP raw", target, body, 400 <= status < 500)
    assert upstream.received == [], "no raw path reached the upstream"
    assert tally.escapes_in("HTTP raw") == []
    assert SECRET not in logs.text() and logs.events("unhandled_error") == []
    for special in ("/v1/../secret.txt", "/v1/%2e%2e/secret.txt", "/v1/models/../../secret.txt"):
        status, _, body = raw_get(port, special)
        assert status == 400 and json.loads(body)["error"]["code"] == "path_refused", "never forwarded as /secret.txt"


def test_the_rest_of_the_skills_prefix_is_answered_by_the_proxy_not_forwarded(attacked, upstream):
    client = httpx.Client(base_url=attacked.base_url, timeout=30)
    for method, path in [("GET", "/skills/pdf/other"), ("POST", "/skills/pdf"), ("DELETE", "/skills"),
                         ("GET", "/skills/pdf/files"), ("PUT", "/skills/pdf/files/SKILL.md"), ("GET", "/skills/")]:
        response = client.request(method, path)
        assert response.status_code == 404, (method, path, response.text)
        assert "no such skills endpoint" in response.json()["error"]["message"]
    client.close()
    assert upstream.received == []

