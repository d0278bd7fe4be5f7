"""Who a clause is about, when it is not the user (docs/DESIGN.md §3.3a).

A relation word as the clause's subject ("my sister", "我老公", not "I called
my mum"), a first name introduced with one ("my sister Dana", "我女儿朵朵"),
and the clause read again with that person as "I" ("my sister is vegan" ->
"I am vegan"), so the extractor's rules read other people's facts too. Pure
functions over the cue tables; no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import UTC, datetime

from ..lang.case import is_chat_word, is_english_word, is_lower_case_name, recased
from ..lang.chat import written
from ..lang.places import place_in
from ..lang.times import find_times, opening_time
from ..lang.verbs import first_person_of
from .cues import Cues, is_zh

# a fixed instant to ask whether a span is a time word at all (周末, 周一: not 周's names)
_ANY_TIME = datetime(2026, 1, 1, tzinfo=UTC)

# a first name: a capital and letters, any Latin ones ("Dana", "João", "Émile", "Siobhán"); typed in
# lower case, a word of letters and hyphens
_NAME = r"[A-ZÀ-ÖØ-Þ][^\W\d_]+"
_LOWER_NAME = r"[^\W\d_A-ZÀ-ÖØ-Þ][^\W\d_]*(?:-[^\W\d_]+)*"
# a first name after a relation word ("my sister Dana", "my manager at Spotify, Keisha,")
# after a workplace only past a comma: "manager at Halsted Logistics" names no manager
_INTRODUCED = re.compile(r"(?:\s+at\s+[\w&.-]+(?:\s+[\w&.-]+){0,3}?(?=,))?,?\s+(" + _NAME + r")\b(?!\s+[A-ZÀ-ÖØ-Þ])")
# a name taken back at once for another ("Jake— sorry Jay", "Dan, I mean Dean")
_NAME_SLIP = re.compile(r"\s*[-—–,.]*\s*(?:sorry|no sorry|no wait|oops|I mean|I meant)[,:]?\s+(" + _NAME + r")\b",
                        re.IGNORECASE)
# a name said to be the relation's ("gf is Priya", "my supervisor is Dr McAllister", "new boss is Marcus", "my
# manager at verbo is inês")
_INTRODUCED_IS = re.compile(r"(?:\s+at\s+[\w&.-]+(?:\s+[\w&.-]+){0,2}?)?\s+(?:is|'s)\s+(?:called\s+|named\s+)?"
                            r"(?:(?:[Dd]r|[Mm]rs?|[Mm]s|[Pp]rof)\.?\s+)?("
                            + _NAME + r")\b(?!\s+[A-ZÀ-ÖØ-Þ])")
# the same in a turn typed all in lower case, where no capital marks a name: a word right after the
# relation word and before the clause's verb ("my husband sipho is a paramedic", "my roommate jay's
# moving out"); words that fill that slot without being names are left out (``_not_a_lower_name``)
_INTRODUCED_LOWER = re.compile(
    r",?\s+(" + _LOWER_NAME + r")(?='s\b|,|\s*\(|\s+(?:is|was|has|does|doesn't|isn't|can't|just|works|lives|got|"
    r"loves|hates|likes|moved|started|and|who|live|work|might|will|can|could|would|may|says|said|wants|needs|"
    r"came|comes|went|goes|had|did|made|makes|thinks)\b)")
# a word at the start of an English clause, or after the words before it
_EN_OPENING_WORD = re.compile(r"[\s,]*([A-Za-z]+(?:['’][a-z]+)?)\b")
_EN_OWNER_BEFORE = re.compile(r"(?i)\b(?:my|our)\s+$")  # the speaker owning the relation word after it
_CONJUNCTIONS = frozenset({"and", "but", "plus", "so", "then", "n"})  # dropped when "I" opens the clause
_GIVEN_KEPT = 4096  # texts whose names a People keeps (``introductions``)
# a relation word owned by someone other than the speaker ("his mum", "her sister")
_OWNED_BY_OTHER = re.compile(r"(?i)\b(?:his|her|their)\s+$")
# a relation word after an indefinite article and before a workplace is a job's title, no one's relation ("I'm an
# operations manager at Halsted Logistics"); "I have a brother, Tom" still names him
_A_TITLE = re.compile(r"(?i)\b(?:a|an)\s+(?:[\w-]+\s+){0,2}$")
_AT_WORK = re.compile(r"(?i)\s+(?:at|for|with)\b")
# a word typed in lower case right after a relation word (a name when no common word: ``lang.case``)
_LOWER_WORD = re.compile(r",?\s+(" + _LOWER_NAME + r")\b(?!['’-])")
_LOWER_SLOT = frozenset({"also", "just", "really", "still", "now", "finally", "never", "always", "actually",
                         "already", "and", "who", "is", "was", "has", "does", "at", "in", "on", "from", "for",
                         "with", "to", "a", "an", "the", "of", "too", "then", "here", "there", "again", "even",
                         "though", "tho", "lol", "haha", "btw", "rn", "tbh", "def", "prob", "kinda", "super"})
# a request to write down what follows ("put that Graham is allergic…", "note down Sam's vegan"): what is to be
# written down speaks of its own subject (here and in the layer's name openings)
EN_WRITE_DOWN = r"(?:put|note|add|write|jot|record|log|remember|mark)(?:\s+(?:down|in|it))?(?:\s+that)?\s+"
# the fillers that may open an English clause before its subject (a list's number or bullet among them:
# "2) Ana starts monday", "- Ana starts monday"), and such a request
_EN_FILLERS = (r"^(?:(?:oh|and|also|so|btw|but|plus|well|anyway|yeah|ok|okay|\(?\d{1,2}[).]|[-•*])[\s,]+)*"
               r"(?:(?:please\s+|pls\s+|can you\s+|could you\s+)?" + EN_WRITE_DOWN + ")?")
# a first name opening a clause as its subject (after a filler), followed by a verb-like word
# "Name's" is "Name is/has" when what follows cannot follow an owner: a participle (\w+ed, not "bed" or
# "speed"; an irregular one), a verb in -ing, a determiner ("Callum's a nurse"), an adverb or a
# preposition ("Dana's at work", "Sam's back home"); an owner's noun comes before its own verb
_CONTRACTED = (r"(?:\w+ing|\w{2,}[^e\W]ed|been|got|gotten|gone|done|had|made|taken|left|begun|become|come|"
               r"found|run|seen|quit|a|an|the|not|never|just|also|still|now|finally|already|always|"
               r"allergic|back|at|in|on|off|out|away|from|with|over|really|so|too|very|pretty|quite)\b"
               # not when a verb of its own follows it: an owner's noun ("Theo's wedding speech was great")
               r"(?!(?:\s+\w+)?\s+(?:is|was|are|were|has|had|will|looks?|looked|seems?|seemed)\b)")
# (adverbs and a parenthetical may stand between: "Nils, by the way, just got a job at…")
_SUBJECT_VERB = (r",?(?:'s\s+" + _CONTRACTED + r"|\s+(?:(?:just|also|still|now|finally|actually|apparently|"
                 r"btw|by the way|too|really)[\s,]+)*"
                 r"(?:is|was|has|had|have|moved|lives|works|started|got|loves|likes|hates|can't|doesn't|don't|"
                 r"isn't|says|said|will|wants|needs|prefers|eats|drinks|quit|left|joined)\b)")
# "Name's" owning the subject: a noun with a verb of its own after it ("dana's mum is", "ravi's new job starts")
_OWNED_THING = re.compile(r"['’]s\s+(?:\w+\s+)?\w+\s+(?:is|was|are|were|has|had|will|starts|started|looks|seems)\b",
                          re.IGNORECASE)
# what follows a name that is a clause's subject, without its "'s"
_SUBJECT_VERB_AFTER = re.compile(r"\s+(?:(?:just|also|still|now|finally|really|never|always)\s+)?"
                                 # (the base form a second language often leaves: "Bia have allergy to peanut")
                                 r"(?:is|was|has|had|have|does|doesn't|don't|isn't|can't|won't|will|[a-z]+(?:s|ed)|"
                                 # the past of the irregular verbs a life's news is told with ("Priya got the job")
                                 r"got|took|left|quit|found|began|became|went|came|made|won|lost|bought|sold|"
                                 r"met|kept|spent|paid|built|flew|drove|chose|broke|fell|grew)\b", re.IGNORECASE)
# the past of the irregular verbs a life's news is told with, which no noun shares ("Ruth took the job at…",
# "Leon got a new job"): after a first name, its verb (not "found" nor "bought": "mara found a flat…, we signed
# the lease" tells of the home they share; nor "went" or "came": "lou came around" is no news of hers)
_NEWS_PAST_WORDS = "took|got|left|quit|began|became|won|lost|met|flew|drove|chose|broke"
_NEWS_PAST = r"(?:" + _NEWS_PAST_WORDS + r")\b"
_NAME_SUBJECT = re.compile(_EN_FILLERS + "(" + _NAME + ")(?:" + _SUBJECT_VERB + r"|\s+(?:just\s+|finally\s+)?"
                           + _NEWS_PAST + ")")
# a name given before opening a clause, or a sentence in it after a short one ("ugh yeah. jay is …"),
# in any case, as its subject (followed by its verb, as above, or any verb in -s or -ed, or the base form a
# second language leaves: "Bea want to move…"; "Tom and I moved" is not about Tom)
_KNOWN_SUBJECT = re.compile(r"(?:^|[.!?;]\s+)" + _EN_FILLERS[1:] + r"([^\W\d_]+(?:-[^\W\d_]+)*)(?:" + _SUBJECT_VERB
                            + r"|\s+(?:just\s+|finally\s+|also\s+|now\s+)?(?:" + _NEWS_PAST_WORDS
                            + r"|[a-z]+ed|want|wants|need|needs|live|work|start|starts|is|was|has|had)\b)",
                            re.IGNORECASE)

# a name made of 阿 and one character (阿杰, 阿琳), not a kinship word (阿姨, 阿婆, 阿公)
_ZH_KINSHIP_A = "姨婆公爸妈伯叔哥姐弟妹嫂爷奶"
_ZH_A_NAME = re.compile(f"(阿(?![{_ZH_KINSHIP_A}])[\u4e00-\u9fff])")


def _kinship_word(value: str) -> bool:
    """Whether ``value`` opens on a kinship word made with 阿 (阿姨, 阿婆): what one calls a relative, no name."""
    return len(value) > 1 and value[0] == "阿" and value[1] in _ZH_KINSHIP_A


# what no Chinese name holds: a pronoun, a function word or a verb of the clause (老公…给我, 天天想), or only a
# laugh or an interjection (哈哈, 嘿嘿)
_ZH_NOT_IN_NAME = re.compile(r"[我你他她它给想说要是的了在也都就还又很太把被让]|^[哈呵嘿嘻啊嗯哦呜额唉嘤]+$")
_ZH_FILLER = re.compile(r"^(?:对了|还有|另外|然后|哦|嗯|啊|其实|不过|但是|而且|就是|那个|我家|\s)+")
# a short opener joined to the clause by a tilde, a greeting or an exclamation ("好久没来～周航搬来了"):
# the clause's subject comes after it
_ZH_OPENER = re.compile(r"^[^，,。！!？?～~]{1,6}[～~]+\s*")
# a short reply word before a blank or a comma ("是的 王磊…", "对，王磊…"): what the clause's subject follows
_ZH_REPLY_LEAD = re.compile(r"^[^，,。！!？?\s]{1,3}[\s，,]+")

# English: the verb after a third-person subject, made first person ("my sister is" -> "I am")
_EN_VERB = re.compile(r"^(\s*(?:also |still |really |just |now |never |always |actually )?)"
                      r"(is|was|has|does|doesn't|isn't|hasn't|are|were|aren't|'s|[a-z]+(?:ies|es|s))\b", re.IGNORECASE)
_EN_FIRST = {"is": "am", "'s": "'m", "has": "have", "does": "do", "doesn't": "don't",
             "isn't": "am not", "hasn't": "haven't", "was": "was", "are": "am", "were": "was", "aren't": "am not"}
# where another person is (located): 在 and a place the clause ends on; 从 a place they come from
# (在 of a word, 现在, 正在, 实在, 存在, 自在, 所在, 好在, says no place: "现在是财务主管")
_ZH_AT = re.compile(r"(?:住)?(?<![现正实存自所好])在(?P<place>[\u4e00-\u9fff]{2,5}?)(?:那边|那儿|那里|这边|一带)?(?:呢|啊|哈|呀|了|的)?$")
_ZH_FROM = re.compile(r"从(?P<place>[\u4e00-\u9fff]{2,5}?)(?:飞|坐车|开车)?(?:过来|来|赶过来)")
_EN_PLACE = r"(?P<place>[^\W\d_][\w'’.-]*(?:\s+[^\W\d_][\w'’.-]*){0,2}?)"
_EN_AT = re.compile(r"(?i)(?:\b(?:is|are|lives|live)|['’](?:s|re))\s+(?:(?:up|down|out|over|back|still|now|currently|"
                    r"based|living)\s+)*in\s+" + _EN_PLACE + r"(?:,?\s+(?:now|these days|atm|rn|tho|though))?(?=\s*(?:$|[,;]))")
# (or being here from it: "my mam is over from Accra for the summer")
_EN_FROM = re.compile(r"(?i)\b(?:(?:visiting|coming|flying|driving|comes|came|flies)(?:\s+(?:in|over|down|up|out))?"
                      r"|(?:is|'s|are|was|were)\s+(?:over|up|down|here))\s+from\s+"
                      + _EN_PLACE + r"(?=\s*(?:$|,|\.|!|\?|\b(?:next|this|on|in|for|to|and|at|tomorrow|tonight)\b))")

# after the relation word, the place that names the person ("my mum in Nyeri has…", "my brother over in Cork,";
# not "my sister in law")
_EN_NAMED_IN = re.compile(r"(?i)(?:['’]s)?\s+(?:(?:up|down|out|over|back)\s+)?in\s+(?!laws?\b)" + _EN_PLACE
                          + r"(?=\s*(?:$|[,;.!?]|\b(?:has|had|is|was|says|said|will|would|wants|thinks|keeps|and|who)\b))")

# a third-person pronoun as a subject, with its contraction if it has one ("she's", "they're", "he'll")
_EN_PRONOUN = re.compile(r"(?i)(?<![\w'’])(she|he|they)(?:(['’](?:s|re|ve|ll|d))(?![\w'’])|(?![\w'’]))")
_EN_CONTRACTED_FIRST = {"s": "m", "re": "m"}  # the rest stay: 've, 'll, 'd
_EN_MY_WORD = re.compile(r"(?i)\b(?:my|our)\s+([a-z]{4,})\b")  # a word a relation word may be mistyped as
MIN_TYPO_WORD = 5  # letters of a relation word read through one slip of the keyboard (mum/mom/son are not)
# a clause about someone going on about them after "and"/"but": by a subject pronoun ("… and she's called
# Lily") or by "her"/"his" before what a person has (``Cues.possessed``: "… and her name is Lily")
_EN_GOES_ON = re.compile(r"(?i)\b(?:and|but)\s+(?:(she|he)\b|(her|his)\s+)")
_EN_THEIR = re.compile(_EN_FILLERS + r"(her|his|their)\s+", re.IGNORECASE)  # "her name is Nomsa"
_EN_HAS = re.compile(r"(?i)\s+(?:(?:just|already|also|still|never|always)\s+)?(?:been|got|gotten|had)\b")
_EN_NOT_VERBS = {"always", "sometimes", "perhaps", "is", "was", "has", "does", "this", "his", "its", "yes",
                 "us", "as", "less", "unless", "across", "nervous", "famous", "serious", "various",
                 "glass", "class", "miss", "boss", "bus", "plus", "thus", "previous", "obvious"}


_ZH_ME = "我(?![姐妹哥弟妈爸老公婆女男儿朋同室舍邻们])"  # the speaker, not "我妹妹", "我们"
# what may stand before a Chinese clause's subject: fillers, a discourse opener (a cleft's "…是" among them:
# 主要是我男朋友…), a short reply said first as a sentence of its own (好滴。我男朋友…)
_ZH_LEAD = re.compile(r"^(?:对了|还有|另外|然后|哦|嗯|啊|其实|不过|但是|而且|就是|那个|主要是|关键是|问题是|"
                      r"只是|可是|我的?|咱|我们家?|[对是嗯好行](?=[\s，,])|[^，,。！!？?\s]{1,4}[。！!～~]+|\s)+")
# a topic said before the subject ("吃的方面她…", "工作上他…")
_ZH_TOPIC = re.compile(r"^[^，,。！!？?\s]{1,4}(?:方面|的话|这块|上)\s*")


# "… and I", "… Rosa and me": a joint subject with the speaker in it (after the relation word and its name)
_EN_AND_I = re.compile(r"(?:\s+[A-Z][\w'-]*)?\s+and\s+(?:I|me)\b", re.IGNORECASE)


def _en_pronoun_as_i(text: str, pm: re.Match[str] | None) -> str:
    """The English clause from subject pronoun ``pm`` (an ``_EN_PRONOUN`` match) on, with "I" for it."""
    if pm is None:
        return text
    rest = text[pm.end():]
    if pm.group(2):  # a contraction: "she's a nurse" -> "I'm a nurse", "they've moved" -> "I've moved"
        short = pm.group(2)[1:].lower()
        if short == "s" and _EN_HAS.match(rest):
            short = "ve"  # "he's been vegetarian for years": has
        return "I'" + _EN_CONTRACTED_FIRST.get(short, short) + rest
    return "I" + _en_first_person(rest)


def _en_first_person(rest: str) -> str:
    m = _EN_VERB.match(rest)
    if not m:
        return rest
    lead, verb = m.group(1), m.group(2)
    low = verb.lower()
    if low in _EN_FIRST:
        new = _EN_FIRST[low]
    elif low in _EN_NOT_VERBS or low.endswith("ss") or low.endswith("us"):
        return rest
    elif low.endswith("ies"):
        new = verb[:-3] + "y"
    elif low.endswith(("ches", "shes", "xes", "sses", "zes", "oes")):
        new = verb[:-2]
    else:
        new = verb[:-1]
    return lead + new + rest[m.end():]


# a name said before the relation word it is given ("Declan is my partner", "Aoife, my eldest, …"), or before a
# pronoun that then says so in the same turn ("Declan would eat chilli every day. he's my partner")
_NAMED_BEFORE = re.compile(r"(?:^|(?<=[\s,.!?;:(]))(" + _NAME + r")(?P<comma>,\s*|\s+(?:is|was|is actually|=)\s+)my\s+$")
_APPOSITION_CLOSED = re.compile(r"\s*(?:[,)—–-]|$)")  # "Declan, my partner, is …": the apposition closes
_PRONOUN_BEFORE = re.compile(r"(?:^|(?<=[\s,.!?;:(]))(?:he|she|they)(?:'s|’s| is|s| are|'re)\s+my\s+$", re.IGNORECASE)
_NAME_IN_TURN = re.compile(r"\b(" + _NAME + r")\b")
_PRONOUN_REACH = 120  # characters before "he's my …" in which the one name it may mean is looked for


def _named_before(text: str, at: int, end: int) -> re.Match[str] | None:
    """The name given before the relation word at ``at`` (ending at ``end``): said right before it ("Declan is my
    partner", "Declan, my partner, is …": an apposition that closes, not "not 19th sept, my uncle has …"), or the
    one name the turn says not long before "he's/she's my …" (none when it writes two words with capitals, or a
    common word with one, which may be a name too: "Tom and Declan came. he's my partner"). Raises nothing."""
    m = _NAMED_BEFORE.search(text, max(0, at - 40), at)
    if m is not None and (not m.group("comma").startswith(",") or _APPOSITION_CLOSED.match(text, end)):
        return m
    if _PRONOUN_BEFORE.search(text, max(0, at - 14), at) is None:
        return None
    found = [f for f in _NAME_IN_TURN.finditer(text, max(0, at - _PRONOUN_REACH), at) if f.group(1) != "I"]
    # one name and no other word written with a capital (a common word may be a name too: "Tom and Declan")
    if len({f.group(1) for f in found}) != 1 or not is_lower_case_name(found[0].group(1).lower()):
        return None
    return found[0]


class People:
    """The person-finding rules, over the relation words and names of ``cues``."""

    def __init__(self, cues: Cues) -> None:
        self.cues = cues
        # the names each text gives, found once: a session's user turns are read again for every turn after them
        self._given: dict[str, tuple[tuple[str, str], ...]] = {}
        # a reporting verb (说, 觉得; not one whose object is the speaker: 让我) ending the text before a pronoun
        self._zh_reported = re.compile("(?:" + cues.reporting["zh"].pattern + ")(?<!我)$")

    def introductions(self, text: str, names: dict[str, str]) -> None:
        """Names given with a relation word ("my sister Dana", "our manager, Keisha", "gf is Priya",
        "我女儿朵朵今年…", "柯基叫豆豆", "老婆叫小梅 是…"), into ``names``. A turn typed without capitals is
        read with its names' capitals given back (``lang.case.recased``): "my wife rosa live…" names Rosa."""
        given = self._given.get(text)
        if given is None:
            found: dict[str, str] = {}
            self._introduced(text, found)
            if len(self._given) >= _GIVEN_KEPT:
                self._given.clear()
            given = self._given[text] = tuple(found.items())
        names.update(given)

    def _introduced(self, text: str, names: dict[str, str]) -> None:
        """``introductions``, worked out."""
        lower = not any("A" <= ch <= "Z" for ch in text)
        cased = recased(text) if lower else text
        for m in self.cues.relation_re["en"].finditer(cased):
            key = self.cues.relation_key("en", m.group(0))
            if self.owned_by_other(cased, m, "en"):
                continue  # "his mum marguerite": someone else's relation, not the speaker's
            if _A_TITLE.search(cased, max(0, m.start() - 30), m.start()) and _AT_WORK.match(cased, m.end()):
                continue
            after = _INTRODUCED.match(cased, m.end()) or _INTRODUCED_IS.match(cased, m.end()) \
                or _named_before(cased, m.start(), m.end())
            if after and (slip := _NAME_SLIP.match(cased, after.end())):
                after = slip  # "my roommate Jake— sorry Jay, autocorrect": the name meant
            if key and after and after.group(1) not in self.cues.not_names and not after.group(1).isupper():
                names[after.group(1).lower()] = key  # not a word shouted in capitals ("my mum NOT happy")
            elif key and lower:
                after = _INTRODUCED_LOWER.match(text, m.end())
                if after and not self._not_a_lower_name(after.group(1)):
                    names[after.group(1)] = key
            elif key:  # a name typed in lower case in a turn typed with capitals ("w my husband marco.")
                after = _LOWER_WORD.match(text, m.end())
                if after and is_lower_case_name(after.group(1)) and not self._not_a_lower_name(after.group(1)):
                    names[after.group(1)] = key
        for m in self.cues.relation_re["zh"].finditer(text):
            key = self.cues.relation_key("zh", m.group(0))
            after = self.cues.zh_introduced.match(text, m.end())
            # called so (叫朵朵), or right after the relation word in a name's shape (我女儿朵朵, not 房东说退租)
            if key and after and not _ZH_NOT_IN_NAME.search(after.group(1)) \
                    and (after.group(0) != after.group(1) or self.looks_like_name(after.group(1))):
                names[after.group(1)] = key
            elif key and (nick := _ZH_A_NAME.match(text, m.end())) is not None:
                # 阿 and a character right after the relation word is a name whatever follows it (我老公阿杰跑货车的,
                # 跟室友阿琳一起): no word opens so but a kinship one (阿姨, 阿婆)
                names[nick.group(1)] = key

    def _not_a_lower_name(self, word: str) -> bool:
        """Whether a lower-case word in a name's slot is rather a word of the
        clause (an adverb, a filler, an opener, a relation word, chat's shorthand: "a cat lmao")."""
        return (word in _LOWER_SLOT or word.endswith("ly") or word.capitalize() in self.cues.not_names
                or word in self.cues.relations["en"] or is_chat_word(word))

    def known_name_opening(self, text: str, names: Mapping[str, str]) -> str | None:
        """A name given before (``names``, lower case) that opens an English
        clause, in any case ("sipho's on nights this week", "Dana moved")."""
        for m in _KNOWN_SUBJECT.finditer(text):
            if m.group(1).lower() in names:
                return m.group(1)
        return None

    def zh_name_subject(self, text: str, names: Mapping[str, str]) -> str | None:
        """A name introduced before that opens a Chinese clause ("朵朵对鸡蛋过敏", ``_zh_heads``)."""
        heads = _zh_heads(text)
        return next((key for name, key in names.items() if any(h.startswith(name) for h in heads)), None)

    def name_subject(self, text: str) -> str | None:
        """A first name the clause opens with as its subject ("Dana just moved …")."""
        m = _NAME_SUBJECT.match(text)
        if m is None or m.group(1) in self.cues.not_names:
            return None
        return m.group(1)

    def possessor(self, text: str, lang: str) -> tuple[str, str] | None:
        """A named person who owns the clause's subject, when what they own is an
        attribute of a person ("Ana's rent is…", "老周的生日是…": the cue table
        ``possessed``): their name, and the clause with the possessor as "my"/我的
        ("My rent is…", "我的生日是…"). None: no such possessor ("Domino's pizza is
        the best" owns no attribute; "周末的计划" is a time's, not a person's)."""
        if lang == "en":
            m = re.match(_EN_FILLERS + "(" + _NAME + r")(?:'s|’s)\s+", text, re.IGNORECASE)
            if m is None or not m.group(1)[0].isupper() or m.group(1) in self.cues.not_names:
                return None
            owned = re.match(r"(?:[a-z]+\s+)?", text[m.end():])  # one adjective: "Ana's new flat"
            start = m.end() + (owned.end() if owned else 0)
            if not (self.cues.possessed["en"].match(text, start)
                    or self.cues.possessed["en"].match(text, m.end())):
                return None
            return m.group(1), text[:m.start(1)] + "my " + text[m.end():]
        head = _ZH_FILLER.sub("", _ZH_FILLER.sub("", text).lstrip("，,、 "))
        surnames, prefixes = self.cues.zh_surnames, self.cues.zh_name_prefixes
        m = re.match(f"([{prefixes}][{surnames}]|[{surnames}][\u4e00-\u9fff]{{1,2}}?)的", head)
        if m is None or not self.cues.possessed["zh"].match(head, m.end()):
            return None
        if find_times(m.group(1), _ANY_TIME):
            return None
        return m.group(1), "我的" + head[m.end():]

    def with_nicknames(self, names: Mapping[str, str]) -> dict[str, str]:
        """``names`` (lower case, each with its relation key) with the forms a Chinese full name is called
        by: a surname and a given name (林悦, 陈晓雯) is also called by the given name when it has two
        characters (晓雯), its last character doubled (悦悦, 雯雯), or 小 or 阿 before it (小悦, 阿雯). A form
        two people's names would share, or a name given already, is left out. Raises nothing."""
        forms: dict[str, set[str]] = {}
        for name, key in names.items():
            if not (_is_cjk_name(name) and len(name) in (2, 3) and name[0] in self.cues.zh_surnames):
                continue
            given = name[1:]
            for form in ({given} if len(given) == 2 else set()) | {given[-1] * 2, "小" + given[-1], "阿" + given[-1]}:
                forms.setdefault(form, set()).add(key)
        out = dict(names)
        for form, keys in forms.items():
            if len(keys) == 1 and form not in out:
                out[form] = next(iter(keys))
        return out

    def looks_like_name(self, value: str) -> bool:
        """Whether ``value`` has the shape of a person's name: one to three
        capitalised words that are not common openers ("Lucia", "Tom Reyes"), or
        two or three Chinese characters opening with a surname or 小/老/阿 (王姐,
        阿杰, 陈雪), or a doubled character (朵朵)."""
        if _is_cjk_name(value):
            return not _ZH_NOT_IN_NAME.search(value) and not _kinship_word(value) and (
                value[0] in self.cues.zh_surnames or value[0] in self.cues.zh_name_prefixes or value[0] == value[1])
        words = value.split()
        return (0 < len(words) <= 3 and all(w[:1].isupper() and w.replace("-", "").replace("'", "").isalpha()
                                          for w in words) and words[0] not in self.cues.not_names)

    def may_be_name(self, value: str) -> bool:
        """Whether Chinese characters right after a relation word, where nothing marks where a name
        would end, may be the person's name: one of a name's shape (``looks_like_name``), or any
        other but the clause's own words: not ones that begin as a predicate does (住天津, 在深圳;
        ``[dropped_subject]``) nor ones holding a cue word (好像)."""
        if self.looks_like_name(value):
            return True
        return not _kinship_word(value) and not self.drops_subject(value, "zh") and not any(self.cues.has(act, value, "zh") for act in self.cues.acts)

    def relation(self, text: str, lang: str) -> tuple[str, re.Match[str]] | None:
        """The first relation word of ``text`` with its relation key. Chinese relation words overlap
        ("我姐" and "姐姐" in "我姐姐"): a word starting inside the one found and ending after it
        makes the match reach to its end, with its relation."""
        found = self.cues.relation_re[lang]
        m = found.search(text)
        if m is None:
            return self._mistyped_relation(text) if lang == "en" else None
        key = self.cues.relation_key(lang, m.group(0))
        if lang == "zh":
            longer = [x for x in (found.match(text, at) for at in range(m.start() + 1, m.end()))
                      if x is not None and x.end() > m.end()]
            if longer:
                key = self.cues.relation_key(lang, longer[-1].group(0)) or key
                m = re.compile(re.escape(text[m.start():longer[-1].end()])).match(text, m.start()) or m
        return (key, m) if key else None

    def _mistyped_relation(self, text: str) -> tuple[str, re.Match[str]] | None:
        """A relation word of five letters or more typed one slip away after "my"/"our" ("my daugther",
        "my neice", "our grandaughter"), with its relation key; not a word of its own ("my sitter"). One slip: a letter changed, added or left
        out, or two next to each other swapped (a check of ten lines for a handful of words; no library)."""
        for owner in _EN_MY_WORD.finditer(text):
            typed = owner.group(1).lower()
            if is_english_word(typed):
                continue  # a word of its own ("my sitter", "my brothers"), no slip
            key = next((k for word, k in self.cues.relations.get("en", {}).items()
                        if len(word) >= MIN_TYPO_WORD and " " not in word and _one_slip(typed, word)), None)
            typo = re.compile(re.escape(owner.group(1))).match(text, owner.start(1)) if key is not None else None
            if key is not None and typo is not None:
                return key, typo
        return None

    def owned_by_other(self, text: str, m: re.Match[str], lang: str) -> bool:
        """Whether the relation word ``m`` is someone else's ("her sister's dani", "his mum"): the person is
        no relation of the speaker's by that word."""
        return lang == "en" and bool(_OWNED_BY_OTHER.search(text, max(0, m.start() - 8), m.start()))

    def reports(self, text: str, m: re.Match[str], lang: str) -> bool:
        """Whether the relation word ``m`` is the subject of a reporting verb
        ("老婆同意…", "my boss says …", "我男朋友阿哲说…"): the clause says what they said."""
        at = m.end()
        if lang == "zh":  # a name after the relation word (English: the pattern allows one)
            name = self.cues.zh_introduced.match(text, at)
            if name is not None and name.group(0) == name.group(1) and self.looks_like_name(name.group(1)):
                at = name.end()
        return bool(self.cues.reporting[lang].match(text, at))

    def is_subject(self, text: str, m: re.Match[str], lang: str) -> bool:
        """Whether the relation word is what the clause speaks about: its
        subject (not an object: "I called my mum", "给我妈打电话")."""
        before = text[:m.start()]
        if self.reports(text, m, lang):
            return False  # "老婆同意把预算加到两万", "my boss says I can work from home"
        if lang == "zh":
            # the relation words just before it are one phrase with it: 从爸妈家 is 从 (爸妈) 家
            before = self.cues.relation_run.sub("", before)
            # 我姐…, 姐姐…, 我老公他… at the start, after a filler or a time word; not after a verb
            # or a coverb that makes it an object (跟老伴两个人住, 给我妈打电话)
            return self._zh_leads(_ZH_LEAD.sub("", before))
        if _EN_AND_I.match(text, m.end()):
            return False  # "my wife and I live in Clontarf": the speaker among them, whose fact it is too
        if m.group(0).lower() in self.cues.bare.get(lang, ()) and re.fullmatch(_EN_FILLERS, before.lower()):
            return True  # "mom is vegetarian now", "also grandpa's allergic to bees"
        words = re.findall(r"[\w']+", before.lower())
        # "and" alone joins the clause to the one before ("oh and my mum's visiting"); "me and my sister" is
        # the speaker's too, and a preposition makes it an object
        return bool(words) and words[-1] in ("my", "our", "the") and len(words) <= 4 and not any(
            w in ("i", "i'm", "me", "to", "with", "for", "about") for w in words[:-1])

    def pronoun_subject(self, text: str, lang: str) -> re.Match[str] | None:
        """A third-person pronoun the clause speaks of: in Chinese, one that is its
        subject ("他在宜昌开出租", not "去汉口站接她" nor 其他); in English, any, chat
        typing read as written ("hes allergic": the match is then in ``written(text)``)."""
        if lang != "zh":
            return self.cues.pronoun_re[lang].search(written(text))
        # what may stand before it: a filler, a short time word, or a topic ("吃的方面她…"); a pronoun
        # saying what he said goes on about him ("他说以后开车上班")
        # a pronoun right after a reporting verb is the subject of what is reported ("体检说他对花生过敏")
        return next((m for m in self._zh_pronouns(text)
                     if self._zh_leads(_ZH_TOPIC.sub("", _ZH_LEAD.sub("", text[:m.start()])))
                     or self._zh_reported.search(text, 0, m.start())), None)

    def _zh_pronouns(self, text: str) -> Iterator[re.Match[str]]:
        """The Chinese third-person pronouns of ``text``, not the 他 of 其他."""
        return (m for m in self.cues.pronoun_re["zh"].finditer(text) if text[m.start() - 1:m.start()] != "其")

    def _zh_leads(self, lead: str) -> bool:
        """Whether what is left before a Chinese subject (past fillers) still lets it lead its
        clause: two characters at most, and no coverb making it an object (跟他, 给我妈)."""
        lead = lead.strip("，, ")
        return len(lead) <= 2 and not self.cues.object_marker["zh"].search(re.sub(r"我的?$", "", lead))

    def pronoun(self, text: str, lang: str) -> re.Match[str] | None:
        """The pronoun a clause about someone names them by: its subject, else the first ("大家都叫她王姐")."""
        return self.pronoun_subject(text, lang) or (
            next(self._zh_pronouns(text), None) if lang == "zh" else self.cues.pronoun_re[lang].search(text))

    def last_spoken_of(self, text: str, names: Mapping[str, str]) -> str | None:
        """The person ``text`` speaks of last: a relation word ("your sister", 您女儿) or a name
        given before (``names``, lower case), as its relation key; None: nobody."""
        found: list[tuple[int, str]] = []
        for lang in ("zh", "en"):
            for m in self.cues.relation_re[lang].finditer(text):
                key = self.cues.relation_key(lang, m.group(0))
                if key and not self.owned_by_other(text, m, lang):  # "her sister": none of the user's
                    found.append((m.start(), key))
        for name, key in names.items():
            edge = "" if is_zh(name) else r"\b"
            found += [(m.start(), key) for m in re.finditer(edge + re.escape(name) + edge, text, re.IGNORECASE)]
        return max(found)[1] if found else None

    def speaks_of_self(self, text: str, lang: str) -> bool:
        if lang == "zh":  # past a short reply joined to the clause ("不远，我住文三路")
            return bool(re.match(r"^(?:[^，,。]{0,4}[，,、～~]\s*)?(?:[^，,。]{0,4})?" + _ZH_ME, text))
        # chat typing as written first ("ive been vegetarian", "im gluten free": I've, I'm)
        return bool(re.search(r"(?<![\w'])(?:i|i'm|i've|i'll|i'd|me|my)(?![\w'])", written(text), re.IGNORECASE))

    def names_self(self, text: str, lang: str) -> bool:
        """Whether the clause names the speaker anywhere, not only as the
        possessor of a relation word ("朋友都叫我小鹿": yes; "我妹妹住在杭州": no)."""
        if lang == "zh":
            return bool(re.search(_ZH_ME, text))
        text = written(text)  # "my"/"our" owning a relation word ("my sister lives in Boston") names no speaker
        for m in reversed(list(self.cues.relation_re["en"].finditer(text))):
            owner = _EN_OWNER_BEFORE.search(text, max(0, m.start() - 8), m.start())
            if owner is not None:
                text = text[:owner.start()] + text[m.end():]
        return self.speaks_of_self(text, lang)

    def drops_subject(self, text: str, lang: str) -> bool:
        """Whether a clause begins with its predicate, its subject dropped
        (``cues.toml`` ``[dropped_subject]``, after a time it may open with): in Chinese, where a topic chain
        goes on that way ("在阿里上班", "也喜欢猫", "以后坐地铁上班"); in English, only on a verb in the third person singular, never the speaker's
        ("works as a nurse", "also has a cat": ``third_person_opening``)."""
        if lang == "en":
            return self.third_person_opening(text) is not None
        starts = self.cues.dropped_subject.get(lang, ())
        body = text.lstrip(" ，,、")
        if (said := opening_time(body, _ANY_TIME)) is not None:  # a time it opens with is no subject ("下个月调去深圳")
            body = body[said[1]:].lstrip(" ，,、")
        return bool(starts) and body.startswith(starts)

    def third_person_opening(self, text: str) -> str | None:
        """An English clause that opens on a verb in the third person singular, its subject left out
        (after the leading words of ``[dropped_subject]`` en: "also works at the depot"), read with "I" as
        that subject ("I also work at the depot"), or on a predicate whose copula is left out too
        (``[copula_dropped]``: "allergic to nuts" -> "I'm allergic to nuts"); None: it opens otherwise ("work
        at the depot", "she works…")."""
        m = _EN_OPENING_WORD.match(text)
        while m is not None and m.group(1).lower() in self.cues.dropped_subject.get("en", ()):
            m = _EN_OPENING_WORD.match(text, m.end())
        if m is None:
            return None
        lead = [w for w in re.findall(r"[A-Za-z]+", text[:m.start(1)]) if w.lower() not in _CONJUNCTIONS]
        if m.group(1).lower() in self.cues.copula_dropped:
            # a predicate with its copula left out ("…, allergic to nuts", "…, vegetarian too"): "I'm" before it
            return " ".join(["I'm", *lead, text[m.start(1):].strip()])
        base = first_person_of(m.group(1))
        return None if base is None else " ".join(["I", *lead, base, text[m.end(1):].strip()]).strip()

    def _has_attribute(self, text: str, at: int) -> bool:
        """Whether an English word at ``at`` is one a person has (``Cues.possessed``), 's after it or not
        ("her name is", "his name's")."""
        word = re.match(r"[^\W\d_]+", text[at:])
        return word is not None and self.cues.possessed["en"].fullmatch(word.group(0)) is not None

    def first_person(self, text: str, lang: str, mentions: Sequence[str] = ()) -> str | None:
        """The clause with the person it is about as "I" (None: no person found to replace).
        ``mentions``: the names the clause gives them; an English clause opening on one as its
        subject reads "I" there ("Dana is vegan now" -> "I am vegan now", "ravi's a backend dev" ->
        "I'm a backend dev")."""
        if lang == "en":
            text = written(text)  # chat typing ("shes a nurse") as written
            by_name = _name_as_i(text, mentions)
            if by_name is not None:
                return by_name
        named = self.relation(text, lang)
        owner = self.possessor(text, lang)
        if owner is not None and (named is None or not self.is_subject(text, named[1], lang)):
            return owner[1]
        if lang == "zh":
            if named is not None and self.is_subject(text, named[1], lang):
                rest = text[named[1].end():]
                name = self.cues.zh_introduced.match(rest)
                # a name said right after the relation word ("我男朋友阿杰在深圳"), not the clause's
                # own words taken for one ("我妈住天津": 住天津 is where she lives)
                if name is not None and not name.group(0).startswith(("叫", "名")) \
                        and self.may_be_name(name.group(1)):
                    rest = rest[name.end(1):]
                new = "我" + rest.lstrip("他她")  # what stood before it is a filler (is_subject): 对了, 还有
            else:
                m = self.pronoun(text, lang)
                if m is None:
                    return _zh_name_as_i(text, mentions)
                new = text[:m.start()] + "我" + text[m.end():]
        else:
            if named is not None and self.is_subject(text, named[1], lang):
                m = named[1]
                head = re.sub(r"(?i)\b(?:my|our|the)\s*$", "", text[:m.start()])
                after = text[m.end():]
                if re.match(r"(?:'s|’s)\s", after) and self.cues.possessed["en"].search(after[:40]):
                    return head + "my " + after[3:]  # "my sister's rent is" -> "my rent is"
                lower = _INTRODUCED_LOWER.match(after)  # "my husband sipho is": a name typed in lower case
                if lower is not None and lower.group(1).lower() not in _LOWER_SLOT:
                    after = after[lower.end():]
                else:  # "my sister Lily is", "my brother Tom's been"
                    after = re.sub(r"^,?\s+" + _NAME + r"(?=,?\s|'s\b|’s\b)", "", after)
                if after.startswith(("'s", "’s")):
                    tail = after[2:]  # an owner's noun: left as it was ("jess's birthday")
                    if re.match(r"(?:'s|’s)\s+" + _CONTRACTED, after):  # "jay's moving": is (has: "'s been")
                        tail = (" has" if _EN_HAS.match(tail) else " is") + tail
                    after = tail
                rest = re.sub(r"^\s*(?:" + _NAME + r"\s+)?", " ", after)  # "my sister Lily is"
                again = _EN_PRONOUN.match(rest, 1)  # the subject said again ("my brother Rui he is a fisherman")
                new = head + (_en_pronoun_as_i(rest, again) if again is not None else "I" + _en_first_person(rest))
                new = re.sub(r"(?i)(\band )(\w+)", lambda m: m.group(1) + _en_first_person(m.group(2)), new)
                # the clause goes on about them by a pronoun of its own ("my sister lives in Leeds and she's
                # called Lily", "… and her name is Lily"): that is "I" (or "my") too
                went_on = _EN_GOES_ON.search(new)
                if went_on is not None and went_on.group(1):
                    new = new[:went_on.start(1)] + _en_pronoun_as_i(new, _EN_PRONOUN.match(new, went_on.start(1)))
                elif went_on is not None and self._has_attribute(new, went_on.end()):
                    new = new[:went_on.start(2)] + "my " + new[went_on.end():]
            else:
                pm = _EN_PRONOUN.search(text)
                if pm is None:
                    owned = _EN_THEIR.match(text)  # "her name is Nomsa", "his rent went up": "my name is Nomsa"
                    if owned is None or not self._has_attribute(text, owned.end()):
                        return None
                    return text[:owned.start(1)] + "my" + text[owned.end(1):]
                new = text[:pm.start()] + _en_pronoun_as_i(text, pm)
        return None if new == text else new

    def located(self, text: str, lang: str, relation_word: str | None = None) -> str | None:
        """Where another person lives, said as where they are or come from (the clause is about them):
        "我妈在南通", "她一直在成都呢", "从宝鸡过来帮我们带孩子", "she's up in Dauphin", "lives over in
        Fort Garry", "visiting from Leicester next month", and (given the ``relation_word`` the clause names
        them with) the place that names them: "my mum in Nyeri has a list too". Only a place the clause ends
        on (or, coming from it, goes on from, or naming them, goes on with a verb), or a town the places
        table knows followed by what one does where one lives ("她在成都开火锅店": ``Cues.lives_by``), and none
        of ``Cues.not_places``: 她在开会, 在医院, "she's in hospital". None: no such place."""
        if lang == "zh":
            m = _ZH_FROM.search(text) or _ZH_AT.search(text)
            place = m.group("place") if m else None
            if place is not None and not place.startswith(self.cues.not_places["zh"]) \
                    and not any(w in place for w in self.cues.not_within_place):
                return place
            # a town the places table knows, then what one does where one lives ("她在成都开火锅店"), or a
            # town opening the place said (在深圳腾讯做产品经理: 深圳)
            lives = self.cues.lives_by.search(text)
            said = lives.group("place") if lives else ""
            town = place_in(said) if said else None
            return town.name if town is not None and said.startswith(town.name) else None
        text = written(text)
        m = _EN_FROM.search(text) or _EN_AT.search(text.rstrip(" .!?,~"))  # the first place it ends on
        if m is None and relation_word:  # the place that names them ("my mum in Nyeri has a list too")
            word = relation_word.casefold()
            m = next((found for r in self.cues.relation_re["en"].finditer(text) if r.group(0).casefold() == word
                      and (found := _EN_NAMED_IN.match(text, r.end())) is not None), None)
        if m is None:
            return None
        place = m.group("place").strip()
        times = find_times(place, _ANY_TIME)
        place = place[:times[0][0]].strip() if times else place  # "brandon next monday"
        if not place:
            return None
        low = place.lower()
        if low in self.cues.not_places["en"] or low.split()[0] in ("a", "an", "the", "my", "his", "her", "their", "our"):
            return None
        return place

    def unnamed_readings(self, text: str) -> list[tuple[str, str]]:
        """A Chinese clause about a relation followed by a name with nothing to mark where the
        name ends ("我领导王姐海鲜过敏"): the clause read in the first person without the two or
        three characters after the relation word that may be a name (``may_be_name``), each with the
        name it took away (the caller keeps the first reading the extractor finds a fact in)."""
        named = self.relation(text, "zh")
        if named is None or not self.is_subject(text, named[1], "zh"):
            return []
        rest = text[named[1].end():]
        out = []
        for n in (2, 3):
            name, after = rest[:n], rest[n:]
            if len(name) == n and all("\u4e00" <= ch <= "\u9fff" for ch in name) and after \
                    and self.may_be_name(name):
                out.append(("我" + after, name))
        return out


def _name_as_i(text: str, mentions: Sequence[str]) -> str | None:
    """An English clause opening (after a filler) on one of ``mentions`` as its subject, with "I" there."""
    for name in mentions:
        m = re.match(_EN_FILLERS + "(" + re.escape(name) + r")(?=['’]s\s|\s+\w)", text, re.IGNORECASE)
        if m is None:
            continue
        head, after = text[:m.start(1)], text[m.end(1):]
        if after.startswith(("'s", "’s")):
            if _OWNED_THING.match(after):
                return None  # "dana's mum is a teacher": what is theirs is the subject
            tail = after[2:]
            return head + "I" + (" have" if _EN_HAS.match(tail) else "'m") + tail
        if not _SUBJECT_VERB_AFTER.match(after):
            return None  # "Dana and I", "Dana's mum": not their clause as its subject
        return head + "I" + _en_first_person(after)
    return None


def _zh_heads(text: str) -> list[str]:
    """Where a Chinese clause's subject may begin: past a filler, an opener, or a short reply word and a
    blank ("对了朵朵…", "好久没来～周航…", "是的 王磊…")."""
    heads = [_ZH_FILLER.sub("", text), _ZH_FILLER.sub("", _ZH_OPENER.sub("", text))]
    return heads + [h[lead.end():] for h in heads if (lead := _ZH_REPLY_LEAD.match(h)) is not None]


def _zh_name_as_i(text: str, mentions: Sequence[str]) -> str | None:
    """A Chinese clause opening on one of ``mentions`` as its subject (``_zh_heads``: "是的 王磊在宁波当医生"),
    with 我 there; None: none opens it."""
    return next(("我" + head[len(name):].lstrip("他她") for head in _zh_heads(text) for name in mentions
                 if head.startswith(name)), None)


def _one_slip(typed: str, word: str) -> bool:
    """Whether ``typed`` is ``word`` with one slip of the keyboard (not ``word`` itself): one letter
    changed, added or left out, or two next to each other swapped."""
    if typed == word or abs(len(typed) - len(word)) > 1:
        return False
    if len(typed) == len(word):
        diff = [i for i, (a, b) in enumerate(zip(typed, word, strict=True)) if a != b]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1
                                  and typed[diff[0]] == word[diff[1]] and typed[diff[1]] == word[diff[0]])
    short, long = sorted((typed, word), key=len)
    return any(long[:i] + long[i + 1:] == short for i in range(len(long)))


