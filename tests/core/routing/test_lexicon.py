"""The multilingual lexicon: lookups by word form, accents, phrases and CJK substrings."""

from __future__ import annotations

import tomllib
from fnmatch import fnmatch
from importlib import resources
from pathlib import Path

import pytest

from proxy.core.routing import lexicon
from proxy.core.routing.lexicon import (
    LANGUAGES,
    LEXICON,
    build_lexicon,
    fold_accents,
    indonesian_roots,
    is_turkish_suffix_chain,
    may_be_turkish,
    parse_entries,
    read_entries,
)
from proxy.core.routing.tokens import CJK_RUN

PYPROJECT = Path(__file__).resolve().parents[3] / "pyproject.toml"


def test_entries_parse_into_one_key_each_and_later_lines_add_words() -> None:
    table = parse_entries("# comment\na, B = one\nb = two\nnot an entry\nc = one\nc = one two\n")
    assert table == {"a": "one", "b": "one two", "c": "one two"}


def test_a_key_written_with_joiners_is_kept_as_the_words_a_message_is_split_into() -> None:
    assert parse_entries("E-Mail, mô-đun = x") == {"e mail": "x", "mô đun": "x"}
    assert "email" in LEXICON.lookup_phrase(["per", "e", "mail"], 1)[1]  # type: ignore[index]


def test_inflected_forms_find_the_listed_word() -> None:
    assert LEXICON.lookup_word("datenbanken") == LEXICON.lookup_word("datenbank")
    assert LEXICON.lookup_word("consultas") == LEXICON.lookup_word("consulta")


def test_accents_may_be_left_out() -> None:
    assert fold_accents("migración") == "migracion" and fold_accents("déploiement") == "deploiement"
    assert LEXICON.lookup_word("migracion") == LEXICON.lookup_word("migración") is not None


def test_letters_without_a_separable_mark_fold_too() -> None:
    assert fold_accents("veritabanı") == "veritabani"  # Turkish dotless ı
    assert fold_accents("đồ thị") == "do thi"  # Vietnamese đ
    assert fold_accents("błąd") == "blad"  # Polish ł
    assert LEXICON.lookup_word("veritabani") == LEXICON.lookup_word("veritabanı") is not None


def test_portuguese_plurals_and_conjugations_find_the_listed_word() -> None:
    assert LEXICON.lookup_word("migrações") == LEXICON.lookup_word("migração") is not None
    assert LEXICON.lookup_word("otimizamos") == LEXICON.lookup_word("otimizar") is not None
    assert LEXICON.lookup_word("planilhas") == LEXICON.lookup_word("planilha") is not None
    assert LEXICON.lookup_word("saudades") is None


def test_italian_plurals_and_conjugations_find_the_listed_word() -> None:
    assert LEXICON.lookup_word("migrazioni") == LEXICON.lookup_word("migrazione") is not None
    assert LEXICON.lookup_word("ottimizziamo") == LEXICON.lookup_word("ottimizzare") is not None
    assert LEXICON.lookup_word("tabelle") == LEXICON.lookup_word("tabella") is not None
    assert LEXICON.lookup_word("ragazzi") is None


@pytest.mark.parametrize(("form", "listed"), [
    ("configurarlo", "configurare"), ("ottimizzarla", "ottimizzare"), ("correggerlo", "correggere"),
    ("spiegami", "spiegare"), ("analizzane", "analizzare"),  # Italian infinitives and imperatives
    ("optimizarla", "optimizar"), ("migrarlos", "migrar"), ("explícame", "explicar"), ("tradúcelo", "traducir"),
])
def test_a_verb_with_a_pronoun_written_onto_it_finds_the_listed_verb(form: str, listed: str) -> None:
    found, english = LEXICON.lookup_word(form, turkish=False), LEXICON.lookup_word(listed, turkish=False)
    # its own language's English (a key other tables list too has theirs joined to it)
    assert found and english and set(found.split()) <= set(english.split())


@pytest.mark.parametrize("word", ["normale", "gestionale", "portatile", "piccolo", "personales", "pasarlo"])
def test_a_noun_or_adjective_that_ends_like_a_pronoun_is_no_verb_with_one(word: str) -> None:
    # normale is no norma with le, piccolo no picco with lo; pasar is Indonesian (market), not a Spanish word
    assert LEXICON.lookup_word(word, turkish=False) is None


def test_polish_cases_and_conjugations_find_the_listed_word() -> None:
    assert LEXICON.lookup_word("plików") == LEXICON.lookup_word("plik") is not None
    assert LEXICON.lookup_word("optymalizuje") == LEXICON.lookup_word("optymalizować") is not None
    assert LEXICON.lookup_word("tabelę") == LEXICON.lookup_word("tabela") is not None
    assert LEXICON.lookup_word("kotów") is None


def test_turkish_words_are_stripped_of_stacked_suffixes() -> None:
    assert is_turkish_suffix_chain("larindan") and is_turkish_suffix_chain("i")  # lar+in+dan
    assert not is_turkish_suffix_chain("base") and not is_turkish_suffix_chain("lerlerlerlerler")  # at most four
    assert LEXICON.lookup_word("veritabanından") == LEXICON.lookup_word("veritabanı") is not None
    assert LEXICON.lookup_word("VERİTABANINDAN".casefold()) is not None  # dotted capital İ
    assert LEXICON.lookup_word("dosyalarını") == LEXICON.lookup_word("dosya") is not None
    assert LEXICON.lookup_word("düzeltir") == LEXICON.lookup_word("düzeltmek") is not None  # a verb stem
    assert LEXICON.lookup_word("kitaplarından") is None


