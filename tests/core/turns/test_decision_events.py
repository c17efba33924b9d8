"""The decision events' previews: whitespace squeezed, stripped and cut, however long the text."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from proxy.core.turns.decision_events import PREVIEW_CHARS, preview

CI_SETTINGS = settings(max_examples=400, derandomize=True, database=None, deadline=None,
                       suppress_health_check=[HealthCheck.too_slow])
# Runs of every kind of whitespace (\u3000, \u2028 and NBSP are whitespace to both str.split and \s).
PIECE = st.sampled_from(["a", "bc", " ", "  ", "\n", "\t", "\u00a0", "\u3000", "\u2028", "é", "<x>", "\x1c"])


def squeezed(text: str, limit: int = PREVIEW_CHARS) -> str:
    """The definition: every run of whitespace one space, stripped, cut with an ellipsis."""
    compact = re.sub(r"\s+", " ", text).strip()
    return compact if len(compact) <= limit else compact[: limit - 3] + "..."


@CI_SETTINGS
@given(pieces=st.lists(PIECE, max_size=1200), limit=st.sampled_from([4, 10, PREVIEW_CHARS]))
def test_a_preview_is_the_text_squeezed_and_cut_whatever_its_length_and_whitespace(pieces, limit):
    text = "".join(pieces)
    assert preview(text, limit) == squeezed(text, limit)


def test_a_long_text_mostly_whitespace_is_squeezed_whole() -> None:
    text = " " * 5000 + "tail words" + "\n" * 3000 + "end"
    assert preview(text) == "tail words end"
    long_words = "word " * 2000
    assert preview(long_words) == squeezed(long_words) and preview(long_words).endswith("...")
