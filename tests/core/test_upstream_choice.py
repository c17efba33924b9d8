"""Choosing an upstream by model pattern, and merging model lists: pure, no servers."""

from __future__ import annotations

import pytest

from proxy.core.upstream_choice import ModelRoute, choose_upstream, describe_routes, merge_model_lists

ROUTES = (
    ModelRoute("lmstudio", ("qwen*", "lmstudio-community/*")),
    ModelRoute("ollama", ("llama3*", "gemma*:*")),
)


@pytest.mark.parametrize("model, expected", [
    ("qwen2.5-7b-instruct", "lmstudio"),
    ("lmstudio-community/Meta-Llama-3-8B-Instruct-GGUF", "lmstudio"),  # `*` crosses `/`; first match wins
    ("llama3.2:1b", "ollama"),
    ("llama3", "ollama"),
    ("gemma3:4b", "ollama"),
    ("gemma3", None),  # `gemma*:*` needs a tag
    ("mistral-7b", None),
    ("", None),
])
def test_the_first_upstream_whose_pattern_matches_serves_the_model(model, expected):
    assert choose_upstream(ROUTES, model) == expected


def test_patterns_ignore_case():
    assert choose_upstream(ROUTES, "Qwen2.5-7B-Instruct") == "lmstudio"
    assert choose_upstream(ROUTES, "LLAMA3.1:8B") == "ollama"


def test_a_pattern_matches_the_whole_name_not_a_part():
    assert choose_upstream(ROUTES, "my-qwen2.5") is None
    assert choose_upstream((ModelRoute("exact", ("gpt-4o",)),), "gpt-4o-mini") is None


def test_order_decides_between_overlapping_patterns_and_a_catch_all_takes_the_rest():
    routes = (ModelRoute("special", ("qwen2.5-coder*",)), ModelRoute("rest", ("*",)))
    assert choose_upstream(routes, "qwen2.5-coder-7b") == "special"
    assert choose_upstream(routes, "anything-else") == "rest"


@pytest.mark.parametrize("model", [None, 42, ["qwen"], {"id": "qwen"}])
def test_a_request_without_a_text_model_goes_to_the_first_upstream(model):
    assert choose_upstream(ROUTES, model) == "lmstudio"


def test_no_routes_choose_nothing():
    assert choose_upstream((), "qwen") is None


def test_character_classes_and_single_characters():
    routes = (ModelRoute("small", ("phi-[34]-mini", "gemma?")),)
    assert choose_upstream(routes, "phi-3-mini") == "small" and choose_upstream(routes, "gemma2") == "small"
    assert choose_upstream(routes, "phi-5-mini") is None and choose_upstream(routes, "gemma") is None


def test_routes_are_described_for_a_person():
    assert describe_routes(ROUTES) == "lmstudio (qwen*, lmstudio-community/*); ollama (llama3*, gemma*:*)"


def test_model_lists_merge_in_order_each_id_once_entries_untouched():
    first = [{"id": "qwen2.5-7b", "object": "model", "owned_by": "organization_owner"}, {"id": "shared"}]
    second = [{"id": "shared", "owned_by": "library"}, {"id": "llama3.2:1b", "object": "model", "owned_by": "library"}]
    merged = merge_model_lists([first, second])
    assert merged == [first[0], {"id": "shared"}, second[1]]
    assert merged[0] is first[0], "entries are passed on, not rebuilt"


def test_entries_without_a_text_id_are_kept_and_not_deduplicated():
    odd = [{"name": "no-id"}, "text", {"id": 7}]
    assert merge_model_lists([odd, odd]) == odd + odd
    assert merge_model_lists([]) == [] and merge_model_lists([[], [{"id": "a"}]]) == [{"id": "a"}]
