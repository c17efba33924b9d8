"""How many words of a message a skill's evidence stands for (the breadth rule)."""

from __future__ import annotations

from proxy.core.routing.evidence import _breadth


def test_a_phrase_of_another_language_counts_its_words() -> None:
    # "rencana pemasaran" (Indonesian: marketing plan) is two words, as "marketing plan" is
    assert _breadth({"rencana pemasaran"}) == 2
    assert _breadth({"rencana pemasaran", "rencana", "kopi"}) == 3  # a word is counted once


def test_an_english_table_phrase_stays_one_word() -> None:
    assert _breadth({"soc 2"}) == 1
