"""Explicit activation: `$skill-name` tokens (and `/skill-name` at the start).

A token that names a skill activates it; a token that is a near miss of a
skill name (a typo) is an unresolved activation with the closest names; any
other token is plain text, so `echo $HOME`, `$PATH` or `$var` in a shell
question never hijack a request.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rapidfuzz import fuzz, process

from proxy.core.catalog.catalog import Catalog
from proxy.core.catalog.skill import Skill

TOKEN_PATTERN = re.compile(r"(?<![A-Za-z0-9_])\$([a-z][a-z0-9._-]{1,127})(?![A-Za-z0-9._-])")
SLASH_PATTERN = re.compile(r"^\s*/([a-z][a-z0-9._-]{1,127})(?=\s|$)")
NEAR_MISS_SCORE = 80.0
SUGGESTIONS = 3


@dataclass(frozen=True)
class Activation:
    """One requested skill: resolved (`skill` set) or a near miss (`suggestions`)."""

    token: str
    requested: str
    skill: Skill | None = None
    suggestions: tuple[str, ...] = ()

    @property
    def resolved_skill(self) -> Skill:
        """The skill of a resolved activation (one of `ActivationRequest.resolved`)."""
        if self.skill is None:
            raise ValueError(f"{self.token} names no skill: it is a near miss")
        return self.skill


@dataclass(frozen=True)
class ActivationRequest:
    activations: tuple[Activation, ...]
    payload: str

    @property
    def resolved(self) -> tuple[Activation, ...]:
        return tuple(a for a in self.activations if a.skill is not None)

    @property
    def unresolved(self) -> tuple[Activation, ...]:
        return tuple(a for a in self.activations if a.skill is None)


def extract_tokens(text: str) -> list[str]:
    """`$name` tokens in order of appearance, deduplicated case-insensitively."""
    seen: set[str] = set()
    tokens: list[str] = []
    if "$" not in text:  # every token has one; most messages none
        return tokens
    for match in TOKEN_PATTERN.finditer(text):
        key = match.group(1).casefold()
        if key not in seen:
            seen.add(key)
            tokens.append(match.group(1))
    return tokens


def find_activations(text: str, catalog: Catalog, slash: bool = True) -> ActivationRequest | None:
    """The activation request in `text`, or None when it activates nothing."""
    if slash:
        request = _slash_activation(text, catalog)
        if request is not None:
            return request
    activations = [a for a in (_resolve(token, catalog) for token in extract_tokens(text)) if a]
    if not activations:
        return None
    return ActivationRequest(tuple(activations), remove_tokens(text, [a.token for a in activations]))


def _slash_activation(text: str, catalog: Catalog) -> ActivationRequest | None:
    match = SLASH_PATTERN.match(text)
    if not match:
        return None
    skill = _invocable(catalog, match.group(1))
    if skill is None:
        return None
    activation = Activation(f"/{match.group(1)}", match.group(1), skill)
    return ActivationRequest((activation,), squeeze(text[match.end():]))


def _resolve(name: str, catalog: Catalog) -> Activation | None:
    token = f"${name}"
    for candidate in dict.fromkeys((name, name.rstrip("._-"))):
        skill = _invocable(catalog, candidate)
        if skill is not None:
            return Activation(token if candidate == name else f"${candidate}", candidate, skill)
    suggestions = closest_names(name, catalog)
    if suggestions:
        return Activation(token, name, None, suggestions)
    return None


def _invocable(catalog: Catalog, name: str) -> Skill | None:
    skill = catalog.get(name)
    return skill if skill is not None and skill.user_invocable else None


def closest_names(name: str, catalog: Catalog, limit: int = SUGGESTIONS) -> tuple[str, ...]:
    """User-invocable skill names within typo distance of `name`, closest first."""
    names = sorted(s.name for s in catalog.skills if s.user_invocable)
    found = process.extract(name.casefold(), names, scorer=fuzz.ratio, processor=str.casefold,
                            score_cutoff=NEAR_MISS_SCORE, limit=limit)
    return tuple(match for match, _score, _index in sorted(found, key=lambda f: (-f[1], f[0])))


def remove_tokens(text: str, tokens: list[str]) -> str:
    """The task payload: `text` without the activation tokens, spaces and blank lines squeezed."""
    names = {token[1:].casefold() for token in tokens}

    def drop(match: re.Match[str]) -> str:
        name = match.group(1)
        if name.casefold() in names:
            return ""
        stripped = name.rstrip("._-")
        return name[len(stripped):] if stripped.casefold() in names else match.group(0)

    return squeeze(TOKEN_PATTERN.sub(drop, text))


def squeeze(text: str) -> str:
    text = re.sub(r"[ \t]{2,}", " ", text)
    text = re.sub(r"[ \t]+\n", "\n", text)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def substitute_arguments(body: str, payload: str) -> str:
    """Claude Code's convention: `$ARGUMENTS` in a skill body becomes the task payload."""
    return body.replace("$ARGUMENTS", payload)
