"""proxy.core.json_codec: orjson's speed, never a value or a string it would change."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from proxy.core import json_codec

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20)


@given(JSON_VALUES)
def test_what_it_writes_reads_back_as_the_same_value_as_the_standard_library_reads_it(value):
    written = json_codec.dumps(value)
    assert json_codec.loads(written) == json.loads(written) == value


@pytest.mark.parametrize("text, value", [
    ("123456789012345678901234567890", 123456789012345678901234567890),  # orjson alone reads a float
    ("18446744073709551616", 18446744073709551616),
    ("-9223372036854775809", -9223372036854775809),
    ('"\\ud83d"', "\ud83d"),  # half an emoji: orjson refuses it
    ("NaN", None),
])
def test_what_orjson_would_change_or_refuse_is_read_by_the_standard_library(text, value):
    read = json_codec.loads(text.encode())
    assert read == value or (value is None and read != read)
    assert type(read) is type(json.loads(text))


def test_lone_surrogates_and_huge_integers_are_written_as_sent():
    assert json_codec.dumps({"t": "a\ud83db"}) == b'{"t":"a\\ud83db"}'
    assert json_codec.dumps({"n": 2**70, "t": "é"}) == '{"n":1180591620717411303424,"t":"é"}'.encode()


def test_output_is_compact_utf8():
    assert json_codec.dumps({"a": [1, "ü"]}) == '{"a":[1,"ü"]}'.encode()
    with pytest.raises(ValueError):
        json_codec.loads(b"{not json")
