"""Checks for the example skills shipped in skills/.

Deliberately independent of the `proxy` package: these tests validate the skill
folders against the Agent Skills rules on their own (stdlib + PyYAML only) and run
the bundled scripts on sample input.
"""
from __future__ import annotations

import ast
import gzip
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

SKILLS_DIR = Path(__file__).resolve().parents[1] / "skills"
NAME_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
CJK_RE = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
ALLOWED_KEYS = {
    "name",
    "description",
    "when_to_use",
    "tags",
    "license",
    "argument-hint",
    "disable-model-invocation",
    "user-invocable",
    "allowed-tools",
    "metadata",
}
RESOURCE_REF_RE = re.compile(r"(?<![\w/.-])((?:scripts|references|assets)/[\w./-]*\w)")


def skill_dirs() -> list[Path]:
    if not SKILLS_DIR.is_dir():
        return []
    return sorted(
        p for p in SKILLS_DIR.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))
    )


def split_frontmatter(text: str) -> tuple[str, str]:
    """Return (frontmatter, body); the first line must be '---', closed by the next '---' line."""
    lines = text.splitlines()
    assert lines and lines[0] == "---", "SKILL.md must start with a '---' line"
    for i, line in enumerate(lines[1:], start=1):
        if line == "---":
            return "\n".join(lines[1:i]), "\n".join(lines[i + 1 :])
    raise AssertionError("frontmatter is not closed by a second '---' line")


def load_skill(skill_dir: Path) -> tuple[dict, str]:
    front, body = split_frontmatter((skill_dir / "SKILL.md").read_text(encoding="utf-8"))
    meta = yaml.safe_load(front)
    assert isinstance(meta, dict), "frontmatter must be a YAML mapping"
    return meta, body


def all_skills() -> dict[str, tuple[dict, str]]:
    return {d.name: load_skill(d) for d in skill_dirs()}


def all_scripts() -> list[Path]:
    return sorted(p for d in skill_dirs() for p in (d / "scripts").glob("*.py"))


SKILL_PARAMS = [pytest.param(d, id=d.name) for d in skill_dirs()]
SCRIPT_PARAMS = [pytest.param(p, id=f"{p.parents[1].name}/{p.name}") for p in all_scripts()]


def run(script: Path, *args: str, stdin: str | bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(script), *args],
        input=stdin.encode() if isinstance(stdin, str) else stdin,
        capture_output=True,
        timeout=60,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )


# --------------------------------------------------------------------------- spec


def test_there_are_at_least_seven_skills():
    assert len(skill_dirs()) >= 7, [d.name for d in skill_dirs()]


@pytest.mark.parametrize("skill_dir", SKILL_PARAMS)
def test_skill_md_exists(skill_dir: Path):
    assert (skill_dir / "SKILL.md").is_file()


@pytest.mark.parametrize("skill_dir", SKILL_PARAMS)
def test_name_matches_folder_and_spec(skill_dir: Path):
    meta, _ = load_skill(skill_dir)
    name = meta.get("name")
    assert name == skill_dir.name
    assert isinstance(name, str) and 1 <= len(name) <= 64
    assert NAME_RE.fullmatch(name), f"bad skill name {name!r}"


@pytest.mark.parametrize("skill_dir", SKILL_PARAMS)
def test_description_rules(skill_dir: Path):
    meta, _ = load_skill(skill_dir)
    desc = meta.get("description")
    assert isinstance(desc, str)
    assert 1 <= len(desc) <= 1024, len(desc)
    assert "<" not in desc and ">" not in desc
    # it must say when to use the skill, not only what it does
    assert re.search(r"\bUse when\b|用于|何时使用|当用户", desc), desc


@pytest.mark.parametrize("skill_dir", SKILL_PARAMS)
def test_optional_keys_are_known_and_typed(skill_dir: Path):
    meta, _ = load_skill(skill_dir)
    unknown = set(meta) - ALLOWED_KEYS
    assert not unknown, f"unknown frontmatter keys: {unknown}"
    assert meta.get("license") == "MIT"
    for key in ("when_to_use", "argument-hint"):
        if key in meta:
            assert isinstance(meta[key], str) and meta[key].strip()
            assert "<" not in meta[key] and ">" not in meta[key]
    for key in ("disable-model-invocation", "user-invocable"):
        if key in meta:
            assert isinstance(meta[key], bool), f"{key} must be a YAML boolean"
    if "tags" in meta:
        tags = meta["tags"]
        assert isinstance(tags, list) and tags
        for tag in tags:
            assert isinstance(tag, str) and tag == tag.lower() and " " not in tag, tag
    if "metadata" in meta:
        assert isinstance(meta["metadata"], dict) and meta["metadata"]
    if "allowed-tools" in meta:
        assert isinstance(meta["allowed-tools"], (str, list))


