"""Sensitive-data recognition and masking (issue 3, item 7)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from memdesk.lang.sensitive import SensitiveSpan, find_sensitive, has_sensitive, mask

GOLD = Path(__file__).resolve().parents[1] / "tests" / "sets" / "gold" / "extraction.jsonl"

# The gold set's kinds are coarser than ours: "id_card" is any national ID.
GOLD_KINDS = {
    "phone": {"phone"},
    "email": {"email"},
    "id_card": {"cn_id", "ssn", "nhs", "de_id"},
    "passport": {"passport"},
}

POSITIVES = [
    # Chinese mobiles
    ("我的手机号是15800001111，有急事打这个。", "phone", "15800001111"),
    ("电话 138-1234-5678 随时打", "phone", "138-1234-5678"),
    ("手机 139 1234 5678", "phone", "139 1234 5678"),
    ("号码+86 13912345678", "phone", "+86 13912345678"),
    ("号码+8613912345678。", "phone", "+8613912345678"),
    ("我老公手机号13687654321，订票联系人也写他。", "phone", "13687654321"),
    ("座机 010-12345678", "phone", "010-12345678"),
    # International / national phones
    ("Call me on +49 30 1234567 tomorrow.", "phone", "+49 30 1234567"),
    ("My number is +44 7700 900123.", "phone", "+44 7700 900123"),
    ("Office: (415) 555-0132.", "phone", "(415) 555-0132"),
    ("Office: 415-555-0132", "phone", "415-555-0132"),
    ("Ring 020 7946 0018 after six", "phone", "020 7946 0018"),
    ("His number is 07700 900123.", "phone", "07700 900123"),
    ("Mark Ellis, +44 20 7946 0958.", "phone", "+44 20 7946 0958"),
    ("My phone is +49 151 23456789 if needed", "phone", "+49 151 23456789"),
    ("or +44 (0)20 7946 0958", "phone", "+44 (0)20 7946 0958"),
    # E-mail
    ("邮箱写 chenjing@example.cn 就行。", "email", "chenjing@example.cn"),
    ("Email me at j.smith@example.org.", "email", "j.smith@example.org"),
    ("new email: carol.hughes@example.co.uk, thanks", "email", "carol.hughes@example.co.uk"),
    ("发到我邮箱liwei.dev@example.cn。", "email", "liwei.dev@example.cn"),
    ("a+tag@sub-domain.example.com", "email", "a+tag@sub-domain.example.com"),
    # Chinese resident ID (valid MOD 11-2)
    ("我的身份证号码是11010519850305000X。", "cn_id", "11010519850305000X"),
    ("身份证是440304199509210006，帮我填一下", "cn_id", "440304199509210006"),
    ("我的身份证号330106199208170000，同行的是我老公", "cn_id", "330106199208170000"),
    ("id 11010519850305000x lower-case x", "cn_id", "11010519850305000x"),
    # Passports
    ("护照号是E12345678，下个月到期。", "passport", "E12345678"),
    ("护照号码：G12345678", "passport", "G12345678"),
    ("新版护照 EA1234567", "passport", "EA1234567"),
    ("Passport no. 533380006, expires 2031.", "passport", "533380006"),
    ("my passport number is X1234567", "passport", "X1234567"),
    ("Passport: C01X00T47", "passport", "C01X00T47"),
    # National IDs
    ("My SSN is 078-05-1120.", "ssn", "078-05-1120"),
    ("My NHS number is 943 476 5919, for the GP", "nhs", "943 476 5919"),
    ("NHS no. 9434765919", "nhs", "9434765919"),
    ("My German ID card number is L01X00T47 if the form asks.", "de_id", "L01X00T47"),
    ("Personalausweisnummer: T220001293", "de_id", "T220001293"),
    # Payment cards (Luhn-valid test numbers)
    ("card 4111 1111 1111 1111 please", "card", "4111 1111 1111 1111"),
    ("卡号4111111111111111", "card", "4111111111111111"),
    ("Amex 3782-822463-10005", "card", "3782-822463-10005"),
    ("5555-5555-5555-4444 expires 12/28", "card", "5555-5555-5555-4444"),
]


@pytest.mark.parametrize(("text", "kind", "span"), POSITIVES)
def test_positive(text: str, kind: str, span: str) -> None:
    found = find_sensitive(text)
    assert [(s.kind, s.text) for s in found] == [(kind, span)], found
    (s,) = found
    assert text[s.start : s.end] == s.text
    assert has_sensitive(text)


NEGATIVES = [
    # amounts
    "预算$12,000，不能再多了。",
    "预算5000元左右。",
    "这个月花了15000000000元？开玩笑的。",
    "budget is 12,000,000 dollars",
    "the total was $4111111111111111",
    "预算一万二，最多1.5万",
    "the jacket cost me 300 quid",
    "it's 13800000000 yuan",
    # dates, years, times
    "我们2026-03-18上午09:30开会。",
    "The launch is on 2026-03-18 at 09:30.",
    "passport expires 2031, renew in 2030",
    "2026年3月18日 14:30",
    "20260318 是我的生日",
    "Remind me to renew my passport next Friday, it expires in April.",
    # counts, short numbers, versions
    "我们这周接了 1234 单，3000人参加。",
    "Order 12345678 shipped, 42 items.",
    "room 1203, floor 12, gate 7",
    "version 1.2.3.4 and 10.0.0.1",
    "订单号 123456",
    # checksum / validity failures
    "身份证号 110105198503050001",  # wrong MOD 11-2 check character
    "身份证号 110105198513050002",  # month 13
    "NHS no. 9434765918",  # mod-11 check fails
    "card 4111 1111 1111 1112",  # Luhn fails
    "4111111111111112",
    "SSN 000-12-3456",
    "SSN 666-12-3456",
    "SSN 912-34-5678",
    "SSN 123-00-4567",
    "ID card number ABCDEFGHI",  # no digit
    "护照 号码还没办下来",
    # not e-mail
    "meet @ 3pm at the cafe",
    "twitter handle @alice",
    # not phones
    "+5 points",
    "0 2 3",
    "score 3-1 then 2-2",
]


@pytest.mark.parametrize("text", NEGATIVES)
def test_negative(text: str) -> None:
    assert find_sensitive(text) == [], text
    assert not has_sensitive(text)
    assert mask(text) == text


def test_cn_id_checksum_only_last_char_differs() -> None:
    good = "11010519850305000X"
    for bad_last in "0123456789":
        assert find_sensitive("身份证" + good[:17] + bad_last) == []
    assert find_sensitive("身份证" + good)[0].kind == "cn_id"


def test_nhs_spaced_with_bad_check_is_not_nhs() -> None:
    # 943 476 5918 fails the NHS check, but it is still a valid North American
    # phone shape (area 943, exchange 476), so it is masked as a phone.
    assert [s.kind for s in find_sensitive("NHS number 943 476 5918")] == ["phone"]
    assert [s.kind for s in find_sensitive("NHS number 943 476 5919")] == ["nhs"]
    # A spaced number that is neither a valid NHS number nor a NANP number.
    assert find_sensitive("143 476 5918") == []


MASKING = [
    ("我的手机号是15800001111，有急事打这个。", "我的手机号是[phone]，有急事打这个。"),
    ("邮箱写 chenjing@example.cn 就行。", "邮箱写 [email] 就行。"),
    ("我的身份证号码是11010519850305000X。", "我的身份证号码是[id]。"),
    ("护照号是E12345678，下个月到期。", "护照号是[passport]，下个月到期。"),
    ("My SSN is 078-05-1120.", "My SSN is [id]."),
    ("card 4111 1111 1111 1111 please", "card [card] please"),
    (
        "My phone is +49 151 23456789 if the hotel needs to call, and email tom.becker@example.com.",
        "My phone is [phone] if the hotel needs to call, and email [email].",
    ),
    (
        "Their contact is Mark Ellis, mark.ellis@example.org, +44 20 7946 0958.",
        "Their contact is Mark Ellis, [email], [phone].",
    ),
    ("预算5000元，电话13600002222。", "预算5000元，电话[phone]。"),
    ("nothing here", "nothing here"),
    ("", ""),
]


@pytest.mark.parametrize(("text", "masked"), MASKING)
def test_mask(text: str, masked: str) -> None:
    assert mask(text) == masked


def test_mask_with_explicit_spans() -> None:
    text = "a 13600002222 b"
    assert mask(text, []) == text
    assert mask(text, [SensitiveSpan(2, 13, "phone", "13600002222")]) == "a [phone] b"


def test_span_is_frozen() -> None:
    s = find_sensitive("13600002222")[0]
    with pytest.raises(AttributeError):
        s.start = 0  # type: ignore[misc]


def test_no_catastrophic_backtracking() -> None:
    text = "+" + "1 " * 5000 + "x" + "9" * 5000 + "@" * 100
    find_sensitive(text)  # must return promptly


def _gold_lines() -> list[dict]:
    with GOLD.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def test_gold_annotated_spans_are_found() -> None:
    lines = [d for d in _gold_lines() if "sensitive" in d]
    assert len(lines) == 14  # 7 zh + 7 en, per tests/sets/gold/README.md
    mismatches = []
    for d in lines:
        text = d["turn"]["text"]
        found = {(s.text, s.kind) for s in find_sensitive(text)}
        for ann in d["sensitive"]:
            if not any(t == ann["text"] and k in GOLD_KINDS[ann["kind"]] for t, k in found):
                mismatches.append((d["id"], ann, sorted(found)))
        extra = {t for t, _ in found} - {a["text"] for a in d["sensitive"]}
        if extra:
            mismatches.append((d["id"], "unannotated", sorted(extra)))
    assert not mismatches, "\n".join(map(str, mismatches))


def test_gold_lines_without_sensitive_field_yield_nothing() -> None:
    false_positives = [
        (d["id"], d["turn"]["text"], find_sensitive(d["turn"]["text"]))
        for d in _gold_lines()
        if "sensitive" not in d and find_sensitive(d["turn"]["text"])
    ]
    # The context turns are not annotated, but they must not hold sensitive data either.
    context_fps = [
        (d["id"], c["text"], find_sensitive(c["text"]))
        for d in _gold_lines()
        for c in d.get("context", [])
        if find_sensitive(c["text"])
    ]
    assert not false_positives, "\n".join(map(str, false_positives))
    assert not context_fps, "\n".join(map(str, context_fps))
