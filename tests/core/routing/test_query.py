"""From a message to weighted query terms: direct words, phrases, lexicon and typo repair."""

from __future__ import annotations

from pathlib import Path

from proxy.core.catalog.skill import Skill
from proxy.core.routing.query import query_terms
from proxy.core.routing.term_index import build_index
from proxy.core.routing.tokens import stem


def make(name: str, description: str) -> Skill:
    return Skill(name=name, description=description, folder=Path("/s") / name, root="/s", location=name)


INDEX = build_index([make("grafana-dashboards", "Build Grafana dashboards for latency."),
                     make("db-tuning", "Slow queries.")])


def by_term(text: str) -> dict[str, tuple[float, str]]:
    return {t.term: (t.weight, t.via) for t in query_terms(text, INDEX)}


def test_written_words_come_first_at_full_weight() -> None:
    found = by_term("grafana latency")
    assert found["grafana"] == (1.0, "") and found[stem("latency")] == (1.0, "")


def test_lexicon_terms_say_which_word_they_came_from() -> None:
    weight, via = by_term("数据库")[stem("database")]
    assert via == "lexicon:数据库" and weight > 0


def test_a_typo_is_repaired_once_and_remembered() -> None:
    found = by_term("grafana dashbaord")
    repaired = [t for t, (_, via) in found.items() if via == "fuzzy:dashbaord"]
    assert repaired and INDEX.typo_cache["dashbaord"] == repaired[0]
    assert by_term("grafana dashbaord") == found


def test_words_of_the_catalog_are_never_repaired() -> None:
    assert not any(via.startswith("fuzzy:") for _, via in by_term("grafana dashboards").values())


COGNATE_INDEX = build_index([make("doc-writer", "Write documentation and presentations; migration notes."),
                             make("security-review", "Security review of dashboards.")])


def test_an_international_word_of_a_language_without_a_table_reaches_its_english_term() -> None:
    for word in ("dokumentace", "documentatie", "dokumentasjon", "documentație"):  # cs, nl, no, ro
        found = {t.term: t.via for t in query_terms(f"{word} nodig", COGNATE_INDEX)}
        assert found.get(stem("documentation")) == f"cognate:{word}", word
    found = {t.term: t.via for t in query_terms("securitate", COGNATE_INDEX)}
    assert found.get(stem("security")) == "cognate:securitate"


def test_words_the_lexicon_read_do_not_use_up_the_international_spellings() -> None:
    # eight Spanish words the lexicon reads, none a catalog word, before a Dutch one it does not
    text = "despliegue rendimiento servidor contraseña producción pruebas errores registros documentatie"
    found = {t.term: t.via for t in query_terms(text, COGNATE_INDEX)}
    assert found.get(stem("documentation")) == "cognate:documentatie"


def test_a_spelling_the_index_does_not_hold_adds_nothing() -> None:
    found = query_terms("optimalisatie vertaling", COGNATE_INDEX)
    assert not any(t.via.startswith("cognate:") for t in found)


def test_an_accented_typo_is_repaired_like_a_plain_one() -> None:
    found = {t.term: t.via for t in query_terms("grafana dashbóards", INDEX)}
    assert any(via == "fuzzy:dashbóards" for via in found.values())


def test_a_short_word_one_letter_from_a_catalog_name_is_not_taken_for_a_typo() -> None:
    index = build_index([make("launch", "Plan a product launch."), make("kubernetes-deploy", "Deploy to clusters.")])
    assert not any(t.via.startswith("fuzzy:") for t in query_terms("team lunch ideas", index))  # lunch ≠ launch
    found = {t.term: t.via for t in query_terms("kuberentes deploy", index)}
    assert found.get(stem("kubernetes")) == f"fuzzy:{stem('kuberentes')}"
