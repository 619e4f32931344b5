"""The offline planner: a question becomes sub-questions, time windows and queries by rules.

What it understands (see docs/auditor.md for the full list): years, months and days,
decades, centuries, ranges, open bounds ("before 1800", "since 1990"), people the archive
profile knows, a person's "first"/"last" address (one day: their first or last document
date; `ordinals.py`), and relative dates read against the archive's own span ("this year"
is the archive's last year, "recently" its last 2; `recent.py`). Two periods or two people
joined by "and", "vs", "compared with" ... make a comparison: one sub-question per side. An
ambiguous name ("Roosevelt") gives one sub-question per window. A window the archive does
not hold is still planned (coverage decides later); a person and a period that do not
overlap give an empty window (start after end), which no document can fall in.

A follow-up asked in a conversation ("What did he say about freedom from fear?") is first
made self-contained against the conversation's earlier questions (`followup.py`), and the
plan is built from the question as understood; the plan records it (`resolved_question`,
`resolved_from`, `resolved_subject`).

Not supported: events as dates ("the Civil War" stays a topic term); relative dates when
the profile has no last date (they stay words).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from itertools import pairwise

from ...textutil import STOPWORDS, unique
from ...types import Plan, SubQuestion, TimeWindow
from ..base import ArchiveProfile
from .evidence import TOPICAL_STOPWORDS
from .followup import Reading, Resolution, resolve
from .names import NameMatcher, NameMention
from .ordinals import archive_days, bind_to_names, find_ordinals
from .recent import recent_mentions
from .timeexpr import COMPARISON_CUE, TimeMention, find_time_mentions, intersect

MAX_SUBQUESTIONS = 4
MAX_QUERIES = 3

# Words that frame a question rather than name its topic; never key terms.
_FILLER_WORDS = """
    compare compared compares comparing comparison contrast contrasted versus vs differ
    differed differs difference differences different talk talked talks talking speak
    spoke spoken speaking discuss discussed discussing describe described think thought
    view views position positions stance approach attitude mean meant year years decade
    decades century centuries era period early mid late annual message messages remarks
    speeches address addresses president presidents anything something thing things like
    regarding concerning
    according both either neither whether also even ever get got else write writes wrote
