"""Patterns searched only in a text that holds one of their trigger words."""

from __future__ import annotations

import pytest

from proxy.core.routing.triggered_patterns import first_match, holds_a_trigger, triggered

TABLE = triggered((
    (("sence", "sizce"), r"\b(?:sence|sizce)\b"),
    (("acha",), r"\bo que (?:você|vc) acha\b"),
    (("觉得",), r"你觉得"),
))


def test_a_pattern_is_found_through_its_trigger_word_or_cjk_string() -> None:
    assert first_match(TABLE, "sence yapay zeka işimizi alır mı") is not None
    assert first_match(TABLE, "o que vc acha do copilot?") is not None
    assert first_match(TABLE, "你觉得低代码有前途吗") is not None


def test_a_text_without_a_trigger_is_not_searched() -> None:
    assert not holds_a_trigger(TABLE, "what do you think about rust")
    assert first_match(TABLE, "what do you think about rust") is None
    # a trigger word alone is not a match: the pattern still has to match
    assert holds_a_trigger(TABLE, "ele acha que sim") and first_match(TABLE, "ele acha que sim") is None


def test_the_earliest_match_wins() -> None:
    match = first_match(TABLE, "o que vc acha? sizce?")
    assert match is not None and match.group() == "o que vc acha"


def test_a_trigger_that_is_no_word_of_a_text_is_refused() -> None:
    # a text's words are split at apostrophes ("qu'est-ce" is qu, est, ce): such a trigger never fires
    with pytest.raises(ValueError, match="qu'est-ce"):
        triggered(((("qu'est-ce",), r"qu'est-ce qu'un \w+"),))
