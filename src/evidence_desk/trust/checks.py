"""The deterministic checks every claim must pass before the gate may publish it.

For one claim (a sentence of the draft, see `claims.py`) against the run's sources:

* has_citation: the claim carries at least one well-formed `[S#]` marker.
* citations_exist: every cited id is a source of this run; malformed markers (`[S]`,
  `[Source 1]`) are citations to sources that do not exist. Both are listed in
  `unknown_citations`.
* quotes_verbatim: every quote is verbatim (rules in `text.py`) in the stored text of one of
  the claim's cited, existing sources, tried in citation order; the first match is recorded.
  A quote in a claim that cites nothing is never verbatim, nor is a quote left unclosed.
* numbers_dates: every number and date the claim states, quotes included and markers
  excluded, appears in the cited sources' selected passages or metadata (rules in
  `numbers.py`). Those that do not are listed in `unmatched_numbers`.
* model_directed_sources: the cited sources whose selected passages contain text aimed at a
  model (`screen.py`); a claim that cites one does not pass.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

from ..types import ClaimChecks, Quote, Source
from .claims import DraftClaim, split_claims, strip_markers
from .numbers import unmatched_figures
from .screen import model_directed
from .text import StoredText


@dataclass(frozen=True)
class EvidenceSource:
    """A numbered source of a run, as the checks see it.

    `text` is the document's full stored text (quotes are searched there); `passages` are
    the run's selected passages of it (a draft checked on its own passes the whole text as
    one passage); `metadata` holds title, date, url, author and similar strings.
    """

    id: str
    doc_id: str
    text: str
    passages: tuple[str, ...]
    metadata: tuple[str, ...] = ()

    @cached_property
    def stored(self) -> StoredText:
        """The text prepared for verbatim search, built on first use."""
        return StoredText(self.text)

    @cached_property
    def model_directed(self) -> bool:
        """Whether a selected passage addresses a model (see `screen.py`)."""
        return any(model_directed(p) for p in self.passages)

    @classmethod
    def from_source(cls, source: Source, text: str, extra: Sequence[str] = ()) -> EvidenceSource:
        """Evidence for a run's `Source`: its passages, and title, date and url as metadata."""
        metadata = tuple(m for m in (source.title, source.date, source.url) if m) + tuple(extra)
        return cls(
            id=source.id,
            doc_id=source.doc_id,
            text=text,
            passages=tuple(p.text for p in source.passages),
            metadata=metadata,
        )


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


def _locate(quote: str, cited: Sequence[EvidenceSource]) -> Quote:
    for source in cited:
        span = source.stored.find(quote)
        if span is not None:
            return Quote(text=quote, source_id=source.id, verbatim=True, start=span[0], end=span[1])
    return Quote(text=quote, source_id=None, verbatim=False)


def check_claim(
    claim: DraftClaim, sources: Mapping[str, EvidenceSource]
) -> tuple[ClaimChecks, tuple[Quote, ...]]:
    """Run every check on one claim; `sources` maps source id ("S1") to its evidence."""
    cited = [sources[c] for c in claim.citations if c in sources]
    unknown = tuple(c for c in claim.citations if c not in sources) + claim.malformed
    quotes = tuple(_locate(q, cited) for q in claim.quotes)
    if claim.unclosed_quote:  # where an unclosed quote ends is anyone's guess: never verbatim
        quotes = (*quotes[:-1], Quote(text=claim.quotes[-1], source_id=None, verbatim=False))
    evidence = [text for source in cited for text in (*source.passages, *source.metadata)]
    unmatched = unmatched_figures(strip_markers(claim.text), evidence)
    checks = ClaimChecks(
        has_citation=bool(claim.citations),
        citations_exist=not unknown,
        quotes_verbatim=all(q.verbatim for q in quotes),
        numbers_dates=not unmatched,
        unknown_citations=unknown,
        unmatched_numbers=unmatched,
        model_directed_sources=tuple(dict.fromkeys(s.id for s in cited if s.model_directed)),
    )
    return checks, quotes


def check_draft(draft: str, sources: Mapping[str, EvidenceSource]) -> list[CheckedClaim]:
    """Split a draft into claims and check each one."""
    out: list[CheckedClaim] = []
    for claim in split_claims(draft):
        checks, quotes = check_claim(claim, sources)
        out.append(CheckedClaim(claim, checks, quotes))
    return out
