"""Canonical JSON of a tuple of column values (RFC 8785: the JSON
Canonicalization Scheme; docs/audit-chain.md): the bytes every row hash of
the audit chain is computed over. ``encode`` is the reference; the fast
encoders (``schema_encoder``, ``streamer``, ``row_hasher``) give the same
bytes through orjson where a row's types allow it. Raises ValueError for a
value with no canonical form (NaN, infinities).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from hashlib import blake2b
from json.encoder import c_make_encoder  # type: ignore[attr-defined]
from json.encoder import encode_basestring as c_encode_basestring
from typing import Any

from orjson import JSONEncodeError
from orjson import dumps as _orjson_dumps

_INF = float("inf")
_NOT_FINITE = "NaN and infinities have no canonical JSON form (RFC 8785)"


def _refuse(value: Any) -> Any:
    raise TypeError(f"canonical JSON holds only str, int, float, bool and None, "
                    f"not {type(value).__name__}")


# The C-accelerated encoder of ``json`` for arrays of plain values: no
# whitespace, no ASCII escaping (RFC 8785 escapes only '"', '\\' and control
# characters: \b \t \n \f \r, others as lowercase \u00xx, exactly as ``json``
# does), NaN/infinity refused. It formats floats with ``repr``, which differs
# from ECMAScript's form for integral and exponent-form floats: ``_text``
# notices those in the text and encodes such a row again (``_exact``).
_C_ENCODE = c_make_encoder(None, _refuse, c_encode_basestring, None, ":", ",",
                           False, False, False) if c_make_encoder is not None else None


def _py_encode(values: Any, _level: int = 0) -> list[str]:  # no C extension: same output
    return [json.dumps(values, ensure_ascii=False, separators=(",", ":"), allow_nan=False,
                       default=_refuse)]


_ENCODE: Callable[[Any, int], Any] = _C_ENCODE if _C_ENCODE is not None else _py_encode


def number(x: float) -> str:
    """A float as ECMAScript's Number::toString writes it (RFC 8785 section 3.2.2.3)."""
    if x != x or x == _INF or x == -_INF:
        raise ValueError(_NOT_FINITE)
    if x == 0:
        return "0"  # -0 too
    r = float.__repr__(x)  # the shortest digits that round-trip, as ECMAScript chooses
    if "e" not in r:  # repr's fixed notation (1e-4 <= |x| < 1e16): ECMAScript's too
        return r[:-2] if r.endswith(".0") else r
    mantissa, _, exp = r.partition("e")
    sign = ""
    if mantissa[0] == "-":
        sign, mantissa = "-", mantissa[1:]
    digits = mantissa.replace(".", "").rstrip("0") or "0"
    k, n = len(digits), int(exp) + 1  # x = 0.digits * 10**n
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * -n + digits
    e = n - 1
    return (sign + digits[0] + ("." + digits[1:] if k > 1 else "") + "e"
            + ("+" if e >= 0 else "-") + str(abs(e)))


def _check_finite(values: tuple) -> None:
    for v in values:
        if isinstance(v, float) and (v != v or v == _INF or v == -_INF):
            raise ValueError(_NOT_FINITE)


def _encode_mixed(values: tuple, types: list[type]) -> str:
    """Canonical JSON of a tuple holding floats: the runs between them go
    through the C encoder, the floats through ``number``."""
    parts: list[str] = []
    start = 0
    index = types.index
    enc, join = _ENCODE, "".join
    while True:
        try:
            i = index(float, start)
        except ValueError:
            break
        if i > start:
            parts.append(join(enc(values[start:i], 0))[1:-1])
        parts.append(number(values[i]))
        start = i + 1
    if start < len(values):
        parts.append(join(enc(values[start:], 0))[1:-1])
    return "[" + ",".join(parts) + "]"


def _text(values: tuple) -> str:
    """Canonical JSON text of a tuple of plain values (see ``encode``).

    The C encoder writes every value as RFC 8785 does except a float whose
    ``repr`` is not ECMAScript's form: an integral one (``1.0``, ``-0.0``) or
    one in exponent form (``1e-07``, ``1e+16``). Such a float leaves ``.0,``,
    ``.0]``, ``e+`` or ``e-`` in the text; only then (or when a string holds
    those characters) is the row encoded again with ``number`` for each float."""
    try:
        text = "".join(_ENCODE(values, 0))
    except ValueError:  # NaN or an infinity
        _check_finite(values)
        raise
    if ".0," in text or ".0]" in text or "e+" in text or "e-" in text:
        return _exact(values)
    return text


