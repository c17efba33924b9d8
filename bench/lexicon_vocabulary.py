"""The catalog's own vocabulary: the source the routing lexicons are translated from.

    python -m bench.lexicon_vocabulary                 # the corpus catalog's 1,500 commonest words
    python -m bench.lexicon_vocabulary --top 3000 --root skills/

Every lexicon table in proxy/core/routing/lexicon/data maps words of another language to the
English words skills are described with. So the table is written from the English side: this
lists the words the catalog's names and descriptions use, by how many skills use each (stopwords
and numbers left out), and a table translates them. Nothing here reads labelled prompts: a table
made this way cannot have learned an eval set (tests/core/routing/test_lexicon_independence.py
checks that it has not).
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from bench.corpus_skills import corpus_roots
from proxy.core.catalog.catalog import load_catalog
from proxy.core.routing.tokens import STOPWORDS, words


def vocabulary(roots: list[Path], top: int) -> list[tuple[str, int]]:
    """(word, skills using it) for the `top` commonest words of names and descriptions."""
    used: Counter[str] = Counter()
    for skill in load_catalog(roots).skills:
        text = f"{skill.name.replace('-', ' ')} {skill.description}"
        used.update({w for w in words(text) if len(w) > 2 and w.isalpha() and w not in STOPWORDS})
    return used.most_common(top)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", action="append", type=Path, help="a skills root (default: the corpus roots)")
    parser.add_argument("--top", type=int, default=1500)
    args = parser.parse_args()
    for word, count in vocabulary(args.root or corpus_roots(), args.top):
        print(f"{count}\t{word}")


if __name__ == "__main__":
    main()
