"""A text cut into clauses: atomisation on clause punctuation and contrast words, each clause with
the condition it is said under (``_atoms``); English rewritten into the order the rules read (a fronted topic
put after its verb, an allergen or a pet named first, the subject "I" put back, a reaction given as a reason cut
off); the statement a question sentence opens with."""

from __future__ import annotations

from ..ruleset import RULES
from .text import _P, _is_zh

_ZH_SPLIT = _P["zh.split"]
# clause breaks that voice-typed Chinese leaves unpunctuated: "叫我老王就行我住在昌平"
_ZH_UNPUNCTUATED_BREAK = _P["zh.unpunctuated_break"]
_EN_SPLIT = _P["en.split"]
_ZH_COND = _P["zh.cond"]
_ZH_INLINE_COND = _P["zh.inline_cond"]

# "X and Y" that name one thing
_EN_BINOMIALS = _P["en.binomials"]  # amounts in words, "Options 1 and 3"


def _atoms(text: str, zh: bool) -> list[tuple[str, str | None]]:
    """Clauses of ``text`` with their condition (if any)."""
    out: list[tuple[str, str | None]] = []
    cond: str | None
    if zh:
        for sent in _ZH_SPLIT.split(text):
            parts = [q.strip() for p in _P["en.atoms.1"].split(sent)
                     for q in _ZH_UNPUNCTUATED_BREAK.split(p or "") if q and q.strip()]
            i = 0
            while i < len(parts):
                p = parts[i]
                m = _ZH_INLINE_COND.match(p)
                if m:  # "如果是无糖的可以来一杯": condition and conclusion in one part
                    out.append((m.group("then"), m.group("cond")))
                    i += 1
                    continue
                if _ZH_COND.match(p) and i + 1 < len(parts):
                    cond = _P["zh.atoms.1"].sub("", p)
                    out.append((parts[i + 1], cond))
                    i += 2
                    continue
                if i + 1 < len(parts) and _ZH_COND.match(parts[i + 1]) and parts[i + 1].startswith("前提是"):
                    out.append((p, parts[i + 1][3:]))
                    i += 2
                    continue
                out.append((p, None))
                i += 1
    else:
        text = _P["en.atoms.2"].sub("", text)  # "a Sunday roast, Yorkshires and all"
        kept = _EN_BINOMIALS.sub(lambda m: m.group(0).replace(" and ", "\x01"), text)  # "fish and chips" is one thing
        for part in _EN_SPLIT.split(kept):
            if not part or not part.strip():
                continue
            part = part.strip(" ,").replace("\x01", " and ")
            lead = _P["en.atoms.3"].match(part) \
                or _P["en.atoms.4"].match(part)
            if lead:  # "If it's an overnight flight, I want a lie-flat seat"
                out.append((lead.group(2).rstrip(".!"), lead.group(1)))
                continue
            m = _P["en.atoms.5"].search(part)
            cond = m.group(1).rstrip(".!") if m else None
            out.append((part.rstrip(".!"), cond))
    return out


# a topic put first, then the verb with a pronoun or with the object left out:
# "cilantro? can't stand it", "Horror films? Nope, can't watch them.", "coriander I can't stand"
_EN_TOPIC_THEN_PRONOUN = _P["en.topic_then_pronoun"]
# "Push notifications, we're skipping them for v1": an option put first and dropped with a pronoun
_EN_TOPIC_DROPPED = _P["en.topic_dropped"]
# "Blues I could listen to all day": a fronted taste without a taste verb
_EN_FRONTED_HABIT = _P["en.fronted_habit"]
_EN_FRONTED = _P["en.fronted"]
# "Board games on a Friday night, that's my favourite thing", "Hiking and kayaking, that's my weekend sorted"
# "Nothing ruins my day quite like a 7am stand-up"
_EN_NOTHING_LIKE = _P["en.nothing_like"]
_EN_THATS_MY_THING = _P["en.thats_my_thing"]
_VERB_AS_DISLIKE = RULES.maps["en.verb_as_dislike"]


def _en_unfront(text: str) -> str:
    """The fronted topics above put back after their verb ("… I can't stand cilantro"), a leading "Right, so:"
    dropped and "and a rabbit, Clover" read as "and a rabbit called Clover"."""
    text = _EN_TOPIC_THEN_PRONOUN.sub(
        lambda m: f"I {_VERB_AS_DISLIKE.get(m.group(2).lower(), m.group(2))} {m.group(1)}", text)
    text = _EN_THATS_MY_THING.sub(r"I love \1", text)
    text = _EN_NOTHING_LIKE.sub(r"I hate \1", text.strip(" .!")) if _EN_NOTHING_LIKE.match(text.strip(" .!")) else text
    text = _P["en.unfront.1"].sub("I like ", text)
    text = _EN_TOPIC_DROPPED.sub(lambda m: f"we'll skip {m.group(1)}", text)
    text = _EN_FRONTED_HABIT.sub(r"I love \1", text)
    text = _EN_FRONTED.sub(lambda m: f"I {m.group(2)} {m.group(1)}", text)
    text = _P["en.unfront.2"].sub("", text)  # "Right, so: …"
    return _P["en.unfront.3"].sub(r"\1 \2 \3 called ", text)