_PLAIN = frozenset({str, int, bool, type(None)})
_PLAIN_OR_FLOAT = _PLAIN | {float}
_MAX_EXACT = 2.0 ** 53


def _for_orjson(v: float) -> float | int | None:
    """``v`` as orjson must be given it to write what RFC 8785 writes: an
    integral float (``1.0``, ``-0.0``) as the int it equals (exact up to 2**53;
    beyond, its shortest digits are not its exact ones), a float of fixed
    notation (1e-4 <= |v| < 1e16, where orjson, repr and ECMAScript agree) as
    itself. None when only ``number`` writes it right (exponent form, NaN,
    infinities)."""
    if v.is_integer():
        return int(v) if -_MAX_EXACT <= v <= _MAX_EXACT else None
    return v if 1e-4 <= abs(v) < 1e16 else None


def _orjson_ready(values: tuple) -> list | None:
    """``values`` with each float as ``_for_orjson`` gives it; None when one
    needs ``number``."""
    out = list(values)
    for i, v in enumerate(out):
        if type(v) is float:
            ready = _for_orjson(v)
            if ready is None:
                return None
            out[i] = ready
    return out


def encode(values: tuple) -> bytes:
    """Canonical bytes of a tuple of plain values: the RFC 8785 JSON of the
    array of the values, UTF-8. Raises ValueError for NaN, infinities and
    strings with lone surrogates, TypeError for other types.

    orjson (compact, UTF-8, JCS's string escapes) writes almost every row;
    what it cannot write as JCS does (a float in exponent form, a lone
    surrogate, an integer beyond 64 bits, another type) goes through ``_text``,
    which writes it or refuses it. This runs per row on bulk imports: orjson
    takes about a tenth of the time of the standard library's encoder."""
    kinds = set(map(type, values))
    if kinds <= _PLAIN:
        try:
            return _orjson_dumps(values)
        except JSONEncodeError:
            pass
    elif kinds <= _PLAIN_OR_FLOAT:
        ready = _orjson_ready(values)
        if ready is not None:
            try:
                return _orjson_dumps(ready)
            except JSONEncodeError:
                pass
    return _text(values).encode()


def _exact(values: tuple) -> str:
    """``_text`` of a row whose C-encoded text may hold a float not in ECMAScript form."""
    return _encode_mixed(values, [float if isinstance(v, float) else type(v) for v in values])


def schema_encoder(floats: tuple[int, ...]) -> Callable[[tuple], bytes]:
    """``encode`` for rows of one table whose float columns are at ``floats``
    (``FLOATS[name]``) and whose other values are str, int, bool or None, as
    the write path builds them: the same bytes, without looking at every
    value's type (only the floats are checked). Anything orjson cannot write
    as JCS does goes through ``encode``, which writes or refuses it."""
    dumps = _orjson_dumps

    def encode_row(values: tuple) -> bytes:
        for i in floats:
            v = values[i]
            if type(v) is float:
                ready = _for_orjson(v)
                if ready is None:
                    return encode(values)  # exponent form, big integral, NaN, infinities
                if ready is not v:
                    values = values[:i] + (ready,) + values[i + 1:]  # 1.0 -> 1, as JCS
        try:
            return dumps(values)
        except JSONEncodeError:  # a lone surrogate, an integer beyond 64 bits, another type
            return encode(values)

    return encode_row


def streamer(write: Callable[[bytes], Any],
             floats: tuple[int, ...] | None = None) -> Callable[[tuple], None]:
    """A function that encodes one tuple of values canonically into ``write``
    (e.g. a hasher's ``update``); with ``floats``, rows of one table (see
    ``schema_encoder``). Stateless: one may serve many threads."""
    enc = encode if floats is None else schema_encoder(floats)

    def dump(values: tuple) -> None:
        write(enc(values))

    return dump


def row_hasher(floats: tuple[int, ...] | None = None) -> Callable[[tuple], bytes]:
    """A fast ``row_hash``; with ``floats``, for rows of one table (see ``schema_encoder``)."""
    enc = encode if floats is None else schema_encoder(floats)

    def hash_row(values: tuple) -> bytes:
        return blake2b(enc(values), digest_size=16).digest()

    return hash_row