@pytest.mark.parametrize("skill_dir", SKILL_PARAMS)
def test_body_length_and_resource_references(skill_dir: Path):
    meta, body = load_skill(skill_dir)
    n_lines = len(body.strip().splitlines())
    assert 60 <= n_lines <= 200, f"body has {n_lines} lines"
    if "$ARGUMENTS" in body:
        assert "argument-hint" in meta, "skills taking $ARGUMENTS should say what to pass"
    # every scripts/..., references/..., assets/... path mentioned must exist
    for ref in set(RESOURCE_REF_RE.findall(body)):
        assert (skill_dir / ref).exists(), f"SKILL.md mentions missing file {ref}"
    # and every shipped resource file is mentioned somewhere in the body
    for sub in ("scripts", "references", "assets"):
        for f in (skill_dir / sub).glob("*") if (skill_dir / sub).is_dir() else []:
            assert f"{sub}/{f.name}" in body, f"{sub}/{f.name} is never mentioned in SKILL.md"


def test_feature_coverage():
    skills = all_skills()
    dirs = {d.name: d for d in skill_dirs()}
    assert any(
        (dirs[n] / "scripts").is_dir() and (dirs[n] / "references").is_dir() for n in skills
    ), "one skill needs both scripts/ and references/"
    assert any("when_to_use" in m for m, _ in skills.values())
    assert any(m.get("tags") for m, _ in skills.values())
    assert any(m.get("disable-model-invocation") is True for m, _ in skills.values())
    assert any("user-invocable" in m for m, _ in skills.values())
    assert any(isinstance(m.get("metadata"), dict) for m, _ in skills.values())
    assert any(CJK_RE.search(m["description"]) for m, _ in skills.values())
    assert any("$ARGUMENTS" in body and "argument-hint" in m for m, body in skills.values())


def test_requested_skills_present():
    names = set(all_skills())
    for required in (
        "conventional-commits",
        "code-review-checklist",
        "sql-query-tuning",
        "log-triage",
        "release-notes",
        "chinese-tech-writing",
    ):
        assert required in names
    assert all_skills()["release-notes"][0]["disable-model-invocation"] is True
    zh_meta, zh_body = all_skills()["chinese-tech-writing"]
    assert CJK_RE.search(zh_meta["description"])
    assert len(CJK_RE.findall(zh_body)) > 500, "body should be written in Chinese"


# ------------------------------------------------------------------ all scripts


@pytest.mark.parametrize("script", SCRIPT_PARAMS)
def test_script_is_executable_stdlib_python(script: Path):
    source = script.read_text(encoding="utf-8")
    assert source.startswith("#!/usr/bin/env python3\n")
    assert os.access(script, os.X_OK), f"{script} is not executable"
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            mods = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            mods = [node.module]
        else:
            continue
        for mod in mods:
            top = mod.split(".")[0]
            assert top in sys.stdlib_module_names, f"non-stdlib import {mod} in {script.name}"


