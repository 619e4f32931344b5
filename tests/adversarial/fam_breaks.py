"""Families 5 and 6: breaks the splitter missed, and dates read as loose digits.

`sentence_breaks`: an uncited false sentence rides on its neighbour's citation, separated by
a break a reader sees and the old splitter did not: U+2028, U+2029, U+0085, runs of CR, a
line feed, "。", list items, a heading, a sentence ending in "U.S." before a capital, a
lower-case continuation after a period. The false sentence has no marker of its own.

`dates`: a wrong month or day in "March 14, 1963", "14 March 1963", "3/14/1963" or ISO form,
in a real sentence's date or in a frame stating the document's own date; figures that lean
on the loose numbers of the metadata date (the day or month number put in a real sentence
in place of its own figure); and a year in a real sentence replaced by the document's own
year, which the metadata lends.
"""

from __future__ import annotations

import calendar
import datetime as dt
import random
import re

from .cases import (
    NUMBER,
    Case,
    Kind,
    Pools,
    cite,
    decap,
    ends,
    falsify,
    pick,
    quoted,
    swap_span,
    that_frame,
)
from .corpus import DocView

BREAKS = ("\u2028", "\u2029", "\x85", "\r\r", "\r\r\r", "\r", "\n", "\r\n")
MONTHS = tuple(calendar.month_name)[1:]
_TEXT_DATE = re.compile(
    r"\b(?P<m>" + "|".join(MONTHS) + r") (?P<d>\d{1,2}), (?P<y>1[6-9]\d\d|20\d\d)\b"
    r"|\b(?P<d2>\d{1,2}) (?P<m2>" + "|".join(MONTHS) + r"),? (?P<y2>1[6-9]\d\d|20\d\d)\b"
)


def _breaks_case(kind: str, doc: DocView, answer: str, false: str) -> Case:
    return Case("sentence_breaks", kind, doc.archive, answer, (doc.doc_id,), false=(false,))


