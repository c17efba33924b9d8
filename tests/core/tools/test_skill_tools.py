"""The skill tools: output shapes, defaults, caps, errors, and no way out of a skill folder."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from proxy.core.catalog.catalog import Catalog, load_catalog
from proxy.core.routing.router import SkillRouter
from proxy.core.tools.skill_tools import (
    LIST_SKILL_FILES,
    LIST_SKILLS,
    READ_SKILL_FILE,
    TOOL_NAMES,
    SkillTools,
    ToolResult,
    tool_specs,
)
from tests.core.skill_factory import SKILLS, write_catalog

MARKER = "TOPSECRET-5f1c9e2a"
EVENT_KEYS = {"tool", "skill", "path", "ok", "error", "result_chars", "truncated"}


def build_world(base: Path) -> Catalog:
    """Three skills (release-notes not model-invocable), supporting files, and secrets beside them."""
    root = base / "skills"
    catalog_skills = {**SKILLS, "pdf": ("Fill PDF forms and read PDF metadata.", "# pdf\nSee references/forms.md.\n")}
    write_catalog(root, catalog_skills, {"release-notes": "disable-model-invocation: true\n"})  # the folders
    tools = root / "pdf-tools"
    _write(tools / "references" / "guide.md", "# Guide\nUse pdfplumber.\n")
    _write(tools / "scripts" / "run.py", "print('run')\n")
    _write(tools / "参考" / "说明.md", "中文说明\n")
    _write(tools / ".git" / "config", "hidden")
    _write(tools / "node_modules" / "x.js", "ignored")
    _write(tools / "__pycache__" / "x.pyc", "ignored")
    (tools / "assets").mkdir()
    (tools / "assets" / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00" + b"\x01" * 100)
    _write(tools / "big.txt", "A" * 3000 + "MIDDLE" + "Z" * 3000)
    _write(root / "pdf-tools-private" / "secret.md", MARKER)
    _write(base / "outside" / "secret.txt", MARKER)
    os.symlink("../pdf-tools-private/secret.md", tools / "leak.md")
    os.symlink(base / "outside", tools / "outdir")
    os.symlink("../..", tools / "references" / "escape")
    os.symlink("references/guide.md", tools / "guide-link.md")
    return load_catalog([root])


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def tools_for(catalog: Catalog, **options) -> SkillTools:
    return SkillTools(catalog, SkillRouter(catalog.skills), **options)


@pytest.fixture
def catalog(tmp_path: Path) -> Catalog:
    return build_world(tmp_path)


@pytest.fixture
def tools(catalog: Catalog) -> SkillTools:
    return tools_for(catalog)


def call(tools: SkillTools, name: str, arguments) -> ToolResult:
    result = tools.call(name, arguments if isinstance(arguments, (str, type(None))) else json.dumps(arguments))
    assert set(result.event) == EVENT_KEYS
    assert result.event["ok"] is result.ok and result.event["result_chars"] == len(result.content)
    assert result.event["tool"] == name
    return result


# --- definitions -----------------------------------------------------------------------------

def test_specs_name_the_three_tools_with_closed_object_schemas():
    specs = tool_specs()
    assert [spec.name for spec in specs] == list(TOOL_NAMES)
    for spec in specs:
        assert spec.description
        assert spec.parameters["type"] == "object"
        assert spec.parameters["additionalProperties"] is False
    params = {spec.name: spec.parameters for spec in specs}
    assert set(params[LIST_SKILLS]["properties"]) == {"query", "limit"} and params[LIST_SKILLS]["required"] == []
    assert params[READ_SKILL_FILE]["required"] == ["skill"] and "path" in params[READ_SKILL_FILE]["properties"]
    assert params[LIST_SKILL_FILES]["required"] == ["skill"] and "path" in params[LIST_SKILL_FILES]["properties"]
    assert "SKILL.md" in params[READ_SKILL_FILE]["properties"]["path"]["description"]


def test_specs_are_a_fresh_copy_each_time():
    first = tool_specs()
    first[0].parameters["properties"].clear()
    assert tool_specs()[0].parameters["properties"]


def test_specs_stay_short():
    assert len(json.dumps([[s.name, s.description, s.parameters] for s in tool_specs()])) < 1500


# --- list_skills ---------------------------------------------------------------------------

def test_list_skills_without_a_query_lists_model_invocable_skills_by_name(tools):
    result = call(tools, LIST_SKILLS, None)
    payload = json.loads(result.content)
    assert result.ok and payload["query"] is None and payload["total"] == 3
    assert [s["name"] for s in payload["skills"]] == ["pdf", "pdf-tools", "sql-query-tuning"]
    assert set(payload["skills"][0]) == {"name", "description", "location"}
    assert payload["skills"][0]["description"] == "Fill PDF forms and read PDF metadata."
    assert payload["skills"][0]["location"].endswith("pdf/SKILL.md")


@pytest.mark.parametrize("arguments", [None, "", "  ", "{}", "null", {}, {"query": ""}, {"query": "  "}])
def test_list_skills_accepts_empty_arguments(tools, arguments):
    assert len(json.loads(call(tools, LIST_SKILLS, arguments).content)["skills"]) == 3


def test_list_skills_ranks_the_relevant_skill_first(tools):
    payload = json.loads(call(tools, LIST_SKILLS, {"query": "my SQL query is slow, check the EXPLAIN plan"}).content)
    assert payload["skills"][0]["name"] == "sql-query-tuning"
    assert payload["query"] == "my SQL query is slow, check the EXPLAIN plan"


def test_list_skills_never_offers_a_skill_the_model_may_not_invoke(tools):
    for arguments in (None, {"query": "write release notes and a changelog"}):
        names = [s["name"] for s in json.loads(call(tools, LIST_SKILLS, arguments).content)["skills"]]
        assert "release-notes" not in names


def test_list_skills_with_no_match_says_how_to_see_them_all(tools):
    payload = json.loads(call(tools, LIST_SKILLS, {"query": "zzzqqq xxyyzz"}).content)
    assert payload["skills"] == [] and "without a query" in payload["note"]


@pytest.mark.parametrize("limit, expected", [(1, 1), (2, 2), (0, 1), (-5, 1), (500, 3), ("2", 2), (2.7, 2),
                                             ("two", 3), (None, 3), (True, 3), ([1], 3), ("1e400", 3)])
def test_list_skills_limit_is_clamped_and_lenient(tools, limit, expected):
    payload = json.loads(call(tools, LIST_SKILLS, {"limit": limit}).content)
    assert len(payload["skills"]) == expected


def test_list_skills_limit_caps_at_50(tmp_path):
    many = {f"skill-{i:02d}": (f"Skill number {i} for testing limits.", "# x\n") for i in range(60)}
    catalog = write_catalog(tmp_path, many)
    payload = json.loads(call(tools_for(catalog), LIST_SKILLS, {"limit": 99}).content)
    assert len(payload["skills"]) == 50 and payload["total"] == 60
    assert len(json.loads(call(tools_for(catalog), LIST_SKILLS, {}).content)["skills"]) == 10


# --- read_skill_file -------------------------------------------------------------------------

def test_read_defaults_to_the_whole_skill_md(tools, catalog):
    result = call(tools, READ_SKILL_FILE, {"skill": "pdf-tools"})
    assert result.ok and result.content == (catalog.get("pdf-tools").folder / "SKILL.md").read_text(encoding="utf-8")
    assert result.content.startswith("---\nname: pdf-tools\n")
    assert result.event | {"result_chars": 0} == {"tool": READ_SKILL_FILE, "skill": "pdf-tools", "path": "SKILL.md",
                                                  "ok": True, "error": None, "result_chars": 0, "truncated": False}


@pytest.mark.parametrize("path, text", [("references/guide.md", "# Guide\nUse pdfplumber.\n"),
                                        ("./scripts/run.py", "print('run')\n"), ("参考/说明.md", "中文说明\n"),
                                        ("guide-link.md", "# Guide\nUse pdfplumber.\n"), ("  SKILL.md ", None)])
def test_read_supporting_files_by_relative_path(tools, path, text):
    result = call(tools, READ_SKILL_FILE, {"skill": "pdf-tools", "path": path})
    assert result.ok
    assert text is None or result.content == text


def test_read_resolves_names_case_insensitively_and_by_folder(tools):
    assert call(tools, READ_SKILL_FILE, {"skill": "PDF-Tools"}).event["skill"] == "pdf-tools"
    assert call(tools, READ_SKILL_FILE, {"name": "pdf-tools"}).ok


def test_a_skill_hidden_from_list_skills_can_still_be_read(tools):
    result = call(tools, READ_SKILL_FILE, {"skill": "release-notes"})
    assert result.ok and "# Release" in result.content


def test_unknown_skill_names_the_closest(tools):
    result = call(tools, READ_SKILL_FILE, {"skill": "pdff"})
    assert not result.ok and result.event["error"] == "unknown_skill"
    assert result.content.startswith('error: no skill named "pdff". Closest names: pdf, pdf-tools.')
    assert result.content.endswith("Call list_skills to search.")


def test_unknown_skill_with_nothing_close_says_so(tools):
    result = call(tools, READ_SKILL_FILE, {"skill": "kubernetes-helm"})
    assert result.content == ('error: no skill named "kubernetes-helm", and no name is close. '
                              "Call list_skills to search.")


@pytest.mark.parametrize("path, code, words", [
    ("../pdf-tools-private/secret.md", "path_refused", "error: path refused: '..' is not allowed"),
    ("/etc/passwd", "path_refused", "error: path refused: absolute paths are not allowed"),
    ("%2e%2e/x", "path_refused", "encoded characters"),
    ("leak.md", "path_refused", "leak.md is a symlink that leads outside the skill folder"),
    ("outdir/secret.txt", "path_refused", "outdir is a symlink"),
    ("references/escape/pdf-tools-private/secret.md", "path_refused", "references/escape is a symlink"),
    ("missing.md", "not_found", "has no file missing.md"),
    ("scripts", "is_directory", "scripts is a folder"),
    ("assets/logo.png", "binary_file", "binary file (110 bytes)"),
])
def test_read_errors_say_what_to_do(tools, path, code, words):
    result = call(tools, READ_SKILL_FILE, {"skill": "pdf-tools", "path": path})
    assert not result.ok and result.event["error"] == code and result.event["path"] == path
    assert result.content.startswith("error: ") and words in result.content
    assert MARKER not in result.content and "PNG" not in result.content


def test_missing_and_folder_paths_point_to_list_skill_files(tools):
    for path in ("missing.md", "scripts"):
        assert LIST_SKILL_FILES in call(tools, READ_SKILL_FILE, {"skill": "pdf-tools", "path": path}).content


def test_an_oversized_file_keeps_head_and_tail_with_a_marker(catalog):
    result = call(tools_for(catalog, max_file_bytes=1000), READ_SKILL_FILE, {"skill": "pdf-tools", "path": "big.txt"})
    assert result.ok and result.event["truncated"] is True
    assert result.content.startswith("AAA") and result.content.endswith("ZZZ")
    assert "MIDDLE" not in result.content and "over the 1000-byte cap" in result.content


# --- list_skill_files ------------------------------------------------------------------------

def test_list_skill_files_lists_relative_paths_with_sizes(tools):
    result = call(tools, LIST_SKILL_FILES, {"skill": "pdf-tools"})
    payload = json.loads(result.content)
    assert result.ok and payload["skill"] == "pdf-tools" and payload["path"] == "." and payload["truncated"] is False
    paths = [f["path"] for f in payload["files"]]
    assert paths == sorted(paths)
    assert {"SKILL.md", "references/guide.md", "scripts/run.py", "参考/说明.md", "assets/logo.png",
            "guide-link.md", "big.txt"} == set(paths)
    assert {"path": "assets/logo.png", "bytes": 110} in payload["files"]


def test_list_skill_files_omits_hidden_ignored_and_escaping_entries(tools):
    content = call(tools, LIST_SKILL_FILES, {"skill": "pdf-tools"}).content
    for absent in (".git", "node_modules", "__pycache__", "leak.md", "outdir", "escape", "secret", MARKER):
        assert absent not in content


def test_list_skill_files_in_a_sub_folder(tools):
    payload = json.loads(call(tools, LIST_SKILL_FILES, {"skill": "pdf-tools", "path": "references"}).content)
    assert payload["path"] == "references" and [f["path"] for f in payload["files"]] == ["references/guide.md"]


@pytest.mark.parametrize("path, code", [("../pdf-tools-private", "path_refused"), ("outdir", "path_refused"),
                                        ("nope", "not_found"), ("SKILL.md", "not_a_directory")])
def test_list_skill_files_refuses_bad_folders(tools, path, code):
    result = call(tools, LIST_SKILL_FILES, {"skill": "pdf-tools", "path": path})
    assert not result.ok and result.event["error"] == code and MARKER not in result.content


def test_list_skill_files_caps_entries(catalog):
    result = call(tools_for(catalog, max_entries=3), LIST_SKILL_FILES, {"skill": "pdf-tools"})
    payload = json.loads(result.content)
    assert len(payload["files"]) == 3 and payload["truncated"] is True and result.event["truncated"] is True
    assert "only 3 files" in payload["note"]
    assert [f["path"] for f in payload["files"]] == ["SKILL.md", "big.txt", "guide-link.md"]  # top level first


def test_list_skill_files_at_exactly_the_cap_is_not_truncated(catalog):
    payload = json.loads(call(tools_for(catalog, max_entries=7), LIST_SKILL_FILES, {"skill": "pdf-tools"}).content)
    assert len(payload["files"]) == 7 and payload["truncated"] is False


def test_list_skill_files_caps_depth(tmp_path):
    catalog = write_catalog(tmp_path, {"deep": ("A deeply nested skill.", "# d\n")})
    _write(tmp_path / "deep" / "a" / "b" / "c" / "d.md", "d")
    _write(tmp_path / "deep" / "a" / "one.md", "1")
    payload = json.loads(call(tools_for(catalog, max_depth=2), LIST_SKILL_FILES, {"skill": "deep"}).content)
    assert [f["path"] for f in payload["files"]] == ["SKILL.md", "a/one.md"]
    assert payload["truncated"] is True and payload["unlisted_folders"] == ["a/b"]
    deeper = json.loads(call(tools_for(catalog, max_depth=2), LIST_SKILL_FILES,
                             {"skill": "deep", "path": "a/b"}).content)
    assert [f["path"] for f in deeper["files"]] == ["a/b/c/d.md"]


def test_a_symlinked_sub_folder_inside_is_listed_once(tmp_path):
    catalog = write_catalog(tmp_path, {"loop": ("A skill with a symlink loop.", "# l\n")})
    _write(tmp_path / "loop" / "docs" / "x.md", "x")
    os.symlink("..", tmp_path / "loop" / "docs" / "back")
    payload = json.loads(call(tools_for(catalog), LIST_SKILL_FILES, {"skill": "loop"}).content)
    assert [f["path"] for f in payload["files"]] == ["SKILL.md", "docs/x.md"]


# --- bad calls -------------------------------------------------------------------------------

def test_unknown_tool_lists_the_three_names(tools):
    result = call(tools, "read_file", '{"skill": "pdf"}')
    assert not result.ok and result.event["error"] == "unknown_tool"
    assert all(name in result.content for name in TOOL_NAMES)


@pytest.mark.parametrize("arguments", ["{", "not json", "[1, 2]", '"just a string"', "42", "[" * 100000])
def test_arguments_that_are_not_an_object_explain_the_shape(tools, arguments):
    result = call(tools, READ_SKILL_FILE, arguments)
    assert not result.ok and result.event["error"] == "bad_arguments"
    assert '{"skill": "pdf", "path": "SKILL.md"}' in result.content


@pytest.mark.parametrize("arguments", [{}, {"skill": ""}, {"skill": None}, {"path": "SKILL.md"}, {"skill": ["pdf"]},
                                       {"skill": {"name": "pdf"}}, {"skill": "pdf", "path": [1]}])
def test_missing_or_mistyped_fields_are_bad_arguments(tools, arguments):
    result = call(tools, READ_SKILL_FILE, arguments)
    assert not result.ok and result.event["error"] == "bad_arguments"


def test_extra_keys_are_ignored_and_dicts_and_double_encoded_json_are_accepted(tools):
    assert call(tools, READ_SKILL_FILE, {"skill": "pdf", "path": "SKILL.md", "why": "because"}).ok
    assert tools.call(READ_SKILL_FILE, {"skill": "pdf"}).ok
    assert tools.call(READ_SKILL_FILE, json.dumps(json.dumps({"skill": "pdf"}))).ok


@pytest.mark.parametrize("name, arguments", [
    (None, None), (42, "{}"), (READ_SKILL_FILE, 42), (READ_SKILL_FILE, ["x"]), (READ_SKILL_FILE, b'{"skill": "pdf"}'),
    (LIST_SKILLS, '{"query": "\\ud800"}'), (READ_SKILL_FILE, '{"skill": "\\udfff"}'),
])
def test_odd_inputs_never_raise(tools, name, arguments):
    result = tools.call(name, arguments)
    assert isinstance(result, ToolResult) and set(result.event) == EVENT_KEYS
    result.content.encode("utf-8")


class _FailingRouter:
    def search(self, query, limit):
        raise LookupError("index is gone")


def test_an_internal_failure_keeps_the_exception_type_and_message_in_the_event(catalog):
    result = SkillTools(catalog, _FailingRouter()).call(LIST_SKILLS, json.dumps({"query": "pdf"}))
    assert not result.ok and result.event["error"] == "internal_error"
    assert result.event["error_type"] == "LookupError" and result.event["error_message"] == "index is gone"
    assert "(LookupError)" in result.content and "index is gone" not in result.content
    assert set(result.event) == EVENT_KEYS | {"error_type", "error_message"}


# --- never raises, never leaks ---------------------------------------------------------------

ATTACKS = ["../pdf-tools-private/secret.md", "leak.md", "outdir/secret.txt",
           "references/escape/pdf-tools-private/secret.md", "..", "/", "%2e%2e/pdf-tools-private/secret.md",
           "references/escape", "outdir", "..\\secret.md", "~"]
json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
                           max_leaves=8)
skill_names = st.sampled_from(["pdf-tools", "pdf", "release-notes", "PDF-TOOLS", "pdf-tools-private"]) | st.text()
paths = st.sampled_from(ATTACKS) | st.text() | st.lists(st.sampled_from(["..", ".", "outdir", "leak.md", "escape",
                                                                         "references", "pdf-tools-private", "secret.md",
                                                                         "%2e", "~", ""]), max_size=6).map("/".join)
arguments = st.one_of(
    st.none(), st.text(), json_values,
    st.fixed_dictionaries({"skill": skill_names}, optional={"path": paths, "query": st.text(), "limit": json_values}),
    st.fixed_dictionaries({"skill": skill_names, "path": paths}).map(json.dumps),
)


@pytest.fixture(scope="module")
def fuzz_tools(tmp_path_factory) -> SkillTools:
    return tools_for(build_world(tmp_path_factory.mktemp("fuzz")))


@settings(max_examples=400, deadline=None)
@given(name=st.sampled_from(TOOL_NAMES) | st.text(), arguments=arguments)
def test_no_call_raises_or_shows_anything_outside_a_skill_folder(fuzz_tools, name, arguments):
    result = fuzz_tools.call(name, arguments)
    assert isinstance(result, ToolResult) and set(result.event) == EVENT_KEYS
    assert MARKER not in result.content
    result.content.encode("utf-8")
