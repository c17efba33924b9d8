"""Load one skill folder into a `Skill`, or a `Finding` saying why it cannot be loaded.

Fallbacks, in order: frontmatter, then a `skill.json` manifest beside SKILL.md,
then the folder name (for `name`) or the first paragraph after the H1 (for
`description`). Every fallback and every spec rule broken is a warning that
names the file and the rule.

Hostile files stay cheap: SKILL.md and skill.json are read up to the size cap,
a binary SKILL.md is skipped, a description is cut at `MAX_KEPT_DESCRIPTION_CHARS`
(it goes into every routed packet), a name too long to type is replaced by the
folder name, metadata is made JSON-safe, and at most `MAX_FINDINGS_PER_RULE`
warnings of one rule are kept, each at most `MAX_FINDING_CHARS` long.

Reloads stay cheap: the parse of a SKILL.md text (frontmatter, headings, first
paragraph) is kept by the text's sha256 for the last `CACHED_TEXTS` texts, so
a reload parses only the files whose text changed; everything read from disk
(the file itself, skill.json, the folder listing) is read again every time.
"""

from __future__ import annotations

import datetime
import hashlib
import math
import threading
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any, NamedTuple

from proxy.core import json_codec
from proxy.core.catalog.files import (
    DEFAULT_MAX_FILE_BYTES,
    FileText,
    display_path,
    has_supporting_files,
    looks_binary,
    read_capped,
)
from proxy.core.catalog.frontmatter import first_paragraph, headings, parse_skill_text
from proxy.core.catalog.skill import Finding, Skill
from proxy.core.catalog.validation import CONTEXT_VALUES, description_problems, name_problems, other_field_problems

Problem = tuple[str, str]
_MANIFEST_KEYS = ("name", "description", "tags")
MAX_USABLE_NAME_CHARS = 128  # the longest `$name` an activation token can spell
MAX_KEPT_DESCRIPTION_CHARS = 4096
MAX_FINDINGS_PER_RULE = 20
MAX_FINDING_CHARS = 400
CACHED_TEXTS = 4096  # parsed SKILL.md texts kept for reloads: every skill of a big catalog


def load_skill(folder: Path, root: str, max_bytes: int = DEFAULT_MAX_FILE_BYTES) -> Skill | Finding:
    skill_file = folder / "SKILL.md"
    location = display_path(skill_file)
    try:
        file_text = read_capped(skill_file, max_bytes)
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "strerror", None) or exc
        return Finding(location, "unreadable", f"cannot read SKILL.md ({reason}); skipped", "error")
    if looks_binary(file_text.text):
        return Finding(location, "unreadable", "SKILL.md is binary (NUL bytes or mostly undecodable bytes), "
                                               "not text; skipped", "error")
    problems = _file_problems(file_text, max_bytes)
    parsed, digest = _parsed(file_text.text)
    problems.extend(parsed.problems)
    fields = _with_manifest(parsed.fields, folder, problems, max_bytes)
    name = _name(fields, folder.name, problems)
    description = _description(fields, parsed, problems)
    if not description.strip():
        return Finding(location, "description-missing",
                       "no description in frontmatter, skill.json or a first paragraph; skipped", "error")
    problems.extend(name_problems(name, folder.name))
    problems.extend(description_problems(description))
    problems.extend(other_field_problems(fields, parsed.raw_keys))
    description = _kept_description(description, problems)
    skill = _build(name, description, fields, folder, root, location, problems)
    return replace(skill, headings=parsed.headings, source_sha256=digest)


class _Parsed(NamedTuple):
    """What a load needs of a SKILL.md text's parse (not the body: kept small, many are cached)."""

    fields: dict[str, Any]
    raw_keys: tuple[str, ...]
    problems: tuple[Problem, ...]
    headings: tuple[str, ...]
    first_paragraph: str


