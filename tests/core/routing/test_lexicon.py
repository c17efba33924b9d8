"""The multilingual lexicon: lookups by word form, accents, phrases and CJK substrings."""

from __future__ import annotations

from proxy.core.routing.lexicon import LEXICON, build_lexicon, fold_accents, parse_entries


def test_entries_parse_into_one_key_each_and_later_lines_add_words() -> None:
    table = parse_entries("# comment\na, B = one\nb = two\nnot an entry\n")
    assert table == {"a": "one", "b": "one two"}


def test_inflected_forms_find_the_listed_word() -> None:
    assert LEXICON.lookup_word("datenbanken") == LEXICON.lookup_word("datenbank")
    assert LEXICON.lookup_word("consultas") == LEXICON.lookup_word("consulta")


def test_accents_may_be_left_out() -> None:
    assert fold_accents("migración") == "migracion" and fold_accents("déploiement") == "deploiement"
    assert LEXICON.lookup_word("migracion") == LEXICON.lookup_word("migración") is not None


def test_conjugated_verbs_find_their_infinitive() -> None:
    assert LEXICON.lookup_word("optimizamos") == LEXICON.lookup_word("optimizar") is not None
    assert LEXICON.lookup_word("optimiert") == LEXICON.lookup_word("optimieren") is not None


def test_short_and_unknown_words_find_nothing() -> None:
    assert LEXICON.lookup_word("bonjour") is None
    assert LEXICON.lookup_word("xyzzy") is None


def test_the_longest_listed_phrase_wins() -> None:
    words = "our red build failed again".split()
    assert LEXICON.lookup_phrase(words, 1) == ("red build", LEXICON.words["red build"])
    assert LEXICON.lookup_phrase(words, 0) is None


def test_cjk_runs_take_the_longest_listed_substrings() -> None:
    found = dict(LEXICON.lookup_cjk("单元测试覆盖率"))
    assert "单元测试" in found and "覆盖率" in found
    assert "测试" not in found


def test_english_shorthand_expands() -> None:
    assert "kubernetes" in LEXICON.lookup_word("k8s")
    assert "performance" in LEXICON.lookup_word("slow")


def test_building_twice_gives_the_same_lexicon() -> None:
    again = build_lexicon()
    assert dict(again.words) == dict(LEXICON.words) and dict(again.cjk) == dict(LEXICON.cjk)
