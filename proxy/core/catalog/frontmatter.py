"""Split a SKILL.md into YAML frontmatter fields and a Markdown body.

Tolerates what real skills do: a UTF-8 BOM, CRLF, frontmatter wrapped in a
```yaml fence, and YAML that does not parse (most often an unquoted colon in
a description), which is retried with a lenient line-based reader. Never
raises: every problem becomes a `(rule, message)` pair for the caller.

Bounded on hostile input: at most `MAX_FRONTMATTER_LINES` lines of YAML are
read, YAML aliases are refused (no "billion laughs"), deep nesting and values
that cannot be built (a 2024-13-45 date, a 10,000-digit number) are YAML
errors like any other, and no pattern here backtracks on a long line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import yaml

_FENCE_OPEN = re.compile(r"```\s*(?:ya?ml)?", re.IGNORECASE)  # fullmatch on a right-stripped line
_KEY_LINE = re.compile(r"^([A-Za-z][A-Za-z0-9_-]*):(?:[ \t]+(.*))?$")
_BLOCK_INDICATOR = re.compile(r"^[>|][+-]?\d?\s*$")
_HEADING = re.compile(r"#{1,6}\s")
MAX_FRONTMATTER_LINES = 1000
MAX_FLOW_NESTING = 64

Problem = tuple[str, str]


class _FrontmatterLoader(yaml.SafeLoader):
    """PyYAML's safe loader without aliases: frontmatter never needs them, and they are how a
    few bytes of YAML expand into gigabytes of Python objects."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()  # type: ignore[no-untyped-call]  # types-PyYAML leaves it unannotated
            raise yaml.composer.ComposerError(None, None, "YAML aliases (*name) are not allowed in frontmatter",
                                              event.start_mark)
        return super().compose_node(parent, index)


# What building YAML can raise besides YAMLError: deep nesting, dates and numbers out of range.
_YAML_FAILURES = (yaml.YAMLError, RecursionError, ValueError, TypeError, OverflowError)


@dataclass(frozen=True)
class ParsedSkillFile:
    """`fields` has normalised keys (lower case, `-` → `_`); `raw_keys` the keys as written."""

    fields: dict[str, Any]
    raw_keys: tuple[str, ...]
    body: str
    has_frontmatter: bool
    problems: tuple[Problem, ...]


def normalise_key(key: object) -> str:
    return str(key).strip().lower().replace("-", "_")


def parse_skill_text(text: str) -> ParsedSkillFile:
    problems: list[Problem] = []
    if text.startswith("\ufeff"):
        text = text[1:]
        problems.append(("utf8-bom", "file starts with a UTF-8 byte order mark (tolerated)"))
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    block, body_start = _find_frontmatter(lines, problems)
    if block is None:
        return ParsedSkillFile({}, (), "\n".join(lines), False, tuple(problems))
    raw = _load_yaml(block, problems)
    fields = {normalise_key(k): v for k, v in raw.items()}
    body = "\n".join(lines[body_start:])
    return ParsedSkillFile(fields, tuple(str(k) for k in raw), body, True, tuple(problems))


def _find_frontmatter(lines: list[str], problems: list[Problem]) -> tuple[list[str] | None, int]:
    start = 0
    if lines and _FENCE_OPEN.fullmatch(lines[0].rstrip()) and len(lines) > 1 and lines[1].strip() == "---":
        problems.append(("frontmatter-in-code-fence", "frontmatter is wrapped in a ``` code fence (read anyway)"))
        start = 1
    if not lines or lines[start].strip() != "---":
        problems.append(("no-frontmatter", "no YAML frontmatter: the first line is not '---'"))
        return None, 0
    for index in range(start + 1, len(lines)):
        if lines[index].strip() in ("---", "..."):
            body_start = index + 1
            if start and body_start < len(lines) and lines[body_start].strip() == "```":
                body_start += 1
            return _capped_block(lines[start + 1 : index], problems), body_start
    problems.append(("frontmatter-unclosed", "frontmatter opened with '---' is never closed"))
    return None, 0


def _capped_block(block: list[str], problems: list[Problem]) -> list[str]:
    if len(block) <= MAX_FRONTMATTER_LINES:
        return block
    problems.append(("frontmatter-too-long", f"frontmatter has {len(block)} lines; only the first "
                                             f"{MAX_FRONTMATTER_LINES} are read"))
    return block[:MAX_FRONTMATTER_LINES]


