"""The write path's fast row encoder (``chain.schema_encoder``: orjson, floats
checked by position) gives exactly the bytes of the canonical ``encode`` (RFC
8785 JSON, checked against the rfc8785 package in test_chain_spec)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from memdesk import chain

plain = st.one_of(st.none(), st.booleans(), st.integers(-(2**63), 2**63 - 1),
                  st.integers(-(2**80), 2**80), st.text(max_size=30),
                  st.sampled_from(["e-mail", "1.0,", "x.0]", "\ud800 lone", "引号\"\\\n"]))
floats = st.one_of(st.floats(allow_nan=False, allow_infinity=False),
                   st.sampled_from([1.0, 0.0, -0.0, 0.95, 1e-7, 1e21, 1e20, 2.0**53, 2.0**60,
                                    0.0001, 123456789.0, 1e16 - 2]))


@settings(max_examples=1500, deadline=None)
@given(st.data())
def test_the_fast_encoder_writes_what_encode_writes(data):
    size = data.draw(st.integers(1, 12))
    positions = tuple(sorted(data.draw(st.sets(st.integers(0, size - 1), max_size=3))))
    row = tuple(data.draw(floats) if i in positions else data.draw(plain) for i in range(size))
    fast = chain.schema_encoder(positions)
    try:
        expected = chain.encode(row)
    except ValueError:
        with pytest.raises(ValueError):
            fast(row)
        return
    assert fast(row) == expected


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
def test_the_fast_encoder_refuses_what_encode_refuses(bad):
    with pytest.raises(ValueError):
        chain.schema_encoder((1,))(("a", bad))


def test_float_positions_follow_the_schema():
    assert chain.COLUMNS["fact"][chain.FLOATS["fact"][0]] == "confidence"
    assert chain.COLUMNS["claim"][chain.FLOATS["claim"][0]] == "confidence"
    assert chain.FLOATS["turn"] == ()