def _en_named_first(text: str) -> str:
    """An allergen or a pet named before the words that say what it is, put after them: "I can't have nuts, I'm
    allergic" -> "I'm allergic to nuts", "Our Labrador, Pepper, turns ten" -> "I have a Labrador called Pepper, …"."""
    text = _P["en.named_first.1"].sub(r"I'm allergic to \1", text)
    text = _P["en.named_first.2"].sub(r"I'm allergic to \1", text)
    return _P["en.named_first.3"].sub(r"I have a \1 called \2,", text)


def _comma_split_en(text: str) -> list[str]:
    """An English clause's comma parts, a long one run on without punctuation cut where a part of the
    speaker's own begins (``_run_on_parts``)."""
    return [q for p in _P["shared.comma_split_en.1"].split(text) if p.strip() for q in _run_on_parts(p.strip())]


_RUN_ON_WORDS = 12  # a part this many words long with no punctuation is typed or spoken as it comes


def _run_on_parts(part: str) -> list[str]:
    """A long part cut before the speaker's own "I'm …" (``en.run_on_self``): "work stuff might get in the way
    I'm a lab manager at…" is two, the hedge of the first no part of the second."""
    if len(part.split()) < _RUN_ON_WORDS:
        return [part]
    cuts = [m.end() for m in _P["en.run_on_self"].finditer(part)]
    bounds = [0, *cuts, len(part)]
    return [part[a:b].strip() for a, b in zip(bounds, bounds[1:], strict=False) if part[a:b].strip()]


def _reaction_tail(clause: str) -> list[str]:
    """An English clause with a bare reaction given as its reason ("I avoid kiwi because my throat gets itchy"), as
    two clauses: the abstention and the reaction."""
    m = _P["en.reaction_tail"].search(clause)
    return [clause[:m.start()], m.group("reaction")] if m and m.start() else [clause]


# a clause that starts with the verb, its subject "I" left out: "Love sushi", "can't stand wasabi"
_EN_SUBJECTLESS = _P["en.subjectless"]


def _with_subject(clause: str) -> str:
    """``clause`` with "I" put back when it starts with the verb ("Love sushi" -> "I Love sushi"; after
    an interjection: "ooh love mussels")."""
    bare = _P["en.interjection"].sub("", clause)
    if bare != clause and _EN_SUBJECTLESS.match(bare):
        clause = bare
    if _P["en.with_subject.1"].match(clause):
        return f"I'm a {_P['en.with_subject.2'].sub('', clause)}"  # "Big fan of board games"
    clause = _P["en.with_subject.3"].sub("", clause)
    if _P["en.with_subject.4"].match(clause):
        return f"I'm {_P['en.with_subject.5'].sub('', clause)}"  # "not a fan of horror films"
    if _P["en.with_subject.6"].match(clause):
        return f"I'm heading{clause[3:]}"  # "Off to Rome next month"
    clause = _P["en.with_subject.7"].sub(r"\1 heading to", clause)
    if _P["en.with_subject.8"].match(clause):
        return f"I've {clause}"  # "been vegan for 3 years now"
    if _P["en.with_subject.9"].match(clause) \
            and not _P["en.with_subject.10"].match(clause) \
            and not _P["en.with_subject.11"].match(clause):
        return f"I'm {clause}"  # "heading to Lisbon next weekend"
    return f"I {clause}" if _EN_SUBJECTLESS.match(clause) else clause


_QUESTION_START = _P["shared.question_start"]

_HYPOTHETICAL_START = _P["shared.hypothetical_start"]


def _statement_before(question: str) -> str:
    """The statement a question sentence opens with, if any: "My gecko Ziggy needs a new lamp, any recs?" ->
    "My gecko Ziggy needs a new lamp." A sentence that is a question from its start yields ""."""
    m = _P["shared.statement_before.1"].match(question.strip())
    if not m or _QUESTION_START.match(m.group(1).strip()) or _HYPOTHETICAL_START.match(m.group(1).strip()) \
            or not _QUESTION_START.match(m.group(2).strip()) \
            and not _P["zh.statement_before.1"].search(m.group(2)) or _P["shared.raw_facts.4"].search(m.group(1)):
        return ""
    return m.group(1).strip() + ("。" if _is_zh(m.group(1)) else ". ")