def _safe_load(text: str) -> Any:
    """PyYAML's pure-Python loader on purpose: libyaml (CSafeLoader) is faster but crashes the whole
    process on deep nesting (`- - - …` on one line), where this one raises RecursionError."""
    depth = _flow_depth(text)
    if depth > MAX_FLOW_NESTING:  # PyYAML slows down quadratically before it gives up on deep nesting
        raise yaml.YAMLError(f"brackets nested {depth} deep, over {MAX_FLOW_NESTING}")
    return yaml.load(text, Loader=_FrontmatterLoader)  # a SafeLoader subclass: plain data only


def _flow_depth(text: str) -> int:
    """How deep [ and { nest (quotes ignored: an over-estimate is harmless)."""
    if text.count("[") + text.count("{") <= MAX_FLOW_NESTING:
        return 0
    depth = deepest = 0
    for char in text:
        if char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}" and depth:
            depth -= 1
    return deepest


def _load_yaml(block: list[str], problems: list[Problem]) -> dict[Any, Any]:
    try:
        data = _safe_load("\n".join(block))
    except _YAML_FAILURES as exc:
        problems.append(("yaml-invalid", f"{_yaml_error_summary(exc)}; read leniently line by line"))
        return lenient_fields(block)
    if data is None:
        return {}
    if not isinstance(data, dict):
        problems.append(("frontmatter-not-mapping", f"frontmatter is a {type(data).__name__}, not key: value pairs"))
        return {}
    return data


def _yaml_error_summary(exc: Exception) -> str:
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or (str(exc).splitlines() or [type(exc).__name__])[0]
    where = f" at line {mark.line + 2}, column {mark.column + 1}" if mark else ""
    return f"invalid YAML ({problem}{where})"


def lenient_fields(block: list[str]) -> dict[str, Any]:
    """Read `key: value` lines where strict YAML failed; continuation lines join the value."""
    groups: list[tuple[str, list[str]]] = []
    for line in block:
        match = _KEY_LINE.match(line)
        if match:
            groups.append((match.group(1), [match.group(2) or ""]))
        elif groups:
            groups[-1][1].append(line)
    return {key: _lenient_value(key, parts) for key, parts in groups}


def _lenient_value(key: str, parts: list[str]) -> Any:
    first, rest = parts[0], parts[1:]
    try:
        loaded = _safe_load("\n".join([f"{key}: {first}", *rest]))
        if isinstance(loaded, dict) and key in loaded:
            return loaded[key]
    except _YAML_FAILURES:
        pass
    if _BLOCK_INDICATOR.match(first.strip()):
        joiner = "\n" if first.strip().startswith("|") else " "
        return joiner.join(line.strip() for line in rest if line.strip())
    text = " ".join(part.strip() for part in [first, *rest] if part.strip())
    return _unquote(text)


def _unquote(text: str) -> str:
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return text


def first_paragraph(body: str, limit: int = 1024) -> str:
    """The first prose paragraph after the H1 (or from the top when there is none)."""
    lines = body.split("\n")
    h1 = next((i for i, line in enumerate(lines) if line.startswith("# ")), -1)
    paragraph: list[str] = []
    for line in lines[h1 + 1 :]:
        stripped = line.strip()
        if not stripped:
            if paragraph:
                break
            continue
        if _is_structure(stripped):
            if paragraph:
                break
            continue
        paragraph.append(stripped)
    return " ".join(paragraph)[:limit].strip()


def _is_structure(line: str) -> bool:
    """Headings, fences, rules, tables, comments, and the marker of a file cut at the size cap."""
    return bool(_HEADING.match(line)) or line.startswith(("```", "---", "***", "|", "<!--", "===", "[... "))


def heading_text(line: str) -> str | None:
    """The text of a Markdown ATX heading (closing #s dropped), or None for any other line."""
    match = _HEADING.match(line)
    if match is None:
        return None
    return line[match.end():].strip().rstrip("#").rstrip() or None


def headings(body: str, limit: int = 40) -> tuple[str, ...]:
    """Markdown headings outside code fences, in order, at most `limit`."""
    found: list[str] = []
    in_fence = False
    for line in body.split("\n"):
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
            continue
        text = None if in_fence else heading_text(line)
        if text:
            found.append(text)
            if len(found) >= limit:
                break
    return tuple(found)
