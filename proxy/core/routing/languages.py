"""Which programming language a message is about, and which one a skill is for.

A skill named for one language (`neo4j-driver-java-skill`, `python-resource-management`,
`go-concurrency-patterns`) is of little use to a message about another: "db connections keep
piling up in our python service" asks nothing of a Java driver, however many other words of the
two agree. The router weighs such a skill down when the message names a language and not the
skill's own.

A language is known by its name and by the tools, libraries and file types only it has (`pandas`,
`pytest` → python; `goroutine` → go; `npm` → javascript): general software vocabulary, not words of
any eval prompt. Words a sentence uses for something else are left out (`go`, `spring`, `node`,
`express`, `gem`); Go counts when written as the language is (a capital Go inside a sentence or next
to CJK text, which `tokens.name_go` reads as `golang`). A skill's language comes from the words of
its name alone: what its body mentions in passing says nothing of what it is for.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import lru_cache
from types import MappingProxyType

# language → the words of a message that name it (normalised plain words)
_SPELLINGS = {
    "python": "python py python3 pip pypi pandas numpy scipy django flask fastapi pytest asyncio pydantic "
              "sqlalchemy celery jupyter psycopg psycopg2 venv virtualenv conda poetry",
    "java": "java jvm springboot maven gradle junit kotlin hibernate",
    "go": "golang goroutine goroutines gofmt",
    "rust": "rust cargo tokio rustc",
    "javascript": "javascript js typescript ts nodejs npm yarn pnpm deno jest vitest react vue angular svelte "
                  "nextjs tsx jsx",
    "dotnet": "dotnet csharp aspnet nuget blazor",
    "ruby": "ruby rails rspec",
    "php": "php laravel symfony",
    "solidity": "solidity ethereum evm hardhat",
    "shell": "bash zsh shell sh posix",
}
_MESSAGE_WORDS: Mapping[str, str] = MappingProxyType(
    {word: language for language, spelled in _SPELLINGS.items() for word in spelled.split()}
)
# The words of a skill's name that say which language it is for.
_NAME_WORDS: Mapping[str, str] = MappingProxyType({
    **{language: language for language in _SPELLINGS},
    "golang": "go", "nodejs": "javascript", "typescript": "javascript", "bash": "shell",
})


@lru_cache(maxsize=4096)
def skill_languages(name: str) -> frozenset[str]:
    """The languages a skill's name says it is for: `neo4j-driver-java-skill` → java."""
    return frozenset(_NAME_WORDS[word] for word in name.casefold().split("-") if word in _NAME_WORDS)


def message_languages(words: Iterable[str]) -> frozenset[str]:
    """The languages the plain words of a message name."""
    return frozenset(_MESSAGE_WORDS[word] for word in words if word in _MESSAGE_WORDS)


def other_language(skill: frozenset[str], message: frozenset[str]) -> str | None:
    """The skill's language when the message names languages and not this one (`java`, for a python
    message); None when they share one or either names none."""
    if not skill or not message or skill & message:
        return None
    return min(skill)
