"""A reload reuses the work of unchanged skills: it must give what a build from scratch gives.

The catalog keeps parses by SKILL.md text and the router keeps each skill's terms by the
skill's value; only the global sums are redone. Each test changes skills on disk,
rebuilds with the caches warm, then clears them and builds again from scratch: the
catalogs, the routing indexes (every weight, bit for bit) and the routes must be equal.
"""

from __future__ import annotations

import json
import os
import shutil
from collections import Counter
from pathlib import Path

import pytest

from proxy.core.catalog.catalog import Catalog, load_catalog
from proxy.core.catalog.loader import clear_parse_cache
from proxy.core.catalog.skill import Skill
from proxy.core.routing.router import SkillRouter
from proxy.core.routing.term_index import FIELD_WEIGHTS, RoutingIndex, _average_lengths, _plain_pseudo_tf, _pseudo_tf
from proxy.core.routing.terms import FIELDS, clear_term_cache, skill_fields, skill_terms
from tests.conftest import SHARED, corpus_roots

SKILL = "---\nname: {name}\ndescription: {desc}\n---\n# {name}\n\n{body}\n"
QUERIES = (
    "reconcile the bank statement against the general ledger",
    "audit supplier invoices for duplicate payments",
    "write a cypher query for a neo4j graph",
    "speed up a slow postgres query",
    "plan a product launch email sequence",
    "fix the failing github actions ci run",
    "rotate the quarterly payroll export",
)


def write(root: Path, name: str, desc: str, body: str = "## Steps\nFollow the steps.") -> Path:
    (root / name).mkdir(parents=True, exist_ok=True)
    path = root / name / "SKILL.md"
    path.write_text(SKILL.format(name=name, desc=desc, body=body), encoding="utf-8")
    return path


def index_state(index: RoutingIndex) -> dict:
    """Everything routing reads from an index, as plain values (weights as exact floats)."""
    return {
        "skills": index.skills,
        "postings": dict(index.postings),
        "idf": dict(index.idf),
        "features": [(f.name_norm, f.name_terms, f.distinctive, f.excluded, dict(f.matches.items()))
                     for f in index.features],
        "by_name": dict(index.by_name),
        "name_heads": index.name_heads,
        "fuzzy_vocab": dict(index.fuzzy_vocab),
    }


def routes(router: SkillRouter, queries: tuple[str, ...]) -> list:
    decisions = [router.route(q) for q in queries]
    return [([(c.skill.name, c.score, c.confidence, c.reasons) for c in d.candidates],
             [c.skill.name for c in d.selected]) for d in decisions]


def catalog_state(catalog: Catalog) -> list:
    return [(skill, skill.metadata) for skill in catalog.all_skills()] + [catalog.skipped]


def from_scratch(roots: list[str]) -> tuple[Catalog, SkillRouter]:
    clear_parse_cache()
    clear_term_cache()
    catalog = load_catalog(roots)
    return catalog, SkillRouter(catalog.skills)


def assert_same_as_from_scratch(roots: list[str], previous: Catalog, queries: tuple[str, ...]) -> SkillRouter:
    warm_catalog = load_catalog(roots, previous=previous)
    warm = SkillRouter(warm_catalog.skills)
    warm_routes = routes(warm, queries)
    fresh_catalog, fresh = from_scratch(roots)
    assert catalog_state(warm_catalog) == catalog_state(fresh_catalog)
    assert index_state(warm.index) == index_state(fresh.index)
    assert warm_routes == routes(fresh, queries)
    return warm


@pytest.fixture
def root(tmp_path: Path) -> Path:
    base = tmp_path / "skills"
    write(base, "invoice-audit", "Audit supplier invoices for duplicate payments and wrong VAT.")
    write(base, "bank-reconcile", "Reconcile bank statement lines against the general ledger. "
                                  "For invoice checks, see invoice-audit.")
    write(base, "payroll-export", "Export payroll runs to the accounting system.",
          "## When to use\nMonthly payroll closes.\n\n## When not to use\nExpense reports.")
    return base


def test_an_edit_a_new_skill_and_a_removal_give_what_a_fresh_build_gives(root: Path) -> None:
    roots = [str(root)]
    catalog, before = from_scratch(roots)
    SkillRouter(catalog.skills)  # the caches hold every skill now
    write(root, "payroll-export", "Export payroll runs and quarterly payroll reports to the accounting system.")
    write(root, "ledger-close", "Close the month in the general ledger. For bank lines, see bank-reconcile.")
    shutil.rmtree(root / "invoice-audit")
    after = assert_same_as_from_scratch(roots, catalog, QUERIES)
    assert routes(after, QUERIES) != routes(before, QUERIES)  # the change did reach routing


