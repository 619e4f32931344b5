"""The three agent roles as interfaces: planner, answerer, auditor.

The offline engine implements them today; model providers implement the same interfaces
later. Agents advise: a plan, a draft and per-claim verdicts. Whatever they return, the
deterministic checks and the gate in `trust/` decide what is published.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from ..types import ClaimAudit, Draft, Plan, Source, TimeWindow


@dataclass(frozen=True)
class ArchiveProfile:
    """What a planner may know about the archive without searching it.

    `entities` maps a lower-cased name (a president, an author) to the windows in which the
    archive holds documents by or about them, e.g. {"lincoln": [1861-03-04..1865-04-15]}.
    """

    min_date: str | None = None
    max_date: str | None = None
    entities: dict[str, tuple[TimeWindow, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class ClaimToAudit:
    """A claim as the auditor sees it: its text (markers and quotes included) and citations."""

    text: str
    citations: tuple[str, ...]


class Planner(Protocol):
    """Turns a question into sub-questions, time windows and at most 3 queries."""

    engine_id: str

    def plan(self, question: str, profile: ArchiveProfile) -> Plan: ...


class Answerer(Protocol):
    """Writes a grounded draft: every sentence cites `[S#]`; quotes in double quotes."""

    engine_id: str

    def answer(self, question: str, plan: Plan, sources: Sequence[Source]) -> Draft: ...


class Auditor(Protocol):
    """Gives each claim a verdict with evidence passage ids. Advice only."""

    engine_id: str

    def audit(
        self, question: str, claims: Sequence[ClaimToAudit], sources: Sequence[Source]
    ) -> list[ClaimAudit]: ...
