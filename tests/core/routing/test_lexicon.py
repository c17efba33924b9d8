"""The multilingual lexicon: lookups by word form, accents, phrases and CJK substrings."""

from __future__ import annotations

import tomllib
from fnmatch import fnmatch
from importlib import resources
from pathlib import Path

from proxy.core.routing import lexicon
from proxy.core.routing.lexicon import LANGUAGES, LEXICON, build_lexicon, fold_accents, parse_entries, read_entries
from proxy.core.routing.tokens import CJK_RUN

PYPROJECT = Path(__file__).resolve().parents[3] / "pyproject.toml"


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


def test_every_language_has_a_data_file_that_loads_with_entries() -> None:
    shipped = sorted(p.name for p in (resources.files(lexicon) / "data").iterdir() if p.name.endswith(".txt"))
    assert shipped == sorted(f"{language}.txt" for language in LANGUAGES)
    for language in LANGUAGES:
        assert len(parse_entries(read_entries(language))) > 100, language


def test_the_data_files_are_declared_as_package_data_so_an_installed_package_has_them() -> None:
    config = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"][lexicon.__name__]
    for language in LANGUAGES:
        assert any(fnmatch(f"data/{language}.txt", pattern) for pattern in patterns), language


def test_the_loaded_tables_hold_entries_from_each_language() -> None:
    assert "kubernetes" in LEXICON.words["k8s"]  # en
    assert "database" in LEXICON.words["datenbank"]  # de
    assert "query" in LEXICON.words["consulta"]  # es
    assert "deployment" in LEXICON.words["déploiement"]  # fr
    assert "database" in LEXICON.cjk["数据库"] and "database" in LEXICON.cjk["資料庫"]  # zh, simplified and Taiwan
    assert "deploy" in LEXICON.cjk["デプロイ"] and "fix" in LEXICON.cjk["直し"]  # ja
    assert "deploy" in LEXICON.cjk["배포"] and "search" in LEXICON.cjk["검색"]  # ko
    assert "database" in LEXICON.words["база данных"]  # ru
    assert LEXICON.cjk["アナログ"] == ""  # ja: an empty entry blocks a shorter listed substring (ログ)


def test_korean_keys_are_found_before_a_particle() -> None:
    found = dict(LEXICON.lookup_cjk("데이터베이스를"))
    assert "database" in found["데이터베이스"]


def test_russian_forms_find_the_listed_word_through_its_stem() -> None:
    assert LEXICON.lookup_word("оптимизации") == LEXICON.lookup_word("оптимизация") is not None
    assert LEXICON.lookup_word("исправьте") == LEXICON.lookup_word("исправь") is not None
    assert LEXICON.lookup_word("данных") == LEXICON.lookup_word("данные") is not None
    assert LEXICON.lookup_word("таблиц") == LEXICON.lookup_word("таблица") is not None  # no ending at all
    assert LEXICON.lookup_word("видел") is None  # `видео` has no stem of 4+ letters that `видел` shares


def test_every_key_can_match_a_message() -> None:
    # A CJK key is looked up inside one run of CJK text, any other key among plain words: a key
    # mixing the two (`api设计`), or a CJK key with a space, would never be found.
    for language in LANGUAGES:
        for key in parse_entries(read_entries(language)):
            assert CJK_RUN.fullmatch(key) or not CJK_RUN.search(key), (language, key)
