"""International words of languages without a lexicon table, spelt the English way."""

from __future__ import annotations

from proxy.core.routing.cognates import english_spellings


def test_foreign_endings_become_english_ones() -> None:
    assert english_spellings("documentatie")[0] == "documentation"  # nl
    assert "documentation" in english_spellings("dokumentace")  # cs, k → c
    assert "presentation" in english_spellings("prezentare")  # ro, z → s
    assert "visualization" in english_spellings("visualisering")  # sv
    assert english_spellings("securitate")[0] == "security"  # ro
    assert "function" in english_spellings("functie")  # nl


def test_short_accented_and_unrelated_words_give_no_spelling() -> None:
    assert english_spellings("kod") == ()
    assert english_spellings("databáze") == ()  # callers fold accents first
    assert english_spellings("vertaling") == ()


def test_words_a_table_lacks_are_spelt_the_english_way_too() -> None:
    assert english_spellings("validasyon")[0] == "validation"  # tr
    assert "tokenization" in english_spellings("tokenisasi")  # id
    assert english_spellings("replicacao")[0] == "replication"  # pt, folded from replicação


def test_turkish_and_indonesian_letters_of_greek_and_latin_words() -> None:
    assert "symbolic" in english_spellings("sembolik")  # tr: -ik is -ic, se/si is sy
    assert "symbolic" in english_spellings("simbolik")  # id
    assert "systematic" in english_spellings("sistematik")
    assert "interactive" in english_spellings("interaktif")  # -if is -ive
    assert "graphic" in english_spellings("grafik")  # f is ph
    assert "complex" in english_spellings("kompleks")  # ks is x
    assert "certification" in english_spellings("sertifikasi")  # an opening s is a c


def test_romance_endings_a_table_lacks() -> None:
    assert english_spellings("transiciones")[0] == "transitions"  # es -ciones
    assert english_spellings("severidad")[0] == "severity"  # es -idad
    assert english_spellings("minimalista")[0] == "minimalist"
    assert english_spellings("alternativo")[0] == "alternative"
    assert english_spellings("automaticamente")[0] == "automatically"  # folded from automáticamente
    assert english_spellings("visualizzazione")[0] == "visualization"  # it -izzazione
    assert english_spellings("qualita")[0] == "quality"  # it -ità, folded
    assert english_spellings("securite")[0] == "security"  # fr -ité, folded
    assert "specification" in english_spellings("especificacion")  # es: the e before s and a consonant goes


def test_a_borrowed_word_declined_the_slavic_way_finds_its_english_spelling() -> None:
    assert "tiktok" in english_spellings("tiktoku")  # pl: na TikToku
    assert "modal" in english_spellings("modalu")
    assert "server" in english_spellings("serwerze")  # w is v, -ze a locative
    assert "simulator" in english_spellings("symulatorze")  # sy is si
    assert "computer" in english_spellings("komputerze")
    assert "grover" in english_spellings("groverem")  # -em an instrumental
    assert english_spellings("menu") == ()  # short words pass untouched


def test_polish_adjectives_in_ywny_and_yczny() -> None:
    assert "generative" in english_spellings("generatywny")
    assert "interactive" in english_spellings("interaktywna")
    assert english_spellings("automatyczny")[0] == "automatic"
    assert english_spellings("dynamiczne")[0] == "dynamic"
