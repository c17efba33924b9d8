"""The Agent Skills spec checks: each rule is a short name `lint` prints.

Warnings only: a skill that breaks a rule still loads when it has a usable name.
"""

from __future__ import annotations

import unicodedata

MAX_NAME_CHARS = 64
MAX_DESCRIPTION_CHARS = 1024
MAX_COMPATIBILITY_CHARS = 500

KNOWN_KEYS = frozenset({
    "name", "description", "when_to_use", "tags", "license", "compatibility",
    "metadata", "allowed_tools", "disable_model_invocation", "user_invocable",
    "argument_hint", "context", "agent", "model",
})
CONTEXT_VALUES = ("fork", "fork_with_context")

Problem = tuple[str, str]


def name_problems(name: str, folder_name: str) -> list[Problem]:
    problems: list[Problem] = []
    normal = unicodedata.normalize("NFKC", name)
    if not 1 <= len(normal) <= MAX_NAME_CHARS:
        problems.append(("name-length", f"name is {len(normal)} characters; the spec allows 1 to {MAX_NAME_CHARS}"))
    bad = sorted({c for c in normal if not _name_char_ok(c)})
    if bad:
        shown = "".join(bad)
        problems.append(("name-format",
                         f"name {name!r} has {shown!r}: only lowercase letters, digits and '-' are allowed"))
    if normal.startswith("-") or normal.endswith("-") or "--" in normal:
        problems.append(("name-hyphens", f"name {name!r} starts or ends with '-' or has '--'"))
    if normal != unicodedata.normalize("NFKC", folder_name):
        problems.append(("name-folder-mismatch", f"name {name!r} differs from its folder name {folder_name!r}"))
    return problems


def _name_char_ok(char: str) -> bool:
    if char == "-" or char.isdigit():
        return True
    return char.isalpha() and char == char.lower()


def description_problems(description: str) -> list[Problem]:
    problems: list[Problem] = []
    if len(description) > MAX_DESCRIPTION_CHARS:
        problems.append(("description-length",
                         f"description is {len(description)} characters; "
                         f"the spec allows at most {MAX_DESCRIPTION_CHARS}"))
    if "<" in description or ">" in description:
        problems.append(("description-angle-brackets",
                         "description contains '<' or '>', which can read as markup inside a prompt"))
    return problems


def other_field_problems(fields: dict[str, object], raw_keys: tuple[str, ...]) -> list[Problem]:
    problems: list[Problem] = []
    compatibility = fields.get("compatibility")
    if isinstance(compatibility, str) and len(compatibility) > MAX_COMPATIBILITY_CHARS:
        problems.append(("compatibility-length",
                         f"compatibility is {len(compatibility)} characters; "
                         f"the spec allows at most {MAX_COMPATIBILITY_CHARS}"))
    context = fields.get("context")
    if context is not None and context not in CONTEXT_VALUES:
        problems.append(("context-value", f"context {context!r} is not one of {', '.join(CONTEXT_VALUES)}; ignored"))
    for key in raw_keys:
        normal = key.strip().lower().replace("-", "_")
        if normal not in KNOWN_KEYS:
            problems.append(("unknown-key", f"frontmatter key {key!r} is not part of the skill spec"))
    return problems
