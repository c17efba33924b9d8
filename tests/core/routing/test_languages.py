"""A skill for another programming language than the message's is weighed down."""

from __future__ import annotations

import pytest

from proxy.core.routing.languages import message_languages, other_language, skill_languages
from proxy.core.routing.router import OTHER_LANGUAGE_SHARE, SkillRouter
from proxy.core.routing.tokens import split_text
from tests.core.routing.test_router import make_skill


@pytest.mark.parametrize(("text", "languages"), [
    ("my pandas job gets killed at 80 GB", {"python"}),
    ("goroutines pile up after the client disconnects", {"go"}),
    ("Go 服务里 goroutine 还在一直跑", {"go"}),
    ("port this Kotlin service to TypeScript", {"java", "javascript"}),
    ("let's go through the spring roadmap", set()),  # `go` and `spring` say nothing of a language
    ("add a node to the graph", set()),
])
def test_a_message_names_languages_by_their_names_and_tools(text: str, languages: set[str]) -> None:
    assert message_languages(split_text(text).words) == languages


def test_a_skill_is_for_the_languages_its_name_says() -> None:
    assert skill_languages("neo4j-driver-java-skill") == {"java"}
    assert skill_languages("nodejs-backend-patterns") == {"javascript"}
    assert skill_languages("bash-defensive-patterns") == {"shell"}
    assert skill_languages("postmortem-writing") == frozenset()


def test_only_a_skill_for_a_language_the_message_does_not_name_is_other() -> None:
    assert other_language(frozenset({"java"}), frozenset({"python"})) == "java"
    assert other_language(frozenset({"java"}), frozenset({"python", "java"})) is None
    assert other_language(frozenset({"java"}), frozenset()) is None
    assert other_language(frozenset(), frozenset({"python"})) is None


@pytest.fixture(scope="module")
def router() -> SkillRouter:
    return SkillRouter((
        make_skill("java-connection-pools", "Database connection pools: sizing, leaks and timeouts in drivers."),
        make_skill("python-resource-management", "Close what you open: files, sockets and database sessions."),
    ))


def test_a_python_message_weighs_a_java_skill_down(router: SkillRouter) -> None:
    plain = router.route("db connections keep leaking from the pool in our service")
    java_plain = next(c for c in plain.candidates if c.skill.name == "java-connection-pools")
    assert java_plain.confidence == "high"  # no language named: no penalty
    python = router.route("db connections keep leaking from the pool in our python service")
    java = next(c for c in python.candidates if c.skill.name == "java-connection-pools")
    assert "penalty:for_another_language=java" in java.reasons
    assert java.score <= round(java_plain.score * OTHER_LANGUAGE_SHARE) + 2 and java.confidence != "high"


def test_a_skill_named_in_the_message_keeps_its_score(router: SkillRouter) -> None:
    decision = router.route("java-connection-pools for our python service's db pool leak")
    java = next(c for c in decision.candidates if c.skill.name == "java-connection-pools")
    assert not any(r.startswith("penalty:for_another_language") for r in java.reasons)