"""
FILLER = frozenset(_FILLER_WORDS.split())
_TOPIC_BREAKS = frozenset(["about", "on", "regarding", "concerning"])
_QUESTION_WORDS = STOPWORDS - TOPICAL_STOPWORDS
_TOKEN = re.compile(r"[A-Za-z0-9]+(?:['’][A-Za-z]+)?")
_JOIN = re.compile(
    r"^(?:['’]s)?\s*(?:,|and|or|&|vs\.?|versus|with|to|against|from|,\s*and)?\s*(?:the\s+)?$", re.I
)
_BOTH = re.compile(r"\bboth\b", re.I)
_COMPARE_GAP = re.compile(r"\b(?:and|or|vs|versus|compared|against)\b|,", re.I)
_MAX_GAP_WORDS = 8
_NAME_LEAD = re.compile(r"(?:\b(?:[A-Z][a-z]+|[A-Z])\.?\s+)+$")
_NO_IN = re.compile(
    r"^(?:before|after|since|from|between|until|till|up|through|prior|earlier|later|starting|beginning|the\s+(?:early|mid|late))\b",
    re.I,
)


@dataclass(frozen=True)
class _Mentions:
    """What the planner reads in a question before it builds sides."""

    times: list[TimeMention]
    names: list[NameMention]  # narrowed to one day where a "first"/"last" address belongs
    dated_names: bool  # True when a "first"/"last" address narrowed some name
    topic: str
    key_terms: list[str]
    periods: tuple[tuple[int, int], ...]  # spans of the times and the bound "first"/"last"

    def speaker(self, question: str) -> str | None:
        """How to name the first person named without ambiguity: as the question wrote
        them (with the first names and initials before a last name the archive knows
        alone: "Franklin D. Roosevelt"), or by the archive's label when the question's
        periods pick one of several people with that name."""
        if not self.names:
            return None
        first = self.names[0]
        keys = {e.key for e in first.windows}
        if len(keys) == 1:
            lead = _NAME_LEAD.search(question[: first.start])
            written = lead.group(0).split() if lead else []
            while written and written[0].rstrip(".").lower() in STOPWORDS:
                written.pop(0)  # "Did Kennedy ...": a question word, not a first name
            return " ".join([*written, first.text])
        picked = {
            e.key: e.window.label
            for e in first.windows
            if any(e.window.start <= t.window.end and t.window.start <= e.window.end
                   for t in self.times)
        }  # fmt: skip
        return next(iter(picked.values())) if len(picked) == 1 else first.text


@dataclass(frozen=True)
class _Side:
    """One side of a comparison, or the single subject of a plain question."""

    surface: str
    windows: tuple[TimeWindow, ...]
    entities: tuple[str | None, ...]


def _is_topic_word(low: str) -> bool:
    return low not in _QUESTION_WORDS and low not in FILLER and len(low) > 1


def _topic(question: str, spans: list[tuple[int, int]]) -> tuple[str, list[str]]:
    """(topic phrase in the user's words, key terms as lower-cased words) outside time and
    name spans.

    The phrase keeps short runs such as "freedom of speech" whole: topic words separated
    only by up to two stop words and no time or name expression stay one piece.
    """
    pieces: list[tuple[int, int]] = []
    keys: list[str] = []
    pending = 0  # stop words since the last topic word
    for m in _TOKEN.finditer(question):
        if any(a <= m.start() < b for a, b in spans):
            pending = 99
            continue
        low = re.sub(r"['’]s$", "", m.group(0).lower())
        if low in _TOPIC_BREAKS:
            pending = 99
            continue
        if not _is_topic_word(low):
            pending += 1
            continue
        if low not in STOPWORDS:
            keys.append(low)
        end = m.start() + len(re.sub(r"['’]s$", "", m.group(0)))
        if pieces and pending <= 2:
            pieces[-1] = (pieces[-1][0], end)
        else:
            pieces.append((m.start(), end))
        pending = 0
    return " ".join(question[a:b] for a, b in pieces), unique(keys)


def _joined(question: str, items: list[tuple[int, int]]) -> bool:
    """True when consecutive mentions are joined by "and", "or", "vs", a comma ..."""
    return all(_JOIN.match(question[a[1] : b[0]]) for a, b in pairwise(items))


def _names_compared(question: str, names: list[NameMention]) -> bool:
    """Two or more people joined by "and", "or", "vs", a comma ... with at most a few words
    (such as a time expression: "Lincoln in 1862 and Kennedy in 1961") between them."""
    for a, b in pairwise(names):
        gap = question[a.end : b.start]
        if not _COMPARE_GAP.search(gap) or len(_TOKEN.findall(gap)) > _MAX_GAP_WORDS:
            return False
    return True


def _name_periods(
    question: str, names: list[NameMention], times: list[TimeMention]
) -> list[TimeMention | None]:
    """The period each compared person is asked about.

    A time expression belongs to the person it follows ("Lincoln in 1862 and Kennedy in
    1961"). One before every name, or one after the last name when no other person has a
    period of their own, applies to everyone ("In 1862, ...", "... and Davis in 1862").
    """
    periods: list[TimeMention | None] = []
    for idx, n in enumerate(names):
        stop = names[idx + 1].start if idx + 1 < len(names) else len(question)
        own = [t for t in times if n.end <= t.start < stop]
        periods.append(own[0] if own else None)
    leading = [t for t in times if t.start < names[0].start]
    shared = leading[0] if leading else None
    if shared is None and periods[-1] is not None and not any(periods[:-1]):
        shared = periods[-1]
    return [p or shared for p in periods]


def _period_phrase(label: str) -> str:
    return label if _NO_IN.match(label) else f"in {label}"


def _name_side(mention: NameMention, period: TimeMention | None) -> _Side:
    windows: list[TimeWindow] = []
    for e in mention.windows:
        if period is None:
            windows.append(e.window)
        else:
            label = f"{mention.text}, {period.window.label}"
            windows.append(intersect(e.window, period.window, label))
    keep = [w for w in windows if w.start <= w.end] or windows[:1]
    entities = tuple(e.key for e, w in zip(mention.windows, windows, strict=True) if w in keep)
    surface = (
        mention.text if period is None else f"{mention.text} {_period_phrase(period.window.label)}"
    )
    return _Side(surface, tuple(keep), entities)


def _period_side(period: TimeMention, mention: NameMention | None) -> _Side:
    if mention is None:
        return _Side(period.window.label, (period.window,), (None,))
    side = _name_side(mention, period)
    return _Side(period.window.label, side.windows, side.entities)


def _sides(
    question: str, times: list[TimeMention], names: list[NameMention]
) -> tuple[list[_Side], bool]:
    """The plan's sides and whether they are compared."""
    cue = COMPARISON_CUE.search(question) is not None or _BOTH.search(question) is not None
    if len(names) >= 2 and (cue or _names_compared(question, names)):
        periods = _name_periods(question, names, times)
        return [_name_side(n, p) for n, p in zip(names, periods, strict=True)], True
    if len(times) >= 2 and (cue or _joined(question, [(t.start, t.end) for t in times])):
        person = names[0] if len(names) == 1 else None
        return [_period_side(t, person) for t in times], True
    if names:
        # "What did Lincoln say about Washington?": the first name is the speaker.
        if times:
            return [_name_side(names[0], t) for t in times], False
        return [_name_side(names[0], None)], False
    return [_period_side(t, None) for t in times], False


def _subquestion_text(side: _Side, topic: str, is_name: bool) -> str:
    if is_name:
        return (
            f"What did {side.surface} say about {topic}?"
            if topic
            else f"What did {side.surface} say?"
        )
    period = _period_phrase(side.surface)
    return f"What was said about {topic} {period}?" if topic else f"What was said {period}?"


def _subquestions(
    question: str, sides: list[_Side], compared: bool, topic: str, names: list[NameMention]
) -> list[SubQuestion]:
    out: list[SubQuestion] = []
    for side in sides:
        name_side = bool(names) and any(side.surface.startswith(n.text) for n in names)
        for window, entity in zip(side.windows, side.entities, strict=True):
            if compared:
                text = _subquestion_text(side, topic, name_side)
            elif len(side.windows) * len(sides) > 1:
                text = f"{question} — {window.label}"
            else:
                text = question
            out.append(SubQuestion(text=text, window=window, entity=entity))
    return out[:MAX_SUBQUESTIONS]


def _queries(
    question: str, topic: str, has_key_terms: bool, sides: list[_Side], compared: bool
) -> tuple[str, ...]:
    first = topic if topic and has_key_terms else question.strip()
    queries = [first]
    if compared and topic:
        queries += [f"{topic} {side.surface}" for side in sides]
    return tuple(unique(queries))[:MAX_QUERIES]


class OfflinePlanner:
    """Rule-based temporal planner (no model): the `offline` planner engine."""

    engine_id = "offline"

    def __init__(self, reference_year: int | None = None) -> None:
        """`reference_year` resolves "the '30s" when the profile has no last date."""
        self._reference_year = reference_year
        self._matchers: tuple[object, NameMatcher] | None = None

    def _ref_year(self, profile: ArchiveProfile) -> int:
        if profile.max_date:
            return int(profile.max_date[:4])
        return self._reference_year or date.today().year

    def _matcher(self, profile: ArchiveProfile) -> NameMatcher:
        """The name matcher for `profile`'s entities, built once per entities mapping."""
        cached = self._matchers
        if cached is None or cached[0] is not profile.entities:
            cached = (profile.entities, NameMatcher(profile.entities))
            self._matchers = cached
        return cached[1]

    def _mentions(self, question: str, profile: ArchiveProfile) -> _Mentions:
        """Time and name mentions, the topic phrase and the key terms of a question.

        A "first"/"last" address belongs to the nearest person named; with nobody named it
        is the archive's first or last date, a time mention like any other.
        """
        ordinals = find_ordinals(question)
        people = self._matcher(profile).find(question)
        anchored = recent_mentions(question, profile.max_date)
        if not people:
            anchored += [
                d
                for d in archive_days(question, ordinals, profile)
                if not any(t.start < d.end and d.start < t.end for t in anchored)
            ]
        anchored.sort(key=lambda t: t.start)
        times = find_time_mentions(question, self._ref_year(profile), anchored)
        names = [n for n in people if not any(t.start < n.end and n.start < t.end for t in times)]
        names, bound = bind_to_names(question, ordinals, names)
        spans = [(t.start, t.end) for t in times] + [(n.start, n.end) for n in names]
        topic, key_terms = _topic(question, spans + [(o.start, o.end) for o in bound])
        periods = sorted([(t.start, t.end) for t in times] + [(o.start, o.end) for o in bound])
        return _Mentions(times, names, bool(bound), topic, key_terms, tuple(periods))

    def read(self, question: str, profile: ArchiveProfile) -> Reading:
        """The people and periods of `question`, as a follow-up is resolved against it."""
        found = self._mentions(question, profile)
        return Reading(tuple(found.names), found.speaker(question), found.periods)

    def understand(
        self, question: str, earlier: Sequence[str], profile: ArchiveProfile
    ) -> Resolution:
        """`question` made self-contained against the `earlier` questions of its
        conversation, oldest first (`followup.resolve`)."""
        return resolve(question, earlier, lambda q: self.read(q, profile))

    def plan(self, question: str, profile: ArchiveProfile, earlier: Sequence[str] = ()) -> Plan:
        """The plan of `question`; `earlier`: the questions asked before it in its
        conversation, oldest first (a follow-up is planned as understood against them)."""
        resolution = self.understand(question, earlier, profile) if earlier else None
        if resolution is not None and resolution.resolved:
            plan = self._plan(resolution.question, profile)
            return plan.model_copy(
                update={
                    "resolved_question": resolution.question,
                    "resolved_from": resolution.source,
                    "resolved_subject": resolution.subject,
                }
            )
        return self._plan(question, profile)

    def _plan(self, question: str, profile: ArchiveProfile) -> Plan:
        found = self._mentions(question, profile)
        times, names, topic, key_terms = found.times, found.names, found.topic, found.key_terms
        sides, compared = _sides(question, times, names)
        subs = _subquestions(question, sides, compared, topic, names)
        if not subs:
            subs = [SubQuestion(text=question.strip())]
        windows = tuple(unique_windows(s.window for s in subs if s.window is not None))
        dated = bool(times) or found.dated_names
        kind = "comparison" if compared else ("temporal" if dated else "factoid")
        return Plan(
            subquestions=tuple(subs),
            time_windows=windows,
            queries=_queries(question, topic, bool(key_terms), sides, compared),
            key_terms=tuple(key_terms),
            kind=kind,
        )


def unique_windows(windows: Iterable[TimeWindow]) -> list[TimeWindow]:
    """Windows in first-seen order, one per (start, end)."""
    seen: set[tuple[str, str]] = set()
    out: list[TimeWindow] = []
    for w in windows:
        if (w.start, w.end) not in seen:
            seen.add((w.start, w.end))
            out.append(w)
    return out
