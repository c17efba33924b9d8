"""The skill tools the proxy runs for the model.

What lives here: the three tools (`ToolSpec`) the shell adds to a request, and
`SkillTools.call`, which runs one call from the model's raw arguments and
returns the tool message's content plus the fields of the shell's log line.
A call never raises: every problem becomes an `error: ...` content that says
what to do next. Paths are kept inside the skill folder by `skill_paths`.

What it must not know: HTTP, the tool loop, conversation state, logging.
"""

from __future__ import annotations

import copy
import os
import stat
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rapidfuzz import fuzz, process, utils

from proxy.core import json_codec
from proxy.core.catalog.catalog import Catalog
from proxy.core.catalog.files import DEFAULT_MAX_FILE_BYTES, looks_binary, read_capped
from proxy.core.catalog.paths import PathRefused, list_files, real_folder, resolve_in_folder
from proxy.core.catalog.skill import Skill
from proxy.core.routing.router import SkillRouter

LIST_SKILLS, READ_SKILL_FILE, LIST_SKILL_FILES = "list_skills", "read_skill_file", "list_skill_files"
TOOL_NAMES = (LIST_SKILLS, READ_SKILL_FILE, LIST_SKILL_FILES)
SKILL_FILE = "SKILL.md"
DEFAULT_LIMIT, MAX_LIMIT = 10, 50
CLOSEST_CUTOFF, CLOSEST_LIMIT = 70.0, 5
_QUOTE_CHARS = 120

_EXAMPLES = {
    LIST_SKILLS: '{"query": "merge pdf files", "limit": 10}',
    READ_SKILL_FILE: '{"skill": "pdf", "path": "SKILL.md"}',
    LIST_SKILL_FILES: '{"skill": "pdf"}',
}


@dataclass(frozen=True)
class ToolSpec:
    """One skill tool in no wire format: each surface writes it as its own kind of tool definition."""

    name: str
    description: str
    parameters: dict[str, Any]  # a JSON Schema object


def _tool(name: str, description: str, properties: dict[str, Any], required: list[str]) -> ToolSpec:
    schema = {"type": "object", "properties": properties, "required": required, "additionalProperties": False}
    return ToolSpec(name, description, schema)


_SKILL_PARAM = {"type": "string", "description": "Skill name, as listed or routed."}
_DEFINITIONS = [
    _tool(LIST_SKILLS,
          "Find skills (expert instructions for specific tasks) when no routed skill fits. "
          "Returns names, descriptions and locations.",
          {"query": {"type": "string", "description": "What the task is about; omit to list all."},
           "limit": {"type": "integer", "description": "Most skills to return (1-50, default 10)."}},
          []),
    _tool(READ_SKILL_FILE,
          "Read a skill's SKILL.md before doing a task a routed or listed skill covers; "
          "then read a supporting file it mentions by relative path.",
          {"skill": _SKILL_PARAM,
           "path": {"type": "string", "description": "Path relative to the skill folder; default SKILL.md."}},
          ["skill"]),
    _tool(LIST_SKILL_FILES,
          "List a skill's files (relative paths and sizes) to find one SKILL.md refers to.",
          {"skill": _SKILL_PARAM,
           "path": {"type": "string", "description": "A sub-folder to list; default the whole skill."}},
          ["skill"]),
]


def tool_specs() -> list[ToolSpec]:
    """The three skill tools: a fresh copy each call (a surface may build on their schemas)."""
    return copy.deepcopy(_DEFINITIONS)


@dataclass(frozen=True)
class ToolResult:
    content: str  # what goes into the tool message for the model
    ok: bool
    # tool, skill, path, ok, error, result_chars, truncated; on internal_error also error_type, error_message
    event: dict[str, Any]