@pytest.mark.parametrize("script", SCRIPT_PARAMS)
def test_script_help(script: Path):
    # run through the shebang, as a user would
    proc = subprocess.run([str(script), "--help"], capture_output=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert b"usage:" in proc.stdout


@pytest.mark.parametrize("script", SCRIPT_PARAMS)
def test_script_rejects_missing_file(script: Path, tmp_path: Path):
    proc = run(script, str(tmp_path / "does-not-exist"))
    assert proc.returncode != 0
    assert b"Traceback" not in proc.stderr
    assert proc.stderr.strip(), "should explain the failure on stderr"


# ------------------------------------------------------------ explain_summary.py

SQL = SKILLS_DIR / "sql-query-tuning"
EXPLAIN = SQL / "scripts" / "explain_summary.py"
SAMPLE_PLAN = SQL / "assets" / "sample_plan.json"


def explain_json(*args: str, stdin: str | None = None) -> dict:
    proc = run(EXPLAIN, "--json", *args, stdin=stdin)
    assert proc.returncode == 0, proc.stderr.decode()
    return json.loads(proc.stdout)


def test_explain_summary_sample_plan():
    s = explain_json(str(SAMPLE_PLAN))
    assert s["execution_time_ms"] == pytest.approx(812.95)
    assert s["node_count"] == 6
    top = s["slowest"][0]
    assert top["node"] == "Seq Scan on orders o"
    assert top["exclusive_ms"] == pytest.approx(640.2)
    assert top["pct"] == pytest.approx(78.8, abs=0.1)
    # Hash Join exclusive time = 705.3 - 640.2 - 3.05
    hj = next(n for n in s["slowest"] if n["node"] == "Hash Join")
    assert hj["exclusive_ms"] == pytest.approx(62.05, abs=0.01)

    scans = {x["node"]: x for x in s["seq_scans"]}
    assert set(scans) == {"Seq Scan on orders o"}  # customers (5,000 rows) is below threshold
    assert scans["Seq Scan on orders o"]["rows_read"] == 2_000_000
    assert "index" in scans["Seq Scan on orders o"]["hint"]

    miss = {x["node"]: x for x in s["misestimates"]}
    assert set(miss) == {"Hash Join", "Seq Scan on orders o"}  # Sort under Limit is not flagged
    assert miss["Seq Scan on orders o"]["direction"] == "under"
    assert miss["Seq Scan on orders o"]["factor"] == pytest.approx(32.3, abs=0.1)

    assert any("spilled to disk" in w["warning"] and w["node"] == "Sort" for w in s["warnings"])


def test_explain_summary_text_output_and_stdin():
    proc = run(EXPLAIN, "--top", "2", stdin=SAMPLE_PLAN.read_text())
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.decode()
    assert "Execution time: 813.0 ms" in out
    assert "read 2,000,000 rows, kept 48,500 (2.4%)" in out
    assert "40.2x under-estimate" in out
    assert "Seq Scan on customers" not in out  # --top 2 and not a big scan


def test_explain_summary_counts_loops(tmp_path: Path):
    plan = [
        {
            "Plan": {
                "Node Type": "Nested Loop",
                "Plan Rows": 10,
                "Actual Total Time": 95.0,
                "Actual Rows": 4000,
                "Actual Loops": 1,
                "Plans": [
                    {
                        "Node Type": "Seq Scan",
                        "Relation Name": "users",
                        "Alias": "u",
                        "Plan Rows": 10,
                        "Actual Total Time": 5.0,
                        "Actual Rows": 4000,
                        "Actual Loops": 1,
                    },
                    {
                        "Node Type": "Index Scan",
                        "Relation Name": "orders",
                        "Alias": "o",
                        "Index Name": "orders_user_id_idx",
                        "Index Cond": "(user_id = u.id)",
                        "Plan Rows": 1,
                        "Actual Total Time": 0.02,
                        "Actual Rows": 1,
                        "Actual Loops": 4000,
                    },
                ],
            },
            "Execution Time": 95.5,
        }
    ]
    f = tmp_path / "plan.json"
    f.write_text(json.dumps(plan))
    s = explain_json(str(f))
    top = s["slowest"][0]
    # 0.02 ms x 4000 loops = 80 ms: the inner index scan, not the 5 ms seq scan
    assert top["node"] == "Index Scan using orders_user_id_idx on orders o"
    assert top["exclusive_ms"] == pytest.approx(80.0)
    assert top["loops"] == 4000
    nl = next(n for n in s["slowest"] if n["node"] == "Nested Loop")
    assert nl["exclusive_ms"] == pytest.approx(10.0)
    assert any(m["node"] == "Seq Scan on users u" and m["factor"] == 400 for m in s["misestimates"])
    assert any("4000 times" in w["warning"] for w in s["warnings"])


def test_explain_summary_accepts_psql_decorated_output(tmp_path: Path):
    lines = SAMPLE_PLAN.read_text().splitlines()
    decorated = "                QUERY PLAN\n-------------------------\n"
    decorated += "\n".join(" " + line + "+" for line in lines[:-1]) + "\n " + lines[-1] + "\n(1 row)\n"
    f = tmp_path / "psql.txt"
    f.write_text(decorated)
    assert explain_json(str(f))["slowest"][0]["node"] == "Seq Scan on orders o"


@pytest.mark.parametrize(
    "content, message",
    [
        ("", "empty"),
        ("this is not json", "JSON"),
        ('{"foo": 1}', "no plan found"),
        ('[{"Plan": {"Node Type": "Seq Scan", "Plan Rows": 5}}]', "ANALYZE"),
        ('[{"Plan": {"Node Type": "Seq Scan", "Actual Loops": "many"}}]', "malformed"),
    ],
)
def test_explain_summary_bad_input(tmp_path: Path, content: str, message: str):
    f = tmp_path / "bad.json"
    f.write_text(content)
    proc = run(EXPLAIN, str(f))
    assert proc.returncode == 2
    assert message in proc.stderr.decode()
    assert "Traceback" not in proc.stderr.decode()
    assert proc.stdout == b""


def test_explain_summary_bad_option():
    proc = run(EXPLAIN, "--misestimate", "0.5", str(SAMPLE_PLAN))
    assert proc.returncode == 2


# ------------------------------------------------------------ error_signatures.py

LOGS = SKILLS_DIR / "log-triage"
SIGS = LOGS / "scripts" / "error_signatures.py"
SAMPLE_LOG = LOGS / "assets" / "sample.log"


def sigs_json(*args: str, stdin: str | None = None) -> dict:
    proc = run(SIGS, "--json", *args, stdin=stdin)
    assert proc.returncode == 0, proc.stderr.decode()
    return json.loads(proc.stdout)


def test_error_signatures_sample_log():
    r = sigs_json(str(SAMPLE_LOG))
    assert r["lines"] == 24
    assert r["error_lines"] == 10  # WARN/INFO lines and traceback frames are not errors
    assert r["signature_count"] == 6

    first = r["first_error"]
    assert first["where"].endswith("sample.log:5")
    assert first["category"] == "deadlock"
    assert first["timestamp"] == "2024-05-14T10:02:15.004Z"

    top = r["signatures"][0]
    assert top["count"] == 4
    assert top["category"] == "connection-refused"
    assert "req-" not in top["signature"] and "10.0.3.12" not in top["signature"]
    assert "request_id=<id>" in top["signature"] and "<ip>" in top["signature"]
    assert top["first_timestamp"] == "2024-05-14T10:02:25.114Z"
    assert top["last_timestamp"] == "2024-05-14T10:02:27.018Z"

    assert r["categories"]["oom"] == 2
    assert r["categories"]["pool-exhausted"] == 2

    tb = next(s for s in r["signatures"] if s["signature"].startswith("requests.exceptions.ReadTimeout"))
    assert tb["first_seen"].endswith("sample.log:15")  # points at the 'Traceback' line
    assert tb["category"] == "timeout"
    assert tb["first_timestamp"] == "2024-05-14T10:02:29.440Z"  # inherited from the line before


def test_error_signatures_text_stdin_and_gzip(tmp_path: Path):
    gz = tmp_path / "old.log.gz"
    gz.write_bytes(gzip.compress(SAMPLE_LOG.read_bytes()))
    r = sigs_json(str(gz), str(SAMPLE_LOG))
    assert r["error_lines"] == 20
    assert r["signatures"][0]["count"] == 8
    assert r["first_error"]["where"] == f"{gz}:5"

    proc = run(SIGS, "--top", "1", stdin=SAMPLE_LOG.read_text())
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.decode()
    assert "First error (line 5, 2024-05-14T10:02:15.004Z) [deadlock]" in out
    assert "4x  [connection-refused]" in out
    assert "5 more signature(s)" in out


def test_error_signatures_custom_pattern_and_no_errors():
    r = sigs_json("--pattern", "warn", str(SAMPLE_LOG))
    # the two WARN lines (case-insensitive) plus the Python traceback, which always counts
    assert r["error_lines"] == 3
    assert r["first_error"]["where"].endswith("sample.log:4")
    assert {s["signature"].split()[0] for s in r["signatures"]} == {"WARN", "requests.exceptions.ReadTimeout:"}
    proc = run(SIGS, stdin="2024-05-14T10:00:00Z INFO all quiet\n")
    assert proc.returncode == 0
    assert b"No error lines found" in proc.stdout


def test_error_signatures_bad_input(tmp_path: Path):
    binary = tmp_path / "core.bin"
    binary.write_bytes(b"\x7fELF\x00\x00\x01\x02")
    empty = tmp_path / "empty.log"
    empty.write_text("")
    broken_gz = tmp_path / "cut.log.gz"
    broken_gz.write_bytes(gzip.compress(b"ERROR boom\n" * 100)[:20])
    for path, message in [
        (binary, "binary"),
        (empty, "empty"),
        (broken_gz, "error reading"),
        (tmp_path, "directory"),
    ]:
        proc = run(SIGS, str(path))
        assert proc.returncode == 2, path
        assert message in proc.stderr.decode(), proc.stderr
        assert b"Traceback" not in proc.stderr
    proc = run(SIGS, "--pattern", "(unclosed", str(SAMPLE_LOG))
    assert proc.returncode == 2
    assert b"invalid --pattern" in proc.stderr
