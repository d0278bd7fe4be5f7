"""The user away for a time to come ("I'm away 1 to 8 May, Lagos, my sister's wedding", "on leave 13-17 July",
下周一到周三请假，去厦门参加婚礼): a plan, named from where the absence is said to the end of its sentence (where
to and why), its times left out, due when the time it names most exactly starts (``shared.away_ahead``). A
sentence about another person's leave, or with no time to come, or with no where to nor why, is none."""

from __future__ import annotations

from datetime import datetime

from ...lang.times import find_times
from ..records import Raw as _Raw
from .facts import _undecided
from .text import _P, _clean, _is_zh, _sentences, _strip_times

_AWAY = _P["shared.away_ahead"]
_OWN = _P["shared.away_own"]
_PARTS = {False: _P["shared.away_parts"], True: _P["shared.away_parts_zh"]}  # a Chinese chat's blank parts it too
_WHY = _P["shared.away_why"]
_PARTS_KEPT = {False: 3, True: 2}  # the absence and where to and why: "away, Lagos, my sister's wedding"; 请假，去厦门参加婚礼
_JOINER_LEFT = _P["shared.range_joiner_left"]


def away_ahead(text: str, raws: list[_Raw], when: datetime) -> list[_Raw]:
    """``raws`` (what the rules read from ``text``, said at ``when``) with a plan for each absence ahead the
    text tells of, unless a plan or to-do the rules read already names it. Raises nothing."""
    out = list(raws)
    for sentence in _sentences(text):
        m = _AWAY.search(sentence)
        if m is None:
            continue
        ahead = [span for _, _, span in find_times(sentence, when) if span.start.date() > when.date()]
        zh = _is_zh(sentence)
        start = m.start("zh") if m.group("zh") else m.start("en")
        who = _PARTS[True].split(_strip_times(sentence[:start], when).strip(" ，,"))[-1] if zh else ""
        if not ahead or who and not _OWN.match(who):
            continue  # no time to come, or 小周下周请假: his
        rest = _JOINER_LEFT.sub("", " ".join(_strip_times(sentence[start:], when).split()))
        parts = [p.strip() for p in _PARTS[zh].split(rest) if p.strip()][:_PARTS_KEPT[zh]]  # where to, and why
        value = _clean(("，" if zh else ", ").join(parts), zh)
        if not _WHY.search(value[len(m.group("zh") or m.group("en")):]):
            continue  # said with no where to nor why (请假也还行, 调休): no plan of its own
        if any(r.predicate in ("plan", "todo") and r.object and r.object in value for r in out):
            continue  # the rules read it already
        when_said = min(ahead, key=lambda span: span.end - span.start)  # the day said, not its month (下个月…4月3号)
        # hedged as the sentence is, its times left out ("1 to 8 may" says no "may")
        out.append(_Raw("plan", value, due=when_said.expr, hedged=_undecided(_strip_times(sentence, when))))
    return out