class _Failure(Exception):
    """A call that cannot be done: `code` for the log line, `message` for the model."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


Handler = Callable[[dict[str, Any], dict[str, Any]], tuple[str, bool]]


class SkillTools:
    """Runs the skill tools against one catalog; built once per catalog, called per tool call."""

    def __init__(self, catalog: Catalog, router: SkillRouter, max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
                 max_entries: int = 200, max_depth: int = 4) -> None:
        self._catalog = catalog
        self._router = router
        self._max_file_bytes = max_file_bytes
        self._max_entries = max(1, max_entries)
        self._max_depth = max(1, max_depth)
        self._handlers: dict[str, Handler] = {
            LIST_SKILLS: self._list_skills,
            READ_SKILL_FILE: self._read_skill_file,
            LIST_SKILL_FILES: self._list_skill_files,
        }

    def call(self, name: str, arguments: str | Mapping[str, Any] | None) -> ToolResult:
        """Run one tool call; never raises. `arguments` is usually the model's raw JSON string."""
        tool = name if isinstance(name, str) else repr(name)
        event: dict[str, Any] = {"tool": tool, "skill": None, "path": None}
        try:
            content, truncated = self._dispatch(tool, arguments, event)
        except _Failure as failure:
            return _finish(event, f"error: {failure.message}", failure.code, False)
        except Exception as exc:  # noqa: BLE001 - a skill tool must never fail the request
            # The model is told the exception's type only (its message may name paths outside
            # the skill folder); the event, which goes to the log, keeps both.
            event.update(error_type=type(exc).__name__, error_message=str(exc))
            return _finish(event, f"error: the {tool} tool failed ({type(exc).__name__}); try again "
                                  "with other arguments", "internal_error", False)
        return _finish(event, content, None, truncated)

    def _dispatch(self, tool: str, arguments: Any, event: dict[str, Any]) -> tuple[str, bool]:
        handler = self._handlers.get(tool)
        if handler is None:
            raise _Failure("unknown_tool", f"unknown tool {_quote(tool)}; the skill tools are {', '.join(TOOL_NAMES)}")
        return handler(parse_arguments(arguments, tool), event)

    def _list_skills(self, args: dict[str, Any], event: dict[str, Any]) -> tuple[str, bool]:
        query = _text_arg(args, "query", LIST_SKILLS) or ""
        limit = _limit(args.get("limit"))
        invocable = [skill for skill in self._catalog.skills if skill.model_invocable]
        if query:
            in_catalog = {skill.name for skill in invocable}
            ranked = self._router.search(query, max(limit * 4, 40))
            chosen = [c.skill for c in ranked if c.skill.name in in_catalog][:limit]
        else:
            chosen = sorted(invocable, key=lambda s: s.name)[:limit]
        payload: dict[str, Any] = {"skills": [_summary(s) for s in chosen], "total": len(invocable),
                                   "query": query or None}
        if query and not chosen:
            payload["note"] = "no skill matched the query; call list_skills without a query to see them all"
        return _json(payload), False

    def _read_skill_file(self, args: dict[str, Any], event: dict[str, Any]) -> tuple[str, bool]:
        skill = self._skill(args, event, READ_SKILL_FILE)
        relative = _text_arg(args, "path", READ_SKILL_FILE) or SKILL_FILE
        event["path"] = relative
        target = _resolve(skill, relative)
        info = _stat(target, skill, relative)
        _check_readable(info, skill, relative)
        try:
            text = read_capped(target, self._max_file_bytes)
        except OSError as exc:
            raise _Failure("read_error", f"cannot read {relative} ({exc.strerror or exc})") from exc
        if looks_binary(text.text):
            raise _Failure("binary_file", f"{relative} is a binary file ({info.st_size} bytes); "
                                          "only text files can be read")
        return text.text, text.truncated

    def _list_skill_files(self, args: dict[str, Any], event: dict[str, Any]) -> tuple[str, bool]:
        skill = self._skill(args, event, LIST_SKILL_FILES)
        relative = _text_arg(args, "path", LIST_SKILL_FILES) or ""
        event["path"] = relative or None
        start = _resolve(skill, relative) if relative else real_folder(skill.folder)
        if not stat.S_ISDIR(_stat(start, skill, relative or ".").st_mode):
            raise _Failure("not_a_directory", f"{relative} is a file, not a folder; "
                                              f"read it with {READ_SKILL_FILE}")
        listing = list_files(skill.folder, start, self._max_entries, self._max_depth)
        payload: dict[str, Any] = {
            "skill": skill.name, "path": relative or ".",
            "files": [{"path": f.path, "bytes": f.bytes} for f in listing.files], "truncated": listing.truncated}
        if listing.truncated:
            payload["note"] = self._truncation_note(len(listing.files), bool(listing.unlisted_folders))
        if listing.unlisted_folders:
            payload["unlisted_folders"] = list(listing.unlisted_folders)
        return _json(payload), listing.truncated

    def _truncation_note(self, count: int, deep: bool) -> str:
        notes = []
        if count >= self._max_entries:
            notes.append(f"only {self._max_entries} files are listed")
        if deep:
            notes.append(f"folders deeper than {self._max_depth} levels are not opened (unlisted_folders)")
        return "; ".join(notes) + "; call list_skill_files with a sub-folder as path to see more"

    def _skill(self, args: dict[str, Any], event: dict[str, Any], tool: str) -> Skill:
        name = _text_arg(args, "skill", tool) or _text_arg(args, "name", tool)
        if not name:
            raise _Failure("bad_arguments", f'{tool} needs "skill", the name of a skill (call {LIST_SKILLS} '
                                            f"to find one); for example {_EXAMPLES[tool]}")
        event["skill"] = name[:_QUOTE_CHARS]
        skill = self._catalog.get(name)
        if skill is None:
            raise _Failure("unknown_skill", self._unknown_skill(name))
        event["skill"] = skill.name
        return skill

    def _unknown_skill(self, name: str) -> str:
        closest = closest_skill_names(name, self._catalog)
        if not closest:
            return f"no skill named {_quote(name)}, and no name is close. Call {LIST_SKILLS} to search."
        return f"no skill named {_quote(name)}. Closest names: {', '.join(closest)}. Call {LIST_SKILLS} to search."


