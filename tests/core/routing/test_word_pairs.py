"""Two kinds of word met in one sentence, in any order, of one language."""

from __future__ import annotations

from proxy.core.routing.word_pairs import pair_in, word_pairs

PAIRS = word_pairs((("you u", "think prefer"), ("ты тебе", "думаешь нравится")))


def test_a_pair_is_met_in_any_order_and_the_first_words_are_named() -> None:
    assert pair_in(PAIRS, frozenset("which do you prefer svelte or vue".split())) == ("you", "prefer")
    assert pair_in(PAIRS, frozenset("что больше нравится тебе".split())) == ("тебе", "нравится")


def test_two_words_of_different_pairs_meet_no_pair() -> None:
    assert pair_in(PAIRS, frozenset("you нравится".split())) is None  # two languages
    assert pair_in(PAIRS, frozenset("think about it".split())) is None
    assert PAIRS.firsts == frozenset({"you", "u", "ты", "тебе"})
