"""What a SKILL.md body and description offer the router beyond the frontmatter."""

from __future__ import annotations

from pathlib import Path

from proxy.core.routing.fields import body_text, read_body_text, sections, split_redirects, strip_frontmatter

BODY = """# Deploy Checker

Checks a release before it ships: health probes, rollout status and error budgets.

## Overview

Built for teams on Kubernetes.

## When to Use This Skill

- Verifying a canary before promotion
- Investigating a rollout stuck at 50 %

**Not suitable for:**
- Writing Helm charts from scratch

## When NOT to Use

- Cost reports for the cloud bill

## Quick Start

```bash
kubectl rollout status deploy/web  # commands are not prose
```

| Column | Meaning |
|---|---|

Run the checker after every deploy.

## Related Skills

- helm-charts: for writing charts
"""


def test_sections_skip_code_fences_and_tables() -> None:
    found = {s.title: s.lines for s in sections(BODY)}
    assert found["Quick Start"] == ("Run the checker after every deploy.",)
    assert found[""] == ()


def test_opening_is_the_intro_and_the_overview() -> None:
    opening = body_text(BODY).opening
    assert opening.startswith("Checks a release before it ships")
    assert "Built for teams on Kubernetes." in opening


def test_when_to_use_is_kept_apart_and_its_not_lines_are_avoid_lines() -> None:
    found = body_text(BODY)
    assert "Verifying a canary" in found.use_when and "rollout stuck" in found.use_when
    assert "Helm charts" not in found.use_when
    assert "Writing Helm charts" in found.avoid_when and "cloud bill" in found.avoid_when


def test_prose_leaves_out_the_use_sections_and_pointers_elsewhere() -> None:
    prose = body_text(BODY).prose
    assert "Run the checker after every deploy." in prose
    assert "canary" not in prose and "cloud bill" not in prose
    assert "helm-charts" not in prose and "kubectl" not in prose


def test_an_empty_or_missing_body_gives_empty_text(tmp_path: Path) -> None:
    assert body_text("") == body_text("\n\n")
    assert read_body_text(tmp_path / "nope" / "SKILL.md").prose == ""


def test_frontmatter_is_stripped_without_parsing_it() -> None:
    assert strip_frontmatter("---\nname: x\ndescription: [unclosed\n---\n# Body\n") == "# Body\n"
    assert strip_frontmatter("\ufeff---\r\nname: x\r\n---\r\nbody") == "body"
    assert strip_frontmatter("# No frontmatter") == "# No frontmatter"
    assert strip_frontmatter("---\nname: x\n") == ""


def test_read_body_text_reads_the_file(tmp_path: Path) -> None:
    (tmp_path / "SKILL.md").write_text("---\nname: x\ndescription: y\n---\n" + BODY, encoding="utf-8")
    assert read_body_text(tmp_path / "SKILL.md") == body_text(BODY)


def test_redirect_clauses_name_the_other_skill() -> None:
    text = "Write landing pages. For email copy, see emails. For popups, use `popup-cro` instead."
    positive, redirects = split_redirects(text)
    assert [(r.topic, r.target) for r in redirects] == [("email copy", "emails"), ("popups", "popup-cro")]
    assert "email" not in positive and "popups" not in positive and "Write landing pages" in positive


def test_use_inside_a_sentence_is_not_a_redirect() -> None:
    text = "Use for a new microservice, when refactoring a monolith to use bounded contexts."
    assert split_redirects(text) == (text, ())
