"""Load one skill folder into a `Skill`, or a `Finding` saying why it cannot be loaded.

Fallbacks, in order: frontmatter, then a `skill.json` manifest beside SKILL.md,
then the folder name (for `name`) or the first paragraph after the H1 (for
`description`). Every fallback and every spec rule broken is a warning that
names the file and the rule.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from proxy.core.frontmatter import ParsedSkillFile, first_paragraph, headings, parse_skill_text
from proxy.core.skill import Finding, Skill
from proxy.core.skill_files import DEFAULT_MAX_FILE_BYTES, FileText, display_path, has_supporting_files, read_capped
from proxy.core.validation import CONTEXT_VALUES, description_problems, name_problems, other_field_problems

Problem = tuple[str, str]
_MANIFEST_KEYS = ("name", "description", "tags")


def load_skill(folder: Path, root: str, max_bytes: int = DEFAULT_MAX_FILE_BYTES) -> Skill | Finding:
    skill_file = folder / "SKILL.md"
    location = display_path(skill_file)
    try:
        file_text = read_capped(skill_file, max_bytes)
    except OSError as exc:
        return Finding(location, "unreadable", f"cannot read SKILL.md ({exc.strerror or exc}); skipped", "error")
    problems = _file_problems(file_text, max_bytes)
    parsed = parse_skill_text(file_text.text)
    problems.extend(parsed.problems)
    fields = _with_manifest(parsed.fields, folder, problems)
    name = _name(fields, folder.name, problems)
    description = _description(fields, parsed, problems)
    if not description.strip():
        return Finding(location, "description-missing",
                       "no description in frontmatter, skill.json or a first paragraph; skipped", "error")
    problems.extend(name_problems(name, folder.name))
    problems.extend(description_problems(description))
    problems.extend(other_field_problems(fields, parsed.raw_keys))
    return _build(name, description, fields, parsed, folder, root, location, problems)


def _file_problems(file_text: FileText, max_bytes: int) -> list[Problem]:
    problems: list[Problem] = []
    if file_text.truncated:
        problems.append(("file-truncated",
                         f"SKILL.md is {file_text.size} bytes, over the {max_bytes}-byte cap; head and tail kept"))
    if file_text.had_invalid_utf8:
        problems.append(("invalid-utf8", "SKILL.md is not valid UTF-8; undecodable bytes replaced"))
    return problems


def _with_manifest(fields: dict[str, Any], folder: Path, problems: list[Problem]) -> dict[str, Any]:
    missing = [key for key in _MANIFEST_KEYS if not fields.get(key)]
    manifest_path = folder / "skill.json"
    if not missing or not manifest_path.is_file():
        return fields
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8-sig"))
    except (OSError, ValueError) as exc:
        problems.append(("manifest-invalid", f"skill.json could not be read: {exc}"))
        return fields
    if not isinstance(manifest, dict):
        problems.append(("manifest-invalid", "skill.json is not a JSON object"))
        return fields
    taken = {key: manifest[key] for key in missing if manifest.get(key)}
    if taken:
        problems.append(("manifest-fallback", f"took {', '.join(sorted(taken))} from skill.json"))
    return {**fields, **taken}


def _name(fields: dict[str, Any], folder_name: str, problems: list[Problem]) -> str:
    value = fields.get("name")
    if isinstance(value, (str, int, float)) and not isinstance(value, bool) and str(value).strip():
        return str(value).strip()
    if value is not None:
        problems.append(("field-type", f"name must be text, not {type(value).__name__}"))
    problems.append(("name-missing", f"no name in frontmatter; using the folder name {folder_name!r}"))
    return folder_name


def _description(fields: dict[str, Any], parsed: ParsedSkillFile, problems: list[Problem]) -> str:
    value = fields.get("description")
    if isinstance(value, str) and value.strip():
        return value
    if value is not None and not isinstance(value, str):
        problems.append(("field-type", f"description must be text, not {type(value).__name__}"))
    fallback = first_paragraph(parsed.body)
    if fallback:
        problems.append(("description-missing", "no description in frontmatter; using the first paragraph after the title"))
    return fallback


def _build(name: str, description: str, fields: dict[str, Any], parsed: ParsedSkillFile,
           folder: Path, root: str, location: str, problems: list[Problem]) -> Skill:
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
        metadata=fields["metadata"] if isinstance(fields.get("metadata"), dict) else {},
        headings=headings(parsed.body),
        warnings=tuple(Finding(location, rule, message) for rule, message in problems),
    )


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