_PARSED: dict[str, _Parsed] = {}  # digest of a SKILL.md text → its parse, oldest first
_PARSED_LOCK = threading.Lock()  # the watcher and a CLI command may load at once


def _parsed(text: str) -> tuple[_Parsed, str]:
    """The parse of a SKILL.md text and the text's digest, parsed once per distinct text.

    A reload reads every SKILL.md again (cheap) but parses only those whose text changed: YAML
    is most of the cost of a load. Callers never mutate what this returns.
    """
    digest = hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()
    with _PARSED_LOCK:
        found = _PARSED.pop(digest, None)
    if found is None:
        parsed = parse_skill_text(text)
        found = _Parsed(parsed.fields, parsed.raw_keys, parsed.problems, headings(parsed.body),
                        first_paragraph(parsed.body))
    with _PARSED_LOCK:
        _PARSED[digest] = found  # (again) the newest
        while len(_PARSED) > CACHED_TEXTS:
            del _PARSED[next(iter(_PARSED))]
    return found, digest


def clear_parse_cache() -> None:
    """Forget every kept parse (for a from-scratch load, as tests compare with)."""
    with _PARSED_LOCK:
        _PARSED.clear()


def _file_problems(file_text: FileText, max_bytes: int) -> list[Problem]:
    problems: list[Problem] = []
    if file_text.truncated:
        problems.append(("file-truncated",
                         f"SKILL.md is {file_text.size} bytes, over the {max_bytes}-byte cap; head and tail kept"))
    if file_text.encoding != "utf-8":
        problems.append(("invalid-utf8", f"SKILL.md is {file_text.encoding.upper()} (it starts with a byte order "
                                         "mark), not UTF-8; decoded anyway"))
    if file_text.had_invalid_utf8:
        problems.append(("invalid-utf8", "SKILL.md is not valid UTF-8; undecodable bytes replaced"))
    return problems


def _with_manifest(fields: dict[str, Any], folder: Path, problems: list[Problem], max_bytes: int) -> dict[str, Any]:
    missing = [key for key in _MANIFEST_KEYS if not fields.get(key)]
    manifest_path = folder / "skill.json"
    if not missing or not manifest_path.is_file():
        return fields
    try:
        manifest = _read_manifest(manifest_path, max_bytes)
    except (OSError, ValueError, RecursionError) as exc:
        problems.append(("manifest-invalid", f"skill.json could not be read: {exc}"))
        return fields
    if not isinstance(manifest, dict):
        problems.append(("manifest-invalid", "skill.json is not a JSON object"))
        return fields
    taken = {key: manifest[key] for key in missing if manifest.get(key)}
    if taken:
        problems.append(("manifest-fallback", f"took {', '.join(sorted(taken))} from skill.json"))
    return {**fields, **taken}


def _read_manifest(path: Path, max_bytes: int) -> Any:
    text = read_capped(path, max_bytes)
    if text.truncated:
        raise ValueError(f"it is {text.size} bytes, over the {max_bytes}-byte cap")
    return json_codec.loads(text.text.removeprefix("\ufeff"))


def _name(fields: dict[str, Any], folder_name: str, problems: list[Problem]) -> str:
    value = fields.get("name")
    if isinstance(value, (str, int, float)) and not isinstance(value, bool) and str(value).strip():
        name = str(value).strip()
        if len(name) <= MAX_USABLE_NAME_CHARS:
            return name
        problems.append(("name-length", f"name is {len(name)} characters, too long to use; "
                                        f"using the folder name {folder_name!r}"))
        return folder_name
    if value is not None:
        problems.append(("field-type", f"name must be text, not {type(value).__name__}"))
    problems.append(("name-missing", f"no name in frontmatter; using the folder name {folder_name!r}"))
    return folder_name


