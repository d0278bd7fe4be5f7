"""A reminder asked for that names only when ("…I have to ring the glazier. Remind me on Tuesday", "要续签合同了
下周一提醒我一下"): the to-do is what the clause before it says, read as that clause asking to be reminded
(``shared.timed_reminder``), due when the request says. A request that names its own action ("remind me on
Tuesday to ring the glazier", 提醒我去问问) is the readers' own.

A request some days before the day said just before it ("…done by June 12. can you ping me the day before?",
体检约在4月20号 前一天提醒我) is due that many days before it (``dialogue.days_before``), its thing the to-do read
there, else the dated thing named. And what a turn asks to be reminded of is a to-do: its plans are to-dos when
the rules read none (``reminded_plans_as_todos``)."""

from __future__ import annotations

import dataclasses
from datetime import datetime

from ...lang.times import find_times
from ..records import Raw as _Raw
from .dialogue import days_before
from .facts import _raw_facts
from .text import _P, _is_zh, _sentences, _strip_times

_REQUEST = _P["shared.timed_reminder"]
_THEIRS = _P["shared.timed_reminder_theirs"]
_ASKS_FOR_ONE = _P["shared.reminder_asked"]
_NOT_TO_FORGET = _P["shared.not_to_forget"]
_DECLINED = _P["shared.reminder_declined"]


def reminded_of_clause_before(text: str, raws: list[_Raw], when: datetime) -> list[_Raw]:
    """``raws`` (what the rules read from ``text``, said at ``when``) with the to-do of each reminder asked for
    naming only when: the action the clause before it says, due the request's time (a to-do the rules read
    from that clause gets the day when it has none). ``raws`` as they are when the turn asks for no such
    reminder, or the clause before it says no action of the user's. Raises nothing."""
    if not _ASKS_FOR_ONE.search(text):
        return raws  # (most turns: the request's pattern is not worth trying)
    out = list(raws)
    for m in _REQUEST.finditer(text):
        said = m.group("en") if m.group("en") is not None else m.group("zh")
        if not said:
            continue
        before = text[:m.start()].rstrip(" ,，.。!！;；~～?？")
        sentences = [s for s in _sentences(before) if s.strip()]
        if not sentences:
            continue
        said_before = sentences[-1]
        if not find_times(said, when):
            # "…done by may 29. can you ping me the day before?": some days before the day said before it
            said = days_before(said, [said_before], when) or ""
            if not said:
                continue
        zh = _is_zh(said_before)
        if zh and _THEIRS.match(_strip_times(said_before, when).strip()):
            continue  # "8号老周要去复查 你9号提醒我吧": his, not the user's to-do
        asked = said_before.rstrip(" ,，.。!！;；~～") + ("，提醒我一下" if zh else ", remind me")
        read = [r for r in _raw_facts(asked, when) if r.object]
        # the thing to be reminded of: a to-do read there, else the dated thing it names ("…done by may 29"),
        # else the deadline the turn owes there ("…has to be renewed by April 10")
        todos = [r for r in read if r.predicate == "todo"] or [
            _Raw("todo", r.object) for r in read if r.predicate in ("deadline", "plan")][:1] or [
            _Raw("todo", r.object) for r in raws if r.predicate == "deadline" and r.object and r.object in said_before][:1]
        for todo in todos:
            at = next((i for i, r in enumerate(out) if r.predicate == "todo" and r.object == todo.object), None)
            if at is None:
                out.append(dataclasses.replace(todo, due=said.strip()))
            elif out[at].due is None:
                out[at] = dataclasses.replace(out[at], due=said.strip())
    return out


def reminded_plans_as_todos(text: str, raws: list[_Raw]) -> list[_Raw]:
    """``raws`` with the plans made to-dos when ``text`` asks to be reminded (remind me, 提醒我, don't let me
    forget, 千万别忘了; not "no need to remind me") and the rules read no to-do from it: what one asks to be
    reminded of is a thing to do ("vet's Saturday at 10, can you remind me thursday?", 下周六去4S店试驾
    提醒我一下), each with its day. A plan said unsure or as a change stays a plan. Raises nothing."""
    if not (_ASKS_FOR_ONE.search(text) or _NOT_TO_FORGET.search(text)) or _DECLINED.search(text) \
            or any(r.predicate == "todo" for r in raws):
        return raws
    return [dataclasses.replace(r, predicate="todo") if r.predicate == "plan" and not r.hedged and r.change is None
            else r for r in raws]