def test_turkish_suffixes_are_stripped_only_in_a_message_that_may_be_turkish() -> None:
    assert LEXICON.lookup_word("deporte") and LEXICON.lookup_word("dónde")  # Turkish depo+rte, don+de (freeze)
    assert not LEXICON.lookup_word("deporte", turkish=False) and not LEXICON.lookup_word("dónde", turkish=False)
    assert not LEXICON.lookup_word("dosyalarını", turkish=False)
    assert LEXICON.lookup_word("tabelę", turkish=False) is not None  # other languages' endings still count
    assert not may_be_turkish("dónde puedo poner la tabla en mi proyecto".split())  # Spanish, no Turkish sign
    assert not may_be_turkish("what do you think about this".split())
    assert may_be_turkish("bu hafta veritabanını yedekle".split())  # bu: a Turkish function word
    assert may_be_turkish("veritabanı yedeği la de".split())  # a Turkish letter
    assert may_be_turkish("veritabani yedegi".split())  # too few words to tell: Turkish stays possible
    assert may_be_turkish("hitung jam terbit dan ubah koordinatnya".split())  # Indonesian shares its loanwords


def test_indonesian_words_are_looked_up_without_their_affixes() -> None:
    assert "uji" in indonesian_roots("pengujian") and "simpan" in indonesian_roots("menyimpan")
    assert LEXICON.lookup_word("pengujian") == LEXICON.lookup_word("uji") is not None


def test_an_indonesian_verb_finds_its_listed_noun_in_an() -> None:
    # only the nouns cadangan (backup) and serangan (attack) are listed; their verbs find them
    assert LEXICON.lookup_word("mencadangkan") == LEXICON.lookup_word("cadangan") is not None
    assert LEXICON.lookup_word("penyerang") == LEXICON.lookup_word("serangan") is not None
    assert LEXICON.lookup_word("sering") is None  # se- makes adverbs: sering (often) is not ringan (light)
    assert LEXICON.lookup_word("menyimpan") == LEXICON.lookup_word("simpan") is not None
    assert LEXICON.lookup_word("dioptimalkan") == LEXICON.lookup_word("optimalkan") is not None
    assert LEXICON.lookup_word("makanan") is None


def test_vietnamese_phrases_match_with_and_without_diacritics() -> None:
    words = "tối ưu cơ sở dữ liệu".split()
    assert LEXICON.lookup_phrase(words, 2) == ("cơ sở dữ liệu", LEXICON.words["cơ sở dữ liệu"])
    bare = fold_accents(" ".join(words)).split()
    assert LEXICON.lookup_phrase(bare, 2) == ("co so du lieu", LEXICON.words["cơ sở dữ liệu"])
    assert LEXICON.lookup_phrase("cơ sở vật chất".split(), 0) is None


def test_a_language_s_endings_reach_only_its_own_words() -> None:
    # `importar` (es, pt) has the stem `import`, `marke` (de) is listed: English words that look
    # like their inflected forms must not find them.
    for english in ("important", "conversation", "market", "applies", "controller"):
        assert LEXICON.lookup_word(english) is None, english


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


def test_a_short_korean_key_is_read_only_where_a_word_starts() -> None:
    assert "정의" in dict(LEXICON.lookup_cjk("정의를"))  # definition, and its particle
    assert "정의" not in dict(LEXICON.lookup_cjk("가정의학"))  # family medicine: 가정 + 의학
    # a compound written together still reads key after key; a longer key anywhere
    assert list(dict(LEXICON.lookup_cjk("데이터베이스마이그레이션"))) == ["데이터베이스", "마이그레이션"]
    assert "마이그레이션" in dict(LEXICON.lookup_cjk("신규마이그레이션"))


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


def test_a_turkish_phrase_is_found_with_its_last_word_inflected() -> None:
    words = "veri tabanından kod incelemesini".split()
    assert LEXICON.lookup_phrase(words, 0) is not None and LEXICON.lookup_phrase(words, 2) is not None
    assert LEXICON.lookup_word("hazırlıyorum") == LEXICON.lookup_word("hazırlamak") is not None  # hazırla less its a


def test_a_word_with_accents_does_not_meet_english_shorthand() -> None:
    assert LEXICON.lookup_word("roi") is not None and LEXICON.lookup_word("rối") is None  # Vietnamese, not ROI
    assert LEXICON.lookup_word("lỗi") is not None  # a lone Vietnamese syllable with its tone marks


def test_polish_adjectives_and_bare_genitive_plurals_find_the_listed_word() -> None:
    assert LEXICON.lookup_word("produkcyjnych") == LEXICON.lookup_word("produkcyjny") is not None
    assert LEXICON.lookup_word("metryk") == LEXICON.lookup_word("metryka") is not None


def test_two_one_letter_turkish_suffixes_never_follow_each_other() -> None:
    assert is_turkish_suffix_chain("unu") and not is_turkish_suffix_chain("nnya")
    assert not LEXICON.lookup_word("temannya")  # Indonesian, not the Turkish tema