def test_a_body_only_edit_reaches_the_index(root: Path) -> None:
    roots = [str(root)]
    catalog, before = from_scratch(roots)
    write(root, "payroll-export", "Export payroll runs to the accounting system.",
          "## When to use\nMonthly payroll closes and the quarterly zebracount export.")
    after = assert_same_as_from_scratch(roots, catalog, (*QUERIES, "zebracount export"))
    assert not before.index.knows("zebracount")
    assert after.index.knows("zebracount")


def test_a_same_size_edit_with_the_old_mtime_is_still_seen(root: Path) -> None:
    """Reuse is by content, never by (mtime, size): an edit that keeps both still shows."""
    path = root / "invoice-audit" / "SKILL.md"
    catalog, _ = from_scratch([str(root)])
    stat = path.stat()
    path.write_text(path.read_text(encoding="utf-8").replace("wrong VAT", "wrong TAX"), encoding="utf-8")
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert path.stat().st_size == stat.st_size
    reloaded = load_catalog([str(root)], previous=catalog)
    assert "wrong TAX" in reloaded.get("invoice-audit").description
    assert SkillRouter(reloaded.skills).index.knows("tax")


def test_a_skill_that_becomes_referred_to_is_reweighed(root: Path) -> None:
    """The "referred" field depends on other skills: a skill gaining one must not keep its cached sums."""
    roots = [str(root)]
    catalog, _ = from_scratch(roots)
    write(root, "invoice-audit", "Audit supplier invoices. For salary slips, see payroll-export.")
    after = assert_same_as_from_scratch(roots, catalog, (*QUERIES, "salary slips"))
    payroll = [skill.name for skill in after.index.skills].index("payroll-export")
    assert after.index.features[payroll].matches["salary"].fields == ("referred",)


def test_reasons_name_fields_in_the_weights_order() -> None:
    assert tuple(FIELD_WEIGHTS) == FIELDS


def assert_cached_sums_are_the_plain_sums(skills: tuple[Skill, ...]) -> None:
    """Each skill's cached counts are `skill_fields` counted, and the shortcut sum (fresh terms set in
    one update, repeats added) gives the plain term-by-term sum: same terms, same order, same bits."""
    analysed = [skill_terms(skill) for skill in skills if skill.model_invocable]
    avg = _average_lengths([a.fields for a in analysed])
    for skill, a in zip([s for s in skills if s.model_invocable], analysed):
        plain = skill_fields(skill, a.body)
        del plain["referred"]
        assert [(f.field, f.counts, f.length) for f in a.fields] == [
            (k, tuple(Counter(words).items()), len(words)) for k, words in plain.items()]
        shortcut, where = _pseudo_tf(a, None, avg)
        summed, summed_where = _plain_pseudo_tf(a.fields, avg)
        assert list(shortcut.items()) == list(summed.items())
        assert dict(where) == summed_where


def test_the_cached_shortcut_sums_what_the_plain_sum_does(root: Path) -> None:
    write(root, "payroll-export", "Export payroll runs. Payroll exports, payroll reports.",
          "## Payroll\nPayroll export steps for the payroll team.\n\n## When to use\nPayroll closes.")
    assert_cached_sums_are_the_plain_sums(load_catalog([str(root)]).skills)


@pytest.mark.shared_corpus
def test_one_change_among_the_corpus_skills_gives_what_a_fresh_build_gives(root: Path) -> None:
    """At real size (396 corpus skills beside three of ours), over every dev-set prompt."""
    roots = [str(root), *corpus_roots()]
    queries = tuple(json.loads(line)["text"] for line in (SHARED / "eval" / "dev.jsonl").read_text().splitlines())
    catalog, _ = from_scratch(roots)
    write(root, "bank-reconcile", "Reconcile bank statement lines and card settlements against the general ledger.")
    write(root, "seo-audit-lite", "Audit a page for SEO: titles, meta descriptions, headings.")
    assert_same_as_from_scratch(roots, catalog, queries + QUERIES)
    assert_cached_sums_are_the_plain_sums(catalog.skills)
