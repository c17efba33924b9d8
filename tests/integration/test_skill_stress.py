"""Skills that are bad, huge, many, or changing underneath a real proxy.

Each test runs the real skill engine behind the real proxy (uvicorn on
127.0.0.1) in front of the fake upstream, and asserts on what the client got
and what the upstream received. Figures are printed (run with -s) to compare
between runs; nothing asserts on time.
"""

from __future__ import annotations

import os
import random
import shutil
import statistics
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from proxy.engine.live_catalog import LiveCatalog
from proxy.engine.skill_engine import SkillEngine, preprocess_config
from proxy.settings import Settings
from proxy.state.memory_store import MemoryTurnStore
from tests.conftest import SHARED, corpus_roots

from .conftest import chat_body

SKILL = "---\nname: {name}\ndescription: {desc}\n---\n# {name}\n\n## Steps\n{body}\n"


def rss_mb() -> float:
    """This process's resident memory now (not the peak), from /proc."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS in /proc/self/status")


def engine_over(roots: list[str], watch: bool = False, **overrides: Any) -> SkillEngine:
    return SkillEngine.from_settings(Settings(roots=tuple(roots), **overrides), watch=watch)


def chat(proxy: Any, text: str, client: httpx.Client | None = None) -> httpx.Response:
    client = client or httpx.Client(timeout=30)
    return client.post(proxy.base_url + "/chat/completions", json=chat_body(text=text))


def sent_text(upstream: Any) -> str:
    return upstream.last().json["messages"][-1]["content"]


# ---- the malformed corpus -------------------------------------------------------

@pytest.mark.shared_corpus
def test_proxy_serves_with_the_malformed_corpus_among_its_roots(start_proxy, upstream):
    malformed = str(SHARED / "corpus" / "malformed")
    engine = engine_over([*corpus_roots(), malformed])
    try:
        proxy = start_proxy(engine=engine)
        catalog = engine.live.current
        print(f"corpus + malformed: {len(catalog.skills)} skills, {len(catalog.shadowed)} shadowed, "
              f"{len(catalog.skipped)} skipped, {len(catalog.findings())} findings")
        assert catalog.skipped == () and len(catalog.all_skills()) == 397 + 13
        client = openai.OpenAI(base_url=proxy.base_url, api_key="sk-test", max_retries=0)
        raw = client.chat.completions.with_raw_response.create(
            model="json", messages=[{"role": "user", "content": "$instashare share this screenshot with the team"}])
        assert raw.headers["x-skills-route"] == "explicit:instashare"  # the UTF-8 BOM skill, only in malformed/
        assert raw.parse().choices[0].message.content
        assert "<n>instashare</n>" in sent_text(upstream) and "<expanded_skill_instructions" in sent_text(upstream)
        routed = chat(proxy, "my neo4j cypher query needs the spring data repository annotations")
        assert routed.status_code == 200 and routed.headers["x-skills-route"] not in ("fallback", "")
        detail = httpx.get(proxy.base_url + "/skills/instashare", timeout=10).json()
        assert any(": utf8-bom: " in line for line in detail["warnings"]) and detail["body"]
    finally:
        engine.close()


# ---- 10 MB skill files -------------------------------------------------------------

def write_ten_mb_skills(root: Path) -> None:
    line = "Check each section of the report against the checklist and note what fails.\n"
    files = {
        "huge-body": SKILL.format(name="huge-body", desc="Audit long quarterly reports section by section",
                                  body=line * (10 * 1024 * 1024 // len(line))),
        "huge-frontmatter": "---\nname: huge-frontmatter\ndescription: A skill whose frontmatter is 10 MB\n"
                            + "".join(f"key{i}: value\n" for i in range(600_000)) + "---\n# Body\n",
        "huge-line": "# Huge line\n\n" + "word " * (2 * 1024 * 1024),
        "small": SKILL.format(name="small", desc="Resize holiday photos for the family album", body="Resize."),
    }
    for folder, text in files.items():
        (root / folder).mkdir(parents=True)
        (root / folder / "SKILL.md").write_text(text)


def test_ten_megabyte_skills_load_bounded_and_packets_stay_capped(start_proxy, upstream, tmp_path):
    write_ten_mb_skills(tmp_path / "skills")
    before, started = rss_mb(), time.perf_counter()
    engine = engine_over([str(tmp_path / "skills")])
    elapsed, grown = time.perf_counter() - started, rss_mb() - before
    try:
        catalog = engine.live.current
        print(f"3 x 10 MB SKILL.md + 1 small: catalog and router in {elapsed:.2f} s, RSS +{grown:.1f} MB")
        assert sorted(catalog.names) == ["huge-body", "huge-frontmatter", "huge-line", "small"]
        assert all("file-truncated" in {f.rule for f in s.warnings} for s in catalog.skills if s.name != "small")
        assert grown < 100  # the files are 30 MB: they were never read whole
        proxy = start_proxy(engine=engine)
        answer = chat(proxy, "$huge-body audit the Q3 report")
        assert answer.status_code == 200 and answer.headers["x-skills-route"] == "explicit:huge-body"
        packet = sent_text(upstream)
        print(f"packet for the 10 MB skill: {len(packet.encode())} bytes")
        assert "bytes omitted" in packet and len(packet.encode()) < engine.config.max_file_bytes + 8_000
        routed = chat(proxy, "resize the holiday photos for our family album")
        assert routed.status_code == 200 and routed.headers["x-skills-route"].startswith("small=")
    finally:
        engine.close()


# ---- 5,000 skills ------------------------------------------------------------------

TOPICS = ("pdf docx spreadsheet chart database query index postgres kubernetes docker terraform lambda python rust "
          "typescript react css seo email campaign pricing invoice payment oauth security audit fuzzing debug memory "
          "latency cache kafka spark pandas plot statistics genome protein molecule quantum simulation shader audio "
          "video image backup migration schema graphql webhook slack notion calendar translation accessibility").split()
SYLLABLES = "ka zu mi ro te vo pa li sen dor qua fen gri mox tul bex".split()


def made_up_word(number: int) -> str:
    """A word no other skill uses: four syllables spelling `number` in base 16."""
    return "".join(SYLLABLES[(number >> shift) & 15] for shift in (0, 4, 8, 12))


def write_many_skills(root: Path, count: int) -> list[tuple[str, str]]:
    """`count` skills; returns (name, prompt) pairs, one prompt aimed at each skill."""
    rng = random.Random(9)
    aimed = []
    for i in range(count):
        a, b, c, d = rng.sample(TOPICS, 4)
        name, word = f"{a}-{b}-{i:04d}", made_up_word(i)
        description = f"Use for {word} work with {a}, {b} and {c}; covers {d} too."
        body = f"When the user mentions {word}, {a} or {b}.\n\n" + " ".join(rng.choices(TOPICS, k=80))
        (root / name).mkdir(parents=True)
        (root / name / "SKILL.md").write_text(SKILL.format(name=name, desc=description, body=body))
        aimed.append((name, f"I need help with the {word} job, {a} and {b} with some {c}"))
    return aimed


def test_five_thousand_skills_load_route_and_serve(start_proxy, upstream, tmp_path):
    aimed = write_many_skills(tmp_path / "skills", 5000)
    settings = Settings(roots=(str(tmp_path / "skills"),))
    before, started = rss_mb(), time.perf_counter()
    live = LiveCatalog(settings.roots, settings.max_skill_file_bytes)
    loaded, after_load = time.perf_counter() - started, rss_mb()
    engine = SkillEngine(live, preprocess_config(settings), MemoryTurnStore(100, 60), settings.scan_timeout,
                         watch=False)
    routed_in, after_router = time.perf_counter() - started - loaded, rss_mb()
    try:
        assert len(live.current.skills) == 5000 and live.current.findings() == ()
        router = engine.context.router
        timings, top_hits = [], 0
        for name, prompt in aimed[::100]:
            started = time.perf_counter()
            decision = router.route(prompt)
            timings.append((time.perf_counter() - started) * 1000)
            top_hits += decision.candidates[0].skill.name == name
        timings.sort()
        p50, p99 = statistics.median(timings), timings[int(len(timings) * 0.99) - 1]
        print(f"5,000 skills: catalog {loaded:.2f} s (RSS +{after_load - before:.0f} MB), router {routed_in:.2f} s "
              f"(RSS +{after_router - after_load:.0f} MB); routing over {len(timings)} prompts p50 {p50:.2f} ms, "
              f"p99 {p99:.2f} ms; aimed skill ranked first {top_hits}/{len(timings)}")
        assert top_hits == len(timings)
        proxy = start_proxy(engine=engine)
        name, word = aimed[1234][0], made_up_word(1234)
        answer = chat(proxy, f"{name}: the {word} job, {name.split('-')[0]} and {name.split('-')[1]}")
        assert answer.status_code == 200 and answer.headers["x-skills-route"].startswith(f"{name}=")
        assert f"<n>{name}</n>" in sent_text(upstream)
        listing = httpx.get(proxy.base_url + "/skills", timeout=30).json()
        assert len(listing["data"]) == 5000
    finally:
        engine.close()


# ---- a root that disappears while serving -----------------------------------------

@pytest.fixture
def fast_poll(monkeypatch):
    import proxy.engine.live_catalog as watch
    monkeypatch.setattr(watch, "_MISSING_ROOT_POLL_SECONDS", 0.05)


def write_skill(root: Path, name: str, desc: str, body: str = "Follow the steps.") -> None:
    (root / name).mkdir(parents=True, exist_ok=True)
    (root / name / "SKILL.md").write_text(SKILL.format(name=name, desc=desc, body=body))


def test_a_root_deleted_while_serving_keeps_its_skills_until_it_returns(start_proxy, upstream, logs, tmp_path,
                                                                       fast_poll):
    root = tmp_path / "skills"
    write_skill(root, "invoice-audit", "Audit supplier invoices for duplicate payments and wrong VAT")
    write_skill(root, "photo-resize", "Resize holiday photos for the family album")
    engine = engine_over([str(root)], watch=True)
    proxy = start_proxy(engine=engine)
    question = "audit these supplier invoices for duplicate payments and wrong VAT"
    try:
        with httpx.Client(timeout=30) as client:
            assert chat(proxy, question, client).headers["x-skills-route"].startswith("invoice-audit=")
            time.sleep(0.3)  # the watcher is watching
            shutil.rmtree(root)
            missing = logs.wait_for("catalog_root_missing", timeout=10, root=str(root))
            assert missing["kept_skills"] == 2 and missing["level"] == "warning"
            statuses = [chat(proxy, f"{question}, batch {i}", client) for i in range(5)]
            assert [r.status_code for r in statuses] == [200] * 5
            assert all(r.headers["x-skills-route"].startswith("invoice-audit=") for r in statuses)
            explicit = chat(proxy, "$photo-resize shrink these to 1024 px", client)
            assert explicit.status_code == 200 and explicit.headers["x-skills-route"] == "explicit:photo-resize"
            assert "<expanded_skill_instructions_error>SKILL.md could not be read" in sent_text(upstream)
            write_skill(root, "invoice-audit", "Audit supplier invoices for duplicate payments and wrong VAT",
                        body="Restored after the root came back.")
            logs.wait_for("catalog_reloaded", timeout=10, removed=["photo-resize"], missing_roots=[])
            again = chat(proxy, "$invoice-audit check March", client)
            assert again.status_code == 200 and "Restored after the root came back." in sent_text(upstream)
        print(f"root deleted while serving: {len(statuses) + 3} requests, all 200; "
              f"{len(logs.events('catalog_root_missing'))} catalog_root_missing warnings")
    finally:
        engine.close()


# ---- a SKILL.md rewritten while requests are served --------------------------------

def test_skill_rewritten_while_serving(start_proxy, upstream, logs, tmp_path):
    root = tmp_path / "skills"
    versions = {v: SKILL.format(name="release-notes", desc=f"Write release notes, version {v}",
                                body=f"Version {v} instructions. " * 400) for v in "AB"}
    write_skill(root, "photo-resize", "Resize holiday photos for the family album")
    (root / "release-notes").mkdir(parents=True)
    (root / "release-notes" / "SKILL.md").write_text(versions["A"])
    engine = engine_over([str(root)], watch=True)
    proxy = start_proxy(engine=engine)
    stop, writes = threading.Event(), [0]

    def writer() -> None:
        path, temporary = root / "release-notes" / "SKILL.md", root / "release-notes" / ".SKILL.md.tmp"
        while not stop.is_set():
            for text in versions.values():
                if writes[0] % 2:
                    path.write_text(text)  # truncate + write
                else:
                    temporary.write_text(text)
                    os.replace(temporary, path)  # atomic rename
                writes[0] += 1
                time.sleep(0.005)

    thread = threading.Thread(target=writer)
    thread.start()
    seen: dict[str, int] = {"A": 0, "B": 0, "missing": 0}
    try:
        with httpx.Client(timeout=30) as client:
            deadline = time.monotonic() + 1.5
            while time.monotonic() < deadline:
                answer = chat(proxy, f"$release-notes for 2.4.{sum(seen.values())}", client)  # new each time
                assert answer.status_code == 200, answer.text
                packet = sent_text(upstream)
                if answer.headers["x-skills-route"] != "explicit:release-notes":
                    seen["missing"] += 1  # caught between truncate and write: skipped until the next reload
                    continue
                version = packet.split("<description>Write release notes, version ", 1)[1][0]
                assert version in "AB"
                seen[version] += 1
    finally:
        stop.set()
        thread.join(10)
        engine.close()
    reloads = len(logs.events("catalog_reloaded"))
    print(f"SKILL.md rewritten {writes[0]} times while serving: {sum(seen.values())} requests all 200 "
          f"({seen['A']} saw A, {seen['B']} saw B, {seen['missing']} found it briefly unloaded); {reloads} reloads")
    assert reloads >= 1 and seen["A"] + seen["B"] > 0


# ---- binary files beside a skill ------------------------------------------------------

def test_binary_files_in_a_skill_folder_are_refused_clearly(start_proxy, upstream, tmp_path):
    root = tmp_path / "skills"
    write_skill(root, "logo-kit", "Brand logos and the script that exports them")
    folder = root / "logo-kit"
    (folder / "assets").mkdir()
    (folder / "scripts").mkdir()
    (folder / "assets" / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 40)
    (folder / "scripts" / "export").write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(4096))
    (folder / "scripts" / "export.sh").write_text("#!/bin/sh\necho export\n")
    (root / "binary-skill").mkdir()
    (root / "binary-skill" / "SKILL.md").write_bytes(b"\x00\x01\x02garbage" * 100)
    engine = engine_over([str(root)])
    try:
        assert engine.live.current.names == ("logo-kit",)
        [skipped] = engine.live.current.skipped
        assert skipped.rule == "unreadable" and "binary" in skipped.message
        proxy = start_proxy(engine=engine)
        with httpx.Client(timeout=10) as client:
            for path in ("assets/logo.png", "scripts/export"):
                answer = client.get(f"{proxy.base_url}/skills/logo-kit/files/{path}")
                error = answer.json()["error"]
                assert answer.status_code == 415 and error["code"] == "binary_file", answer.text
                assert f"{path} is a binary file" in error["message"]
            text = client.get(f"{proxy.base_url}/skills/logo-kit/files/scripts/export.sh")
            assert text.status_code == 200 and text.text == "#!/bin/sh\necho export\n"
            assert chat(proxy, "$logo-kit export the logo", client).status_code == 200
    finally:
        engine.close()
