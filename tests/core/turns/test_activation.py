import pytest

from proxy.core.turns.activation import extract_tokens, find_activations, remove_tokens, substitute_arguments
from tests.core.skill_factory import write_catalog


@pytest.fixture
def catalog(tmp_path):
    return write_catalog(tmp_path / "skills", extra_frontmatter={"release-notes": "user-invocable: false\n"})


def test_token_pattern_and_dedup():
    assert extract_tokens("$pdf-tools and $PDF-TOOLS, x$pdf, $a, $sql.v2 then $pdf-tools") == ["pdf-tools", "sql.v2"]
    assert extract_tokens("cost is $5 or $_x or $Upper") == []


def test_resolves_names_and_builds_payload(catalog):
    request = find_activations("$pdf-tools  merge a.pdf and b.pdf\n\n\n\nthanks", catalog)
    [activation] = request.activations
    assert activation.skill.name == "pdf-tools" and activation.token == "$pdf-tools"
    assert request.payload == "merge a.pdf and b.pdf\n\nthanks"


def test_trailing_punctuation_is_not_part_of_the_name(catalog):
    request = find_activations("please use $pdf-tools.", catalog)
    assert request.resolved[0].skill.name == "pdf-tools"
    assert request.payload == "please use ."


@pytest.mark.parametrize("text", ["echo $home", "what is in $path", "set $var to 3", "export $lang=en"])
def test_shell_variables_stay_plain_text(catalog, text):
    assert find_activations(text, catalog) is None


def test_near_miss_is_unresolved_with_closest_names(catalog):
    request = find_activations("$pdf-tool merge these", catalog)
    [activation] = request.activations
    assert activation.skill is None and activation.suggestions[0] == "pdf-tools"
    assert request.payload == "merge these"


def test_user_invocable_false_cannot_be_activated(catalog):
    assert find_activations("$release-notes for v2", catalog) is None
    assert find_activations("/release-notes v2", catalog) is None


def test_slash_activation_at_start_only(catalog):
    request = find_activations("/pdf-tools merge a and b", catalog)
    assert request.resolved[0].token == "/pdf-tools" and request.payload == "merge a and b"
    assert find_activations("see /etc/hosts and /pdf-tools", catalog) is None
    assert find_activations("/unknown do things", catalog) is None
    assert find_activations("/pdf-tools merge", catalog, slash=False) is None


def test_remove_tokens_keeps_other_dollar_words():
    assert remove_tokens("$a-b run $HOME $other", ["$a-b"]) == "run $HOME $other"


def test_arguments_substitution():
    assert substitute_arguments("Do: $ARGUMENTS.", "merge files") == "Do: merge files."