def sentence_breaks(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    a = pick(rng, doc, lambda t: len(t.split()) <= 30)
    b = pick(rng, doc)
    if a is None or b is None or a == b:
        return None
    false = falsify(a.text, rng, doc)
    if false is None:
        return None
    bare = ends(false)
    true = cite(b.text)
    style = rng.choice(["line", "line", "line", "ideographic", "list", "heading", "us", "lower"])
    if style == "line":
        brk = rng.choice(BREAKS)
        if rng.random() < 0.7:
            return _breaks_case(f"line {brk!r}", doc, f"{bare}{brk}{true}", bare)
        return _breaks_case(f"line {brk!r} after", doc, f"{ends(b.text)} [S1]{brk}{bare}", bare)
    if style == "ideographic":
        return _breaks_case("ideographic", doc, f"{bare}。{true}", bare)
    if style == "list":
        bullet = rng.choice(["- ", "* ", "1. "])
        second = "2. " if bullet == "1. " else bullet
        return _breaks_case("list", doc, f"{bullet}{bare}\n{second}{true}", bare)
    if style == "heading":
        return _breaks_case("heading", doc, f"{rng.choice(['#', '##'])} {bare}\n{true}", bare)
    if style == "us":
        us = f"{bare} {rng.choice(['in the U.S.', 'in Washington, D.C.', 'and so on, etc.'])}"
        return _breaks_case("abbreviation", doc, f"{us} {true}", us)
    lower = b.text[0].lower() + b.text[1:]
    if lower == b.text:
        return None
    return _breaks_case("lower_case", doc, f"{bare}. {cite(lower)}", f"{bare}.")


# --------------------------------------------------------------------------- dates


def date_forms(day: dt.date) -> list[str]:
    month = MONTHS[day.month - 1]
    return [
        f"{month} {day.day}, {day.year}",
        f"{day.day} {month} {day.year}",
        f"{day.month}/{day.day}/{day.year}",
        day.isoformat(),
    ]


def _shifted(day: dt.date, rng: random.Random) -> dt.date:
    """The same year with the month or the day changed."""
    if rng.random() < 0.5:
        month = rng.choice([m for m in range(1, 13) if m != day.month])
        return day.replace(month=month, day=min(day.day, 28))
    choices = [d for d in range(1, 29) if d != day.day]
    return day.replace(day=rng.choice(choices))


def _dates_case(kind: str, doc: DocView, answer: str) -> Case:
    return Case("dates", kind, doc.archive, answer, (doc.doc_id,), false=(answer,))


def text_date(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    """A real sentence whose own date is restated with a wrong month or day."""
    found = [s for s in doc.sentences if _TEXT_DATE.search(s.text) and "\n" not in s.text]
    if not found:
        return None
    s = rng.choice(found)
    m = _TEXT_DATE.search(s.text)
    assert m is not None
    month = m.group("m") or m.group("m2")
    day = int(m.group("d") or m.group("d2"))
    year = int(m.group("y") or m.group("y2"))
    try:
        real = dt.date(year, MONTHS.index(month) + 1, day)
    except ValueError:
        return None
    wrong = rng.choice(date_forms(_shifted(real, rng)))
    if wrong in doc.doc.text:
        return None
    out = swap_span(s.text, m.start(), m.end(), wrong)
    return _dates_case("text_date", doc, cite(" ".join(out.split())))


def frame_date(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    """`On March 15, 1963, Kennedy said: "..."` when the document is of March 14, 1963."""
    s = pick(rng, doc)
    if s is None or doc.doc.date is None:
        return None
    wrong = _shifted(dt.date.fromisoformat(doc.doc.date[:10]), rng)
    form = rng.choice(date_forms(wrong))
    if form in doc.doc.text:
        return None
    name = doc.last_name or "the article"
    frame = rng.choice([f"On {form}, {name} said:", f"In the address of {form}, {name} said:"])
    if doc.speaker is None:
        frame = rng.choice([f"On {form}, the article said:", f"The article of {form} says:"])
    return _dates_case("frame_date", doc, quoted(frame, s.text))


def loose_number(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    """A real sentence's figure replaced by the day or month number of the document's date."""
    if doc.doc.date is None:
        return None
    day = dt.date.fromisoformat(doc.doc.date[:10])
    s = pick(rng, doc, lambda t: NUMBER.search(t) is not None)
    if s is None:
        return None
    loose = str(rng.choice([day.day, day.month]))
    passage = doc.passages[s.passage].text
    if re.search(rf"(?<![\d,.]){loose}(?![\d,])", passage):
        return None
    m = rng.choice([m for m in NUMBER.finditer(s.text) if m.group() != loose])
    out = swap_span(s.text, m.start(), m.end(), loose)
    body = f"{that_frame(doc, rng)} {decap(out)}" if rng.random() < 0.3 else out
    return _dates_case("loose_number", doc, cite(body))


_YEAR = re.compile(r"(?<![\d,.$])(1[6-9]\d\d|20\d\d)(?![\d,])")


def year_swap(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    """A year in a real sentence replaced by the document's own year (metadata lends it)."""
    s = pick(rng, doc, lambda t: any(y != doc.year for y in _YEAR.findall(t)))
    if s is None:
        return None
    m = next(m for m in _YEAR.finditer(s.text) if m.group() != doc.year)
    out = swap_span(s.text, m.start(), m.end(), doc.year)
    if doc.says(ends(out)):
        return None
    if rng.random() < 0.5:
        out = f"In {doc.year}, {decap(swap_span(s.text, m.start(), m.end(), 'that year'))}"
    return _dates_case("year_swap", doc, cite(out))


BREAK_KINDS: tuple[Kind, ...] = (sentence_breaks,)
DATE_KINDS: tuple[Kind, ...] = (text_date, frame_date, loose_number, year_swap, frame_date)