def _description(fields: dict[str, Any], parsed: _Parsed, problems: list[Problem]) -> str:
    value = fields.get("description")
    if isinstance(value, str) and value.strip():
        return value
    if value is not None and not isinstance(value, str):
        problems.append(("field-type", f"description must be text, not {type(value).__name__}"))
    fallback = parsed.first_paragraph
    if fallback:
        problems.append(("description-missing",
                         "no description in frontmatter; using the first paragraph after the title"))
    return fallback


def _kept_description(description: str, problems: list[Problem]) -> str:
    if len(description) <= MAX_KEPT_DESCRIPTION_CHARS:
        return description
    problems.append(("description-length", f"description cut to its first {MAX_KEPT_DESCRIPTION_CHARS} characters "
                                           "for routing and packets"))
    return description[:MAX_KEPT_DESCRIPTION_CHARS].rstrip() + " …"


def _build(name: str, description: str, fields: dict[str, Any], folder: Path, root: str, location: str,
           problems: list[Problem]) -> Skill:
    context = fields.get("context")
    return Skill(
        name=name,
        description=description,
        folder=folder,
        root=root,
        location=location,
        when_to_use=_text(fields.get("when_to_use")) or "",
        tags=_string_list(fields.get("tags"), problems, "tags"),
        has_supporting_files=has_supporting_files(folder),
        model_invocable=not _flag(fields.get("disable_model_invocation"), False, problems),
        user_invocable=_flag(fields.get("user_invocable"), True, problems),
        allowed_tools=_string_list(fields.get("allowed_tools"), problems, "allowed-tools"),
        context=context if context in CONTEXT_VALUES else None,
        agent=_text(fields.get("agent")),
        model=_text(fields.get("model")),
        argument_hint=_text(fields.get("argument_hint")),
        license=_text(fields.get("license")),
        compatibility=_text(fields.get("compatibility")),
        metadata=json_safe(fields["metadata"]) if isinstance(fields.get("metadata"), dict) else {},
        warnings=_findings(location, problems),
    )


def _findings(location: str, problems: list[Problem]) -> tuple[Finding, ...]:
    """One Finding per problem, at most MAX_FINDINGS_PER_RULE of a rule (then one saying how many more)."""
    counts = Counter(rule for rule, _ in problems)
    seen: Counter[str] = Counter()
    findings: list[Finding] = []
    for rule, message in problems:
        seen[rule] += 1
        if seen[rule] <= MAX_FINDINGS_PER_RULE:
            findings.append(Finding(location, rule, _clipped(message)))
        elif seen[rule] == MAX_FINDINGS_PER_RULE + 1:
            more = counts[rule] - MAX_FINDINGS_PER_RULE
            findings.append(Finding(location, rule, f"... and {more} more {rule} findings like these"))
    return tuple(findings)


def _clipped(message: str) -> str:
    return message if len(message) <= MAX_FINDING_CHARS else message[: MAX_FINDING_CHARS - 1] + "…"


def json_safe(value: Any) -> Any:
    """Frontmatter values as strict JSON can carry them: keys, dates, NaN and other odd scalars as text."""
    if isinstance(value, dict):
        return {str(key): json_safe(item) for key, item in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [json_safe(item) for item in value]
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)  # strict JSON has no NaN or Infinity
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def _text(value: Any) -> str | None:
    if value is None or isinstance(value, (dict, list)):
        return None
    return str(value).strip() or None


def _string_list(value: Any, problems: list[Problem], key: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        separators = value.replace(",", " ").split()
        return tuple(part for part in separators if part)
    if isinstance(value, (list, tuple)):
        return tuple(str(item).strip() for item in value if item is not None and str(item).strip())
    problems.append(("field-type", f"{key} must be a list or text, not {type(value).__name__}"))
    return ()


def _flag(value: Any, default: bool, problems: list[Problem]) -> bool:
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("true", "yes", "1", "on"):
        return True
    if text in ("false", "no", "0", "off"):
        return False
    problems.append(("field-type", f"expected true or false, got {value!r}; using {default}"))
    return default
