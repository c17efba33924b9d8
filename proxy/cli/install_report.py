"""How `add` and `update` print what they did: one line per skill, its warnings under it, then a count."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from proxy.install.apply import Outcome

LABELS = {"install": "installed", "replace": "updated", "relock": "up to date", "unchanged": "up to date",
          "refuse": "refused", "skip": "skipped"}


def label_of(outcome: Outcome) -> str:
    return "failed" if outcome.error else LABELS[outcome.step.action]


def print_outcomes(outcomes: Sequence[Outcome], commit: str | None) -> None:
    width = max((len(o.step.name) for o in outcomes), default=0)
    for outcome in outcomes:
        print(f"  {label_of(outcome):<12}{outcome.step.name:<{width}}  {_detail(outcome, commit)}")
        if outcome.step.action in ("install", "replace") and not outcome.error:
            for warning in outcome.step.candidate.warnings:
                print(f"      warning: {warning}")


def _detail(outcome: Outcome, commit: str | None) -> str:
    step = outcome.step
    new, old = _short(commit), _short(outcome.old_commit)
    if outcome.error:
        return outcome.error
    if step.action in ("refuse", "skip"):
        return step.reason
    if step.action == "install":
        return f"from {step.candidate.subpath or '.'}" + (f"; {step.reason}" if step.reason else "")
    if step.action == "replace":
        moved = (f"{old} -> {new}: " if old != new else f"{new}: ") if commit else ""
        changes = outcome.changes.summary() if outcome.changes is not None else "the installed files replaced"
        return moved + changes + (f"; {step.reason}" if step.reason else "")
    if step.action == "relock":
        return f"{new} (no file changed since {old})"
    return new if commit else "no file changed"


def _short(commit: str | None) -> str:
    return commit[:7] if commit else "-"


def count_line(outcomes: Sequence[Outcome]) -> str:
    counts = Counter(label_of(o) for o in outcomes)
    order = ("installed", "updated", "up to date", "refused", "skipped", "failed")
    return ", ".join(f"{counts[label]} {label}" for label in order if counts[label]) or "nothing to do"
