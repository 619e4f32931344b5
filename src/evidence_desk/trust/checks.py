"""The deterministic checks every claim must pass before the gate may publish it.

For one claim (a sentence of the draft, see `claims.py`) against the run's sources:

* has_citation: the claim carries at least one well-formed `[S#]` marker.
* citations_exist: every cited id is a source of this run; malformed markers (`[S]`,
  `[Source 1]`) are citations to sources that do not exist. Both are listed in
  `unknown_citations`.
* quotes_verbatim: every quote is verbatim (rules in `text.py`) in the stored text of one of
  the claim's cited, existing sources, tried in citation order; the occurrence recorded is
  the one in the passage that carries the sentence, else the first. A quote in a claim
  that cites nothing is never verbatim, nor is any quote of a sentence whose quotation
  marks do not pair up (`unbalanced_quote_marks`).
* numbers_dates: every number and date the claim states, quotes included and markers
  excluded, appears in the cited sources' selected passages, titles and names, or is the
  source's own date as a whole (rules in `numbers.py`). Those that do not are listed in
  `unmatched_numbers`.
* grounding: one passage of one cited source carries the whole sentence (the grounding
  contract, `grounding.py`), and the source asserts it there (`assertion.py`); otherwise
  the reasons. `carried_by` names that passage. For a whole draft, the sentences it leans
  on (`answer.py`) are in `leans_on`, and a lean the answer does not satisfy is a reason.
  `tier` says how a carried sentence is carried: `verbatim` (quotes and a frame),
  `extractive`, or, when the contract does not carry it but the paraphrase tier does
  (`paraphrase.py`, given the spans a supporting auditor named), `paraphrase`, with its
  `anchors`, the stretches it `rests_on` and the contract's reasons kept as `extractive`.
* hidden_characters: invisible, direction-changing or combining characters and mixed-script
  words (`characters.py`).
* markup: markup outside quotes (`markup.py`).
* model_directed_sources: the cited sources whose selected passages contain text aimed at a
  model (`screen.py`); a claim that cites one does not pass.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from ..types import CitedSpan, ClaimAudit, ClaimChecks, Quote, Source, Tier, Verdict
from .answer import later_years, leans
from .characters import hidden_characters
from .claims import DraftClaim, split_claims, strip_markers
from .grounding import Carrier, Finding, ground
from .markup import markup
from .numbers import date_figures, unmatched_figures
from .paraphrase import Rest, rest
from .screen import model_directed
from .surnames import Speakers, ambiguous_surname
from .text import StoredText
from .units import Metadata, read_units


@dataclass(frozen=True)
class EvidenceSource:
    """A numbered source of a run, as the checks see it.

    `text` is the document's full stored text (quotes are searched there); `passages` are
    (passage id, start, end) of the run's selected passages in it (for a draft checked on
    its own, every passage of the document); `title`, `date`, `names` (speaker, author,
    publisher), `offices` (the speaker's: `President`) and `addressees` (`Congress`) are the
    source's own metadata, the words a sentence may use about it.
    """

    id: str
    doc_id: str
    text: str
    passages: tuple[tuple[str, int, int], ...]
    title: str = ""
    date: str | None = None
    names: tuple[str, ...] = ()
    offices: tuple[str, ...] = ()
    addressees: tuple[str, ...] = ()

    @cached_property
    def stored(self) -> StoredText:
        """The text prepared for verbatim search, built on first use."""
        return StoredText(self.text)

    @cached_property
    def passage_texts(self) -> tuple[str, ...]:
        return tuple(self.text[a:b] for _, a, b in self.passages)

    @cached_property
    def carrier(self) -> Carrier:
        metadata = Metadata(
            title=self.title,
            date=self.date,
            names=self.names,
            offices=self.offices,
            addressees=self.addressees,
        )
        return Carrier(self.id, self.stored, self.passages, metadata)

    @cached_property
    def model_directed(self) -> bool:
        """Whether a selected passage addresses a model (see `screen.py`)."""
        return any(model_directed(p) for p in self.passage_texts)

    @cached_property
    def number_evidence(self) -> tuple[str, ...]:
        """Texts whose numbers a claim may state: passages, title, names (not the url)."""
        return (*self.passage_texts, self.title, *self.names)

    @classmethod
    def from_source(cls, source: Source, text: str) -> EvidenceSource:
        """Evidence for a run's `Source`: its passages, title, date and names."""
        return cls(
            id=source.id,
            doc_id=source.doc_id,
            text=text,
            passages=tuple((p.id, p.start, p.end) for p in source.passages),
            title=source.title,
            date=source.date,
            names=source.names,
            offices=source.offices,
            addressees=source.addressees,
        )

    @classmethod
    def from_passages(cls, source: Source) -> EvidenceSource:
        """Evidence from a source's recorded passages alone (a receipt, no archive): the
        passages at their offsets, white space everywhere else."""
        chars = [" "] * max((p.end for p in source.passages), default=0)
        for p in source.passages:
            if len(p.text) == p.end - p.start:
                chars[p.start : p.end] = p.text
        return cls.from_source(source, "".join(chars))


@dataclass(frozen=True)
class CheckedClaim:
    """A claim of the draft with its check results and located quotes."""

    claim: DraftClaim
    checks: ClaimChecks
    quotes: tuple[Quote, ...]

    @property
    def text(self) -> str:
        return self.claim.text

    @property
    def citations(self) -> tuple[str, ...]:
        return self.claim.citations


def _locate(quote: str, cited: Sequence[EvidenceSource], finding: Finding) -> Quote:
    """The quote's occurrence in the carrying window if there is one, else the first in
    the first cited source that holds it."""
    carrier = [s for s in cited if s.id == finding.source_id]
    for source in carrier + [s for s in cited if s.id != finding.source_id]:
        spans = source.stored.find_all(quote)
        if finding.window is not None and source.id == finding.source_id:
            w = finding.window
            spans = [s for s in spans if w.start <= s[0] and s[1] <= w.end] or spans
        if spans:
            a, b = spans[0]
            return Quote(text=quote, source_id=source.id, verbatim=True, start=a, end=b)
    return Quote(text=quote, source_id=None, verbatim=False)


def check_claim(
    claim: DraftClaim, sources: Mapping[str, EvidenceSource]
) -> tuple[ClaimChecks, tuple[Quote, ...]]:
    """Run every check on one claim alone; `sources` maps source id ("S1") to its evidence.
    (Within an answer, `check_claims` also reads what it leans on.)"""
    checks, quotes, _ = _check(claim, sources)
    return checks, quotes


def _tier(claim: DraftClaim, finding: Finding, sources: Mapping[str, EvidenceSource]) -> Tier:
    """`verbatim` when every unit of the carried sentence is a quote, else `extractive`."""
    assert finding.source_id is not None
    units = read_units(claim, sources[finding.source_id].carrier.metadata).units
    return "verbatim" if all(u.quote is not None for u in units) else "extractive"


def _paraphrased(
    finding: Finding, rested: Rest, stored: StoredText
) -> tuple[Finding, dict[str, Any]]:
    """The finding a sentence the paraphrase tier grounds stands on, and its check fields."""
    spans = rested.stretches
    update = {
        "tier": "paraphrase",
        "anchors": rested.anchors,
        "rests_on": tuple(
            Quote(text=stored.text[a:b], source_id=rested.source_id, verbatim=True, start=a, end=b)
            for a, b in spans
        ),
        "extractive": finding.problems,
    }
    return Finding((), rested.source_id, rested.window, (spans[0][0], spans[-1][1])), update


def _check(
    claim: DraftClaim,
    sources: Mapping[str, EvidenceSource],
    spans: Sequence[CitedSpan] = (),
) -> tuple[ClaimChecks, tuple[Quote, ...], Finding]:
    cited = [sources[c] for c in claim.citations if c in sources]
    unknown = tuple(c for c in claim.citations if c not in sources) + claim.malformed
    carriers = [s.carrier for s in cited]
    finding = ground(claim, carriers)
    tiered: dict[str, Any] = {"tier": _tier(claim, finding, sources)} if finding.grounded else {}
    if not finding.grounded and not finding.refused and spans:
        rested = rest(claim, spans, carriers)
        if rested.grounded:
            assert rested.source_id is not None
            finding, tiered = _paraphrased(finding, rested, sources[rested.source_id].stored)
        else:
            more = tuple(f"as a paraphrase, {p}" for p in rested.problems)
            finding = Finding(finding.problems + more)
    quotes = tuple(_locate(q, cited, finding) for q in claim.quotes)
    if claim.unbalanced:  # where a quote begins or ends is anyone's guess: never verbatim
        quotes = tuple(Quote(text=q, source_id=None, verbatim=False) for q in claim.quotes)
    evidence = [text for source in cited for text in source.number_evidence]
    stated = [f for source in cited for f in date_figures(source.date)]
    unmatched = unmatched_figures(strip_markers(claim.text), evidence, stated)
    checks = ClaimChecks(
        has_citation=bool(claim.citations),
        citations_exist=not unknown,
        quotes_verbatim=all(q.verbatim for q in quotes),
        numbers_dates=not unmatched,
        unknown_citations=unknown,
        unmatched_numbers=unmatched,
        model_directed_sources=tuple(dict.fromkeys(s.id for s in cited if s.model_directed)),
        grounding=finding.problems,
        carried_by=finding.window.passage_ids if finding.window else (),
        hidden_characters=hidden_characters(claim),
        markup=markup(claim),
        unbalanced_quote_marks=claim.unbalanced,
        **tiered,
    )
    return checks, quotes, finding


def check_claims(
    claims: Sequence[DraftClaim],
    sources: Mapping[str, EvidenceSource],
    spans: Sequence[Sequence[CitedSpan]] | None = None,
) -> list[CheckedClaim]:
    """Check each claim of an answer, and what each leans on among the others. `spans`, one
    sequence per claim (empty: none), are what the paraphrase tier may rest a claim on."""
    rests = spans if spans is not None else [()] * len(claims)
    done = [_check(claim, sources, s) for claim, s in zip(claims, rests, strict=True)]
    texts = {sid: source.stored.text for sid, source in sources.items()}
    dates = {sid: source.date for sid, source in sources.items()}
    lean = leans(claims, [finding for _, _, finding in done], texts, dates)
    speakers = {sid: Speakers(source.names, source.date) for sid, source in sources.items()}
    out: list[CheckedClaim] = []
    for claim, (checks, quotes, finding), needs in zip(claims, done, lean, strict=True):
        named = (
            ambiguous_surname(claim.text, claim.quote_spans, finding.source_id, speakers)
            if finding.source_id is not None
            else None
        )
        problems = tuple(p for p in (needs.problem, named) if p)
        grounding = checks.grounding + problems
        update: dict[str, Any] = {"grounding": grounding, "leans_on": needs.on}
        years = later_years(claim)
        # `140 years later,`: `leans` found the sources that far apart, so the number is
        # the answer's own arithmetic, not a figure of the passage (when the sentence
        # writes no other figure so).
        if years is not None and needs.on and needs.problem is None and _once(years, claim):
            left = tuple(u for u in checks.unmatched_numbers if u != years)
            update |= {"unmatched_numbers": left, "numbers_dates": not left}
        out.append(CheckedClaim(claim, checks.model_copy(update=update), quotes))
    return out


def _once(number: str, claim: DraftClaim) -> bool:
    return len(re.findall(rf"(?<![\d.,]){number}(?![\d.,]|\s*%)", claim.text)) == 1


def check_draft(draft: str, sources: Mapping[str, EvidenceSource]) -> list[CheckedClaim]:
    """Split a draft into claims and check each one, in the answer it belongs to."""
    return check_claims(split_claims(draft), sources)


def resting_spans(audits: Sequence[ClaimAudit]) -> list[tuple[CitedSpan, ...]]:
    """The spans each claim may rest on in the paraphrase tier: those of an auditor that
    found it supported (no others)."""
    return [a.spans if a.verdict == Verdict.SUPPORTED else () for a in audits]


def with_paraphrase(
    checked: Sequence[CheckedClaim],
    audits: Sequence[ClaimAudit],
    sources: Mapping[str, EvidenceSource],
) -> list[CheckedClaim]:
    """The answer re-checked with the paraphrase tier, when a claim the contract does not
    carry has spans to rest on (`resting_spans`); otherwise `checked` as it is."""
    spans = resting_spans(audits)
    if not any(s and c.checks.grounding for c, s in zip(checked, spans, strict=True)):
        return list(checked)
    return check_claims([c.claim for c in checked], sources, spans)
