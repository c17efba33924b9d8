"""Preprocessing time per request at a big catalog: bench/perf_bench.py's figure, and a loop for py-spy.

    python -m bench.preprocess_timing --size 1000 --seconds 10   # prints `ready`, then preprocesses for 10 s

`preprocess_times` writes a `size`-skill catalog (bench/big_catalog.py), loads
it with the product's settings, and times `engine.preprocess` on the engine
directly for every dev case, `passes` times, each a new turn (the counter in
the text), so every request is routed afresh. Run as a module, it does the
same work in a loop after printing `ready`, so bench/perf_profile.py can attach
py-spy once the catalog is loaded and record only the preprocessing.
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


def percentile(values: list[float], share: float) -> float:
    """Nearest-rank percentile (share 0.5 is the median)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)] if ordered else float("nan")


def big_engine(folder: Path, size: int) -> Any:
    """A SkillEngine over a `size`-skill catalog written under `folder`, not watching it."""
    from bench.big_catalog import write_big_catalog
    from proxy.engine.skill_engine import SkillEngine
    from proxy.settings import load_settings

    roots = write_big_catalog(folder, size)
    settings = load_settings(None, env={}, overrides={"roots": tuple(str(root) for root in roots)})
    return SkillEngine.from_settings(settings, watch=False)


def dev_texts() -> list[str]:
    from bench.corpus_skills import load_cases

    return [case["text"] for case in load_cases()]


def preprocess_once(engine: Any, text: str) -> float:
    """Seconds reading one new user turn's messages and `engine.preprocess` on them take."""
    from proxy.surfaces.chat_messages import read_messages

    messages = [{"role": "user", "content": text}]
    started = time.perf_counter()
    engine.preprocess(read_messages(messages))
    return time.perf_counter() - started


def preprocess_times(size: int, passes: int) -> dict[str, Any]:
    """engine.preprocess per request over a `size`-skill catalog: every dev case, `passes` times (new turns)."""
    with tempfile.TemporaryDirectory(prefix="skillproxy-perf-catalog-") as tmp:
        engine = big_engine(Path(tmp), size)
        texts = dev_texts()
        for text in texts[:20]:
            preprocess_once(engine, f"{text} (warm-up)")
        times = [preprocess_once(engine, f"{text} ({number})") for number in range(passes) for text in texts]
        skills = len(engine.context.catalog.skills)
    return {"skills": skills, "n": len(times), "p50_ms": percentile(times, 0.5) * 1000,
            "p99_ms": percentile(times, 0.99) * 1000}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=1000, help="skills in the catalog")
    parser.add_argument("--seconds", type=float, default=10.0, help="how long to preprocess after `ready`")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="skillproxy-perf-catalog-") as tmp:
        engine = big_engine(Path(tmp), args.size)
        texts = dev_texts()
        print("ready", flush=True)
        deadline, number = time.monotonic() + args.seconds, 0
        while time.monotonic() < deadline:
            preprocess_once(engine, f"{texts[number % len(texts)]} ({number})")
            number += 1
    print(f"preprocessed {number} turns", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