def closest_skill_names(name: str, catalog: Catalog, limit: int = CLOSEST_LIMIT) -> tuple[str, ...]:
    """Names of any loaded skills that look like `name`, closest first."""
    names = sorted({skill.name for skill in catalog.skills})
    found = process.extract(name, names, scorer=fuzz.WRatio, processor=utils.default_process,
                            score_cutoff=CLOSEST_CUTOFF, limit=limit)
    return tuple(match for match, _score, _index in sorted(found, key=lambda f: (-f[1], f[0])))


def parse_arguments(arguments: Any, tool: str) -> dict[str, Any]:
    """The model's arguments as a dict: None, "" and "null" are {}; a double-encoded string is decoded."""
    value: Any = arguments
    for _ in range(2):
        if isinstance(value, (bytes, bytearray)):
            value = bytes(value).decode("utf-8", errors="replace")
        if not isinstance(value, str):
            break
        if not value.strip():
            return {}
        try:
            value = json_codec.loads(value)
        except (ValueError, RecursionError) as exc:
            raise _Failure("bad_arguments", f"the arguments are not valid JSON; send an object such as "
                                            f"{_EXAMPLES[tool]}") from exc
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise _Failure("bad_arguments", f"the arguments must be a JSON object such as {_EXAMPLES[tool]}")
    return dict(value)


def _text_arg(args: Mapping[str, Any], key: str, tool: str) -> str | None:
    value = args.get(key)
    if value is None:
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str):
        raise _Failure("bad_arguments", f'"{key}" must be a string; for example {_EXAMPLES[tool]}')
    return value.strip()


def _limit(value: Any) -> int:
    """The list_skills limit: numbers and numeric strings accepted, clamped to 1..50; else 10."""
    if value is None or isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return DEFAULT_LIMIT
    try:
        number = int(value) if isinstance(value, int) else int(float(value))
    except (ValueError, OverflowError):
        return DEFAULT_LIMIT
    return max(1, min(MAX_LIMIT, number))


def _resolve(skill: Skill, relative: str) -> Path:
    try:
        return resolve_in_folder(skill.folder, relative)
    except PathRefused as refused:
        raise _Failure("path_refused", f"path refused: {refused}") from refused


def _stat(target: Path, skill: Skill, relative: str) -> os.stat_result:
    try:
        return os.stat(target)
    except (OSError, ValueError) as exc:
        raise _Failure("not_found", f"skill {_quote(skill.name)} has no file {relative} (paths are relative "
                                    f"to the skill folder); call {LIST_SKILL_FILES} to see its files") from exc


def _check_readable(info: os.stat_result, skill: Skill, relative: str) -> None:
    if stat.S_ISDIR(info.st_mode):
        raise _Failure("is_directory", f"{relative} is a folder in skill {_quote(skill.name)}, not a file; "
                                       f"call {LIST_SKILL_FILES} with this path to see what it holds")
    if not stat.S_ISREG(info.st_mode):
        raise _Failure("not_a_file", f"{relative} is not a regular file and cannot be read")


def _summary(skill: Skill) -> dict[str, str]:
    return {"name": skill.name, "description": skill.description.strip(), "location": skill.location}


def _json(payload: Mapping[str, Any]) -> str:
    return json_codec.dumps(payload).decode("utf-8")


def _quote(text: str) -> str:
    shown = text if len(text) <= _QUOTE_CHARS else text[:_QUOTE_CHARS] + "…"
    return json_codec.dumps(shown).decode("utf-8")


def _finish(event: dict[str, Any], content: str, error: str | None, truncated: bool) -> ToolResult:
    ok, content = error is None, _encodable(content)
    event.update({key: _encodable(value) for key, value in event.items() if isinstance(value, str)})
    event.update(ok=ok, error=error, result_chars=len(content), truncated=truncated)
    return ToolResult(content, ok, event)


def _encodable(text: str) -> str:
    """`text` with lone surrogates (which JSON escapes can carry in) replaced, so it encodes as UTF-8."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", errors="replace").decode("utf-8")
    return text