def _is_cjk_name(value: str) -> bool:
    return 2 <= len(value) <= 3 and all("\u4e00" <= ch <= "\u9fff" for ch in value)


Told = tuple[list[tuple[int, str, str]], list[tuple[int, str]], list[tuple[int, str]]]  # names, homes, money


class PeopleBook:
    """The people each user has named, with when: ``(said at, name, relation)``
    per user, from the store's ``name`` facts of ``person:<user>/…`` subjects
    and from the turns read so far in one ingest; where each user said they
    live, ``(said at, place)``, from their ``lives_in`` facts the same way; and
    the money they count in, ``(said at, currency)``, from their own budgets
    that named a currency. A turn sees only what was said before its time, so
    reading a conversation again reads it the same way. One book per ingest (it
    grows as the ingest reads its turns)."""

    def __init__(self, said: dict[str, list[tuple[int, str, str]]] | None = None,
                 homes: dict[str, list[tuple[int, str]]] | None = None,
                 money: dict[str, list[tuple[int, str]]] | None = None) -> None:
        self._said: dict[str, list[tuple[int, str, str]]] = {u: list(v) for u, v in (said or {}).items()}
        self._homes: dict[str, list[tuple[int, str]]] = {u: list(v) for u, v in (homes or {}).items()}
        self._money: dict[str, list[tuple[int, str]]] = {u: list(v) for u, v in (money or {}).items()}

    def before(self, user: str, at: int) -> dict[str, str]:
        """The names ``user`` said before ``at`` (µs), lower case, each with its relation key."""
        return {name.lower(): key for when, name, key in sorted(self._said.get(user, ())) if when < at}

    def learn(self, user: str, at: int, name: str, key: str) -> None:
        """``user`` named their ``key`` ``name`` at ``at``."""
        self._said.setdefault(user, []).append((at, name, key))

    def home_before(self, user: str, at: int) -> str | None:
        """Where ``user`` said last, before ``at`` (µs), that they live; None: nowhere yet."""
        said = [h for h in self._homes.get(user, ()) if h[0] < at]
        return max(said)[1] if said else None

    def learn_home(self, user: str, at: int, place: str) -> None:
        """``user`` said at ``at`` that they live in ``place``."""
        self._homes.setdefault(user, []).append((at, place))

    def currency_before(self, user: str, at: int) -> str | None:
        """The currency of the last budget of its own that ``user`` named one for before ``at`` (µs); None:
        none yet."""
        said = [m for m in self._money.get(user, ()) if m[0] < at]
        return max(said)[1] if said else None

    def learn_currency(self, user: str, at: int, currency: str) -> None:
        """``user`` set a budget of their own in ``currency`` at ``at``."""
        self._money.setdefault(user, []).append((at, currency))

    def of_users(self, users: Iterable[str]) -> dict[str, Told]:
        """What ``users`` have named, where they live and the money they count in, as the book was told it
        (for a book read in another process)."""
        return {u: (list(self._said.get(u, ())), list(self._homes.get(u, ())), list(self._money.get(u, ())))
                for u in users if u in self._said or u in self._homes or u in self._money}

    def take(self, told: Mapping[str, Told]) -> None:
        """Hold what another book learned of these users in place of what this one knows of them."""
        for user, (names, homes, money) in told.items():
            self._said[user] = list(names)
            self._homes[user] = list(homes)
            self._money[user] = list(money)
