"""The deterministic router on small hand-made catalogs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from proxy.core.catalog.skill import Skill
from proxy.core.routing.router import HIGH, MEDIUM, RouteCandidate, RouteDecision, SkillRouter, confidence_for, select


def make_skill(name: str, description: str, folder: str | None = None, **extra: object) -> Skill:
    path = Path("/skills") / (folder or name)
    return Skill(name=name, description=description, folder=path, root="/skills", location=str(path / "SKILL.md"),
                 **extra)


CATALOG = (
    make_skill("gh-fix-ci", "Debug and fix failing GitHub Actions CI checks on a pull request."),
    make_skill("grafana-dashboards", "Build Grafana dashboards for service metrics, latency and error rates."),
    make_skill("k8s-deploy", "Deploy services to Kubernetes clusters with manifests, rollouts and health checks."),
    make_skill("algorithmic-art", "Generative art with p5.js sketches, flow fields and particle systems."),
    make_skill("db-tuning", "Speed up slow database queries: indexes, query plans and caching."),
    make_skill("poster-design", "生成海报和活动传单，注重排版与配色。"),
    make_skill("data_loader", "Load CSV and Parquet files into dataframes.", folder="data_loader"),
    make_skill("quantum-sim", "Simulate open quantum systems. NOT for circuit-based quantum computing or qubit gates."),
    make_skill("secret-internal", "Rotate production secrets and keys.", model_invocable=False),
)


@pytest.fixture(scope="module")
def router() -> SkillRouter:
    return SkillRouter(CATALOG)


def names(items: tuple[RouteCandidate, ...]) -> list[str]:
    return [c.skill.name for c in items]


def test_exact_name_routes_with_high_confidence(router: SkillRouter) -> None:
    decision = router.route("please run gh-fix-ci on this branch")
    assert names(decision.selected)[0] == "gh-fix-ci"
    assert decision.selected[0].confidence == "high"
    assert "exact:name=gh-fix-ci" in decision.selected[0].reasons


def test_name_written_with_spaces_or_underscores_still_counts(router: SkillRouter) -> None:
    assert names(router.route("open the grafana dashboards skill").selected)[0] == "grafana-dashboards"
    assert names(router.route("use data_loader for my csv files").selected)[0] == "data_loader"


def test_dotted_names_match(router: SkillRouter) -> None:
    decision = router.route("draw flow fields in p5.js")
    assert names(decision.selected)[0] == "algorithmic-art"
    assert any("p5.js" in r for r in decision.selected[0].reasons)


def test_word_forms_match(router: SkillRouter) -> None:
    decision = router.route("deploying our service onto the kubernetes cluster, rollout included")
    assert names(decision.selected)[0] == "k8s-deploy"


def test_typo_is_repaired_with_a_fuzzy_reason(router: SkillRouter) -> None:
    decision = router.route("grafana dashbaord for request latency")
    assert names(decision.selected)[0] == "grafana-dashboards"
    assert any(r.startswith("fuzzy:dashbaord") for r in decision.selected[0].reasons)


def test_cjk_message_matches_a_cjk_description(router: SkillRouter) -> None:
    decision = router.route("帮我做一张活动海报，配色要亮")
    assert names(decision.selected)[0] == "poster-design"


def test_lexicon_bridges_other_languages_to_english_descriptions(router: SkillRouter) -> None:
    assert names(router.route("数据库查询太慢了，需要加索引吗？").selected)[0] == "db-tuning"
    assert names(router.route("Unsere Datenbank-Abfrage ist langsam, Index?").selected)[0] == "db-tuning"


def test_no_matching_skill_selects_nothing(router: SkillRouter) -> None:
    for text in ("what's the capital of Mongolia?", "今天心情有点差，陪我聊会儿天吧", "", "   "):
        assert router.route(text).selected == ()


def test_empty_text_has_no_candidates(router: SkillRouter) -> None:
    decision = router.route("")
    assert decision.candidates == () and decision.best_rejected is None


def test_routing_is_deterministic(router: SkillRouter) -> None:
    text = "slow database queries in our kubernetes service"
    assert router.route(text) == router.route(text)
    assert SkillRouter(CATALOG).route(text) == router.route(text)


def test_ties_break_by_name() -> None:
    twins = [make_skill(n, "Convert markdown tables to spreadsheets.") for n in ("zeta-tables", "alpha-tables")]
    ranked = SkillRouter(twins).search("convert markdown tables to spreadsheets")
    assert names(ranked) == ["alpha-tables", "zeta-tables"]
    assert ranked[0].score == ranked[1].score


def test_at_most_three_are_selected() -> None:
    clones = [make_skill(f"pdf-tool-{c}", "Merge, split and fill PDF forms and extract PDF text.") for c in "abcde"]
    router = SkillRouter(clones)
    text = "merge and split PDF forms, extract the PDF text"
    assert len(router.route(text).selected) == 3
    assert len(router.route(text, max_selected=5).selected) == 3
    assert len(router.route(text, max_selected=1).selected) == 1
    assert len(router.route(text).candidates) == 5


def fake(name: str, score: int) -> RouteCandidate:
    return RouteCandidate(make_skill(name, "x"), score, confidence_for(score), ())


def test_selection_takes_every_high_and_mediums_within_25_of_the_top() -> None:
    assert names(select([fake("a", 60), fake("b", 40), fake("c", 30)])) == ["a", "b"]
    assert names(select([fake("a", 90), fake("b", 75), fake("c", 50)])) == ["a", "b"]
    assert names(select([fake("a", 62), fake("b", 36)])) == ["a"]
    assert select([fake("a", 34), fake("b", 20)]) == ()
    assert confidence_for(HIGH) == "high" and confidence_for(MEDIUM) == "medium" and confidence_for(MEDIUM - 1) == "low"


def test_best_rejected_is_the_first_candidate_not_selected() -> None:
    a, b = fake("a", 80), fake("b", 20)
    assert RouteDecision((a,), (a, b), ()).best_rejected == b


def test_only_the_first_4000_and_last_1000_characters_count(router: SkillRouter) -> None:
    filler = "zz " * 3000
    hidden = filler + "grafana dashboards latency " + filler
    assert router.route(hidden).selected == ()
    assert names(router.route(filler + filler + "grafana dashboards latency").selected)[0] == "grafana-dashboards"
    assert names(router.route("grafana dashboards latency " + filler + filler).selected)[0] == "grafana-dashboards"


REASON = re.compile(r"^(exact|lexical|tag|frontmatter|path|body|catalog|fuzzy|penalty):\S")


def test_reasons_are_present_and_readable(router: SkillRouter) -> None:
    for candidate in router.route("fix the failing CI checks on my pull request").candidates:
        assert candidate.reasons
        assert all(REASON.match(r) for r in candidate.reasons), candidate.reasons


def test_not_for_clauses_penalise(router: SkillRouter) -> None:
    ranked = router.search("simulate quantum circuit qubit gates")
    quantum = next(c for c in ranked if c.skill.name == "quantum-sim")
    assert any(r.startswith("penalty:") for r in quantum.reasons)


def test_non_model_invocable_skills_are_never_routed(router: SkillRouter) -> None:
    text = "secret-internal: rotate production secrets and keys"
    assert "secret-internal" not in names(router.route(text).candidates)
    assert "secret-internal" not in names(router.search(text))


def test_search_ranks_without_thresholds(router: SkillRouter) -> None:
    ranked = router.search("caching", limit=2)
    assert names(ranked)[:1] == ["db-tuning"]
    assert len(router.search("slow kubernetes database dashboards", limit=2)) == 2
    assert router.search("caching", limit=0) == ()


BODIES = {
    "release-guard": (
        "Checks releases.",
        "# Release guard\n\nVerifies a deploy before it ships.\n\n## When to Use\n\n"
        "- A canary rollout is stuck halfway\n- Health probes flap after a deploy\n\n"
        "## When NOT to Use\n\n- Monthly cloud bill reports\n",
    ),
    "landing-copy": ("Write landing page copy. For email sequences, see lifecycle-mail.", "# Copy\n"),
    "lifecycle-mail": ("Plan drip campaigns for existing customers.", "# Mail\n"),
    "cloud-costs": ("Explain cloud spend by service.", "# Costs\n"),
}


@pytest.fixture(scope="module")
def body_router(tmp_path_factory: pytest.TempPathFactory) -> SkillRouter:
    from tests.core.skill_factory import write_catalog

    return SkillRouter(write_catalog(tmp_path_factory.mktemp("skills"), BODIES).skills)


def test_the_body_when_to_use_section_routes_a_symptom(body_router: SkillRouter) -> None:
    decision = body_router.route("our canary rollout is stuck halfway and the health probes flap")
    assert names(decision.selected)[0] == "release-guard"
    assert any(r.startswith("body:when_to_use_token=") for r in decision.selected[0].reasons)


def test_when_not_to_use_phrases_penalise(body_router: SkillRouter) -> None:
    ranked = body_router.search("monthly cloud bill reports for the deploy")
    guard = next(c for c in ranked if c.skill.name == "release-guard")
    assert any(r.startswith("penalty:") for r in guard.reasons)


def test_a_redirect_clause_sends_its_topic_to_the_skill_it_names(body_router: SkillRouter) -> None:
    ranked = body_router.search("draft our email sequences")
    assert names(ranked)[0] == "lifecycle-mail"
    assert any(r.startswith("catalog:referred_token=") for r in ranked[0].reasons)
    assert "landing-copy" not in names(ranked)


def test_one_matched_word_is_weaker_evidence_than_several(router: SkillRouter) -> None:
    one = router.search("caching", limit=1)[0]
    several = router.search("slow database queries: caching and indexes", limit=1)[0]
    assert one.skill.name == several.skill.name == "db-tuning"
    assert one.score < MEDIUM <= several.score


def test_reasons_and_order_do_not_depend_on_the_hash_seed() -> None:
    import json
    import subprocess
    import sys

    script = (
        "import json; from pathlib import Path; from proxy.core.routing.router import SkillRouter; "
        "from proxy.core.catalog.skill import Skill; "
        "mk = lambda n, d: Skill(name=n, description=d, folder=Path('/x') / n, root='/x', location=n); "
        "r = SkillRouter([mk('a-b', 'slow database queries and caching'), mk('c-d', 'database caching layers'), "
        "mk('e-f', 'queries over caching databases')]); "
        "print(json.dumps([(c.skill.name, c.score, c.reasons) for c in r.search('slow caching database queries a-b')]))"
    )
    runs = {
        seed: json.loads(subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                                        env={"PYTHONHASHSEED": seed, "PATH": ""}, cwd=Path(__file__).parents[3]).stdout)
        for seed in ("1", "2", "3")
    }
    assert runs["1"] == runs["2"] == runs["3"]


def test_a_skill_matched_only_in_its_body_is_not_a_confident_match() -> None:
    from proxy.core.catalog.catalog import load_catalog

    router = SkillRouter(load_catalog([Path(__file__).resolve().parents[3] / "skills"]).skills)
    decision = router.route("My SQL query is slow: how do I read the EXPLAIN plan and which index should I add? "
                            "Plan follows. Seq Scan on orders (cost=0.00..4.1 rows=1 width=8)")
    assert names(decision.selected) == ["sql-query-tuning"]
    body_only = next(c for c in decision.candidates if c.skill.name == "log-triage")
    assert body_only.score == HIGH - 1 and "penalty:matched_only_the_body" in body_only.reasons
    assert all(r.startswith("body:") for r in body_only.reasons[:-1])
