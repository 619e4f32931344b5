"""Domain models that cross module boundaries.

Everything that travels between the archive, retrieval, the agents, `trust/`, the run
pipeline and the receipt is one of these pydantic models. They hold data only; the rules
that judge them live in `trust/` (publish safety) and the stage modules (everything else).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Origin = Literal["archive", "web", "upload"]


class Frozen(BaseModel):
    """Base for value objects: immutable, and unknown fields are an error."""

    model_config = ConfigDict(frozen=True, extra="forbid")


# --------------------------------------------------------------------------- archive


class PageSpan(Frozen):
    """One PDF page: its printed label and its character span in the stored text."""

    label: str
    start: int
    end: int


class Link(Frozen):
    """A link of a document: its text, which is `document.text[start:end]`, and its target.

    The target is metadata, never part of the stored text: readers see the link's text.
    """

    text: str
    url: str
    start: int
    end: int


class Document(Frozen):
    """A stored document. `text` is the exact text every quote is checked against."""

    doc_id: str = Field(
        description="Stable, human-meaningful id (relative path, JSONL id, sample file id)."
    )
    title: str
    date: str | None = Field(
        None, description="Publication date, ISO 8601 (YYYY-MM-DD or a full timestamp)."
    )
    url: str | None = None
    origin: Origin = "archive"
    content_sha256: str = Field(description="SHA-256 of `text` encoded as UTF-8.")
    ingested_at: str = Field(description="UTC ISO 8601 timestamp with Z.")
    text: str
    pages: tuple[PageSpan, ...] = ()
    links: tuple[Link, ...] = Field(
        (), description="The links of the text, in text order (their targets are not in it)."
    )
    loader_version: str = Field(
        "",
        description="The loader (and its version) that made `text`, e.g. `markdown-2`; empty "
        "for a document stored before loaders had versions.",
    )
    meta: dict[str, str] = Field(
        default_factory=dict, description="Extra metadata: author, president, ..."
    )


class Passage(Frozen):
    """A window of a document's stored text: `text == document.text[start:end]`."""

    id: str = Field(description="`<doc_id>#<ordinal>`, stable while the document is unchanged.")
    doc_id: str
    text: str
    start: int
    end: int


# --------------------------------------------------------------------------- plan


class TimeWindow(Frozen):
    """An inclusive date range, ISO dates (YYYY-MM-DD)."""

    start: str
    end: str
    label: str


class SubQuestion(Frozen):
    text: str
    window: TimeWindow | None = None
    entity: str | None = Field(
        None, description="A person or name this sub-question is about, if any."
    )


class Plan(Frozen):
    subquestions: tuple[SubQuestion, ...]
    time_windows: tuple[TimeWindow, ...] = ()
    queries: tuple[str, ...] = Field(description="At most 3 search queries.")
    key_terms: tuple[str, ...] = Field(
        (),
        description="The question's topic words, lower-cased and unstemmed: what the answer "
        "must be about (the coverage check looks for them).",
    )
    kind: Literal["factoid", "temporal", "comparison"] = "factoid"
    mode: Literal["quick", "deep"] = "quick"
    resolved_question: str | None = Field(
        None,
        description="A follow-up as the planner understood it, self-contained (its pronouns "
        "and elided subject filled in from an earlier question of the conversation); None when "
        "the question was planned as asked.",
    )
    resolved_from: str | None = Field(
        None,
        description="The earlier question of the conversation the follow-up was resolved "
        "against; None when the question was planned as asked.",
    )
    resolved_subject: str | None = Field(
        None,
        description="What the follow-up took from that earlier question: the person (as the "
        "reader named them) or the topic its pronoun or elided subject stands for.",
    )


# --------------------------------------------------------------------------- retrieval


class Hit(Frozen):
    """One retrieved passage with its fused score and the per-engine evidence."""

    passage: Passage
    score: float = Field(description="Fused score (higher is better).")
    lexical_score: float | None = None
    lexical_rank: int | None = None
    dense_score: float | None = Field(None, description="Cosine similarity to the query.")
    dense_rank: int | None = None
    doc_date: str | None = None
    queries: tuple[str, ...] = Field(
        (), description="The queries whose search found this passage, in the order issued."
    )


class Search(Frozen):
    """One archive search a run issued: its query, where it looked, why, and what it found."""

    query: str
    side: int = Field(0, description="The side of the question it searched for (0 when one).")
    windows: tuple[str, ...] = Field((), description="Labels of the time windows searched.")
    aim: str = Field(
        "plan",
        description="`plan` for the plan's own queries; for a Deep mode query, the gap of the "
        "first pass it is aimed at (`runs/gaps.py`).",
    )
    hits: int = Field(0, description="Passages the search returned.")
    engine: str = Field(
        "archive",
        description="`archive`, or the web search provider that ran it (`searxng:<URL>`, "
        "`openai:<model>`): then `hits` counts the pages it proposed.",
    )
    error: str | None = Field(None, description="Why a web search failed (the run went on).")


class ScoredPassage(Frozen):
    id: str
    text: str
    start: int
    end: int
    score: float


class Source(Frozen):
    """A numbered source of one run (`S1`, `S2`, ...): a document and its selected passages."""

    id: str
    doc_id: str
    title: str
    date: str | None = None
    url: str | None = None
    names: tuple[str, ...] = Field(
        (),
        description="Who the document's words belong to (speaker, author, publisher): the "
        "names a sentence may use in an attribution frame.",
    )
    offices: tuple[str, ...] = Field(
        (),
        description="The speaker's office (`President`): a sentence may name the speaker by "
        "it in an attribution frame (`the President said`).",
    )
    addressees: tuple[str, ...] = Field(
        (),
        description="Whom the document addresses (`Congress`): a frame may name them "
        "beside an attribution verb (`told Congress that`).",
    )
    origin: Origin = "archive"
    retrieved_at: str
    content_sha256: str
    passages: tuple[ScoredPassage, ...] = ()
    queries: tuple[str, ...] = Field(
        (),
        description="The queries whose searches found the selected passages, the best "
        "passage's first (empty for a source named in a checked draft, and in older receipts).",
    )
    final_url: str | None = Field(
        None, description="A web source: the URL read, after redirects (`url` is the one asked)."
    )
    site: str | None = Field(None, description="A web source's site or publisher, when found.")
    author: str | None = Field(None, description="A web source's author, when found.")
    snapshot_sha256: str | None = Field(
        None,
        description="A web or uploaded source: the SHA-256 of the bytes read, kept as a "
        "snapshot (`evidence-desk sources show <doc_id>`); `content_sha256` is its text's.",
    )


class WebFetch(Frozen):
    """One page a run asked for (or a file attached to it): read, or why not."""

    url: str
    query: str = Field("", description="The web search that proposed it (empty: attached).")
    outcome: Literal["read", "refused", "failed"]
    reason: str | None = Field(None, description="Why it was not read: one sentence.")
    final_url: str | None = None
    snapshot_id: str | None = None
    redirects: int = 0


class WebDrop(Frozen):
    """A passage of a read page the evidence pool left out, whole, and why."""

    doc_id: str
    passage_id: str
    reason: Literal["budget", "duplicate"]
    detail: str


class DisplayQuote(Frozen):
    """A short quotation (at most 20 words) shown to the reader for a passage; an exact
    span of the source's stored text, kept apart from the passage the answerer reads."""

    passage_id: str
    text: str
    start: int
    end: int


class WebEvidence(Frozen):
    """What sources beyond the archive added to a run: who searched, every page asked for,
    the pool's drops and the diversity of what was shown."""

    provider: str = Field(description="The search provider, or `none` (attachments only).")
    fetches: tuple[WebFetch, ...] = ()
    drops: tuple[WebDrop, ...] = ()
    quotes: tuple[DisplayQuote, ...] = ()
    budget_tokens: int = 0
    used_tokens: int = 0
    publishers: tuple[str, ...] = ()
    domains: tuple[str, ...] = ()
    diversity: str = Field("", description="The diversity summary, with its caveat.")


class Coverage(Frozen):
    """The coverage stage's finding: does the archive hold what the question asks about?"""

    covered: bool
    score: float = Field(description="Best evidence score compared against the floor.")
    floor: float
    reason: str
    missing_terms: tuple[str, ...] = ()
    empty_windows: tuple[str, ...] = ()


# ------------------------------------------------------------------ answer, checks, verdicts


class Verdict(StrEnum):
    SUPPORTED = "supported"
    PARTIAL = "partial"
    UNSUPPORTED = "unsupported"
    CONTRADICTED = "contradicted"


class Decision(StrEnum):
    """The gate's four decisions. JSON carries the code; people read `words`, with the code
    beside them (`shown`), in the command line and on the web alike."""

    AUTO_CLEARED = "AUTO_CLEARED"
    PUBLISHED_AFTER_PRUNING = "PUBLISHED_AFTER_PRUNING"
    HELD_FOR_REVIEW = "HELD_FOR_REVIEW"
    OUTSIDE_COVERAGE = "OUTSIDE_COVERAGE"

    @property
    def words(self) -> str:
        return DECISION_WORDS[self]

    @property
    def shown(self) -> str:
        """`Published (AUTO_CLEARED)`: the plain words and the code."""
        return f"{self.words} ({self.value})"


DECISION_WORDS = {
    Decision.AUTO_CLEARED: "Published",
    Decision.PUBLISHED_AFTER_PRUNING: "Published after pruning",
    Decision.HELD_FOR_REVIEW: "Held for review",
    Decision.OUTSIDE_COVERAGE: "Outside coverage",
}


def decision_words(code: str | None) -> str:
    """The plain words for a decision code; an unknown or missing code as it is."""
    try:
        return Decision(code or "").words
    except ValueError:
        return code or ""


class CitedSpan(Frozen):
    """Words of a cited source an auditor (or the answerer) says a sentence rests on: they
    must be verbatim there (the paraphrase tier, docs/grounding.md)."""

    source_id: str = Field(pattern=r"^S[1-9][0-9]*$")
    text: str = Field(min_length=1)


class SentenceRest(Frozen):
    """The words of its cited sources one sentence of a draft rests on, as its answerer
    named them: a model's `rests_on`, or the `cited_text` of Anthropic's citations."""

    text: str = Field(description="The sentence as the draft has it, citation markers included.")
    spans: tuple[CitedSpan, ...] = Field(min_length=1)


class Draft(Frozen):
    """What an answerer wrote: prose whose sentences cite `[S#]` and quote in double quotes."""

    text: str
    rests: tuple[SentenceRest, ...] = Field(
        (),
        description="Per sentence, the spans its answerer says it rests on (none: the offline "
        "answerer, a draft from outside). Advice: they stand in for a model auditor's spans "
        "only where it found the sentence supported and named none (`judgment.lend_rests`).",
    )


class ClaimAudit(Frozen):
    """An auditor's advice on one claim. It can only make the gate stricter."""

    verdict: Verdict
    evidence: tuple[str, ...] = Field(
        (), description="Passage ids that support or contradict the claim."
    )
    confidence: float = 0.0
    rationale: str = ""
    spans: tuple[CitedSpan, ...] = Field(
        (),
        description="The words of the cited sources the claim rests on, as the auditor "
        "names them; only the paraphrase tier reads them, and only as verbatim spans.",
    )
    by: str = Field(
        "",
        description="Who gave the verdict when it was not the run's auditor: the writer's "
        "own, carried by a draft given to `check` (docs/grounding.md, verdicts from outside).",
    )
    spans_by: str = Field(
        "",
        description="Who named `spans` when it was not the verdict's giver: `answerer` when "
        "a model auditor found the claim supported without naming any and the answerer's "
        "own spans stand in (`Draft.rests`).",
    )


class Quote(Frozen):
    text: str
    source_id: str | None
    verbatim: bool
    start: int | None = None
    end: int | None = None


Tier = Literal["verbatim", "extractive", "paraphrase"]


class ClaimChecks(Frozen):
    """Deterministic check results for one claim (all computed in `trust/`)."""

    has_citation: bool
    citations_exist: bool
    quotes_verbatim: bool
    numbers_dates: bool
    unknown_citations: tuple[str, ...] = ()
    unmatched_numbers: tuple[str, ...] = ()
    model_directed_sources: tuple[str, ...] = Field(
        (),
        description="Cited sources whose selected passages contain text aimed at a model "
        "(`trust/screen.py`): a sign of prompt injection.",
    )
    grounding: tuple[str, ...] = Field(
        (),
        description="Why no single passage of a cited source carries the whole sentence "
        "(the grounding contract, `trust/grounding.py`); empty when one does.",
    )
    carried_by: tuple[str, ...] = Field(
        (), description="Passage ids of the window that carries the sentence, when one does."
    )
    tier: Tier | None = Field(
        None,
        description="How the sentence is carried, when it is: `verbatim` (its words are "
        "quotes and a frame), `extractive` (the passage's own words in order) or "
        "`paraphrase` (its anchors and the spans an auditor named, docs/grounding.md).",
    )
    anchors: tuple[str, ...] = Field(
        (),
        description="The paraphrase tier: the sentence's numbers, names, negations, modals, "
        "quantifiers, comparisons and connectives, each found in the spans it rests on.",
    )
    rests_on: tuple[Quote, ...] = Field(
        (), description="The paraphrase tier: the auditor's spans, located in the source."
    )
    extractive: tuple[str, ...] = Field(
        (),
        description="The paraphrase tier: why the sentence is not carried word for word "
        "(the grounding contract's reasons, kept for the record).",
    )
    leans_on: tuple[int, ...] = Field(
        (),
        description="The 1-based numbers of the answer's sentences this one leans on "
        "(`trust/answer.py`): it is kept only while they are.",
    )
    hidden_characters: tuple[str, ...] = Field(
        (),
        description="Invisible, direction-changing or combining characters and mixed-script "
        "words (`trust/characters.py`), each with its offset in the claim text.",
    )
    markup: tuple[str, ...] = Field((), description="Markup outside quotes (`trust/markup.py`).")
    unbalanced_quote_marks: bool = Field(
        False, description="A quotation mark without its partner (`trust/claims.py`)."
    )

    @property
    def passed(self) -> bool:
        return (
            self.has_citation
            and self.citations_exist
            and self.quotes_verbatim
            and self.numbers_dates
            and not self.model_directed_sources
            and not self.grounding
            and not self.hidden_characters
            and not self.markup
            and not self.unbalanced_quote_marks
        )


class Claim(Frozen):
    """One sentence of the draft, with its deterministic checks and verdicts.

    `verdict` is the effective verdict the gate uses: the auditor's verdict, capped at
    `unsupported` when a deterministic check failed (an auditor can make a claim stricter,
    never rescue it). `auditor_verdict` is what the auditor said.
    """

    text: str
    citations: tuple[str, ...]
    quotes: tuple[Quote, ...] = ()
    checks: ClaimChecks
    verdict: Verdict
    auditor_verdict: Verdict
    evidence: tuple[str, ...] = ()
    spans: tuple[CitedSpan, ...] = Field(
        (),
        description="The spans the claim may rest on (`ClaimAudit.spans`): the auditor's, "
        "or the answerer's where `spans_by` says so.",
    )
    audited_by: str = Field("", description="`ClaimAudit.by`: empty for the run's auditor.")
    spans_by: str = Field(
        "", description="`ClaimAudit.spans_by`: `answerer` when the spans are the answerer's."
    )
    kept: bool = False


class GateOutcome(Frozen):
    decision: Decision
    reason: str
    published_answer: str
    kept: tuple[bool, ...]


class StageRecord(Frozen):
    """One stage of a run: when it started, how long it took, and what models it used."""

    name: str
    started_at: str
    latency_ms: float
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    engine: str | None = Field(
        None, description="Provider and model id of the agent that ran in this stage."
    )
    estimated_spend_usd: float | None = Field(
        0.0, description="From the price table; None when the model has no price."
    )
    price_source: str | None = Field(
        None,
        description="Where the spend's price came from (e.g. 'packaged table 2025-10-01', "
        "'genai-prices 0.2.3'; several joined by '; '); None when unpriced or no model ran. "
        "Absent from receipts written before it.",
    )
    error: str | None = Field(None, description="Why the stage failed, when it did.")


class StageFailure(Frozen):
    """A stage that could not finish: the run ended there, and nothing was published."""

    stage: str
    reason: str
    kind: Literal["agent", "budget"] = Field(
        "agent",
        description="budget: the run's limits (model calls, tokens, spend, active seconds) "
        "stopped the stage before a call was sent; agent: the agent or its provider failed.",
    )


class GatePolicy(Frozen):
    """The thresholds the gate applies, recorded in every receipt to re-derive the decision."""

    id: str = "evidence-desk-gate"
    version: int = 1
    coverage_floor: float = Field(description="Minimum best-passage evidence score.")
    max_pruned_fraction: float = Field(
        0.5, description="Pruning may drop at most this fraction of claims; more is held."
    )
    min_kept_claims: int = Field(
        1, description="A published answer keeps at least this many claims."
    )
    grounding: Literal["strict", "paraphrase"] = Field(
        "strict",
        description="`paraphrase`: a sentence not carried word for word may be grounded by "
        "the paraphrase tier (docs/grounding.md); `strict`: never. Receipts written before "
        "the tier read as strict.",
    )


class EngineIds(Frozen):
    planner: str
    answerer: str
    auditor: str


class Usage(Frozen):
    model_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    active_seconds: float = 0.0
    estimated_spend_usd: float = 0.0
    unpriced_engines: tuple[str, ...] = Field(
        (), description="Engines with no price-table entry; their spend is not in the estimate."
    )
    price_sources: tuple[str, ...] = Field(
        (), description="Each price source the stages' spend was priced from, once, in order."
    )


class Integrity(Frozen):
    """Hash, signature and chain link of a receipt (see `trust/receipts.py`)."""

    algorithm: str = "ed25519"
    canonical_sha256: str
    signature: str
    key_id: str
    public_key: str
    previous_receipt_sha256: str | None


# --------------------------------------------------------------------------- lessons

BlockKind = Literal["key_idea", "how", "example", "not_said", "check"]
# The order a lesson's blocks are read in, and the words a reader sees for each kind.
BLOCK_KINDS: tuple[BlockKind, ...] = ("key_idea", "how", "example", "not_said", "check")
BLOCK_TITLES: dict[str, str] = {
    "key_idea": "The key idea",
    "how": "How it works, or what happened",
    "example": "An example from the sources",
    "not_said": "What the sources do not say",
    "check": "Check your understanding",
}
RelationKind = Literal[
    "proposed",
    "caused",
    "preceded",
    "part of",
    "contrasts with",
    "supported",
    "opposed",
    "created",
    "ended",
    "called for",
]
ReviewDecision = Literal["kept", "dropped", "unreviewed"]


class LessonBlock(Frozen):
    """One block of a lesson as a teacher proposed it. `text`: sentences citing `[S#]`,
    judged like an answer's. A `not_said` block names `absent` terms instead, which code
    finds in none of the retained passages; a `check` block's `text` answers `question`."""

    kind: BlockKind
    text: str = Field("", max_length=4000)
    question: str = Field("", max_length=400)
    absent: tuple[str, ...] = Field((), max_length=6)


class Relation(Frozen):
    """One arrow of a lesson's diagram: `subject` `relation` `object`, citing its sources.
    A teacher supplies these and nothing of the drawing: no coordinates, no markup."""

    id: str = Field(pattern=r"^R[1-9][0-9]*$")
    subject: str = Field(min_length=1, max_length=120)
    relation: RelationKind
    object: str = Field(min_length=1, max_length=160)
    citations: tuple[str, ...] = Field(min_length=1, max_length=4)
    verb: str = Field(
        "",
        max_length=40,
        description="The passage's own words for the relation (`enacted` for created); one "
        "of the forms code accepts for its kind. Empty: the kind's own verb.",
    )


class Lesson(Frozen):
    """What a teacher proposes for a published answer: blocks in order, and relations."""

    blocks: tuple[LessonBlock, ...] = Field(max_length=12)
    relations: tuple[Relation, ...] = Field((), max_length=24)


class BlockReview(Frozen):
    """The teaching review's one decision on one block: its sentences judged as an answer
    is (`claims`, the gate's `gate` decision and `published` text), or, for `not_said`,
    its absent terms found in no retained passage."""

    block: LessonBlock
    claims: tuple[Claim, ...] = ()
    gate: Decision | None = None
    published: str = ""
    decision: ReviewDecision
    reason: str


class RelationReview(Frozen):
    """The teaching review's one decision on one relation, judged as its `sentence`."""

    relation: Relation
    sentence: str
    claim: Claim | None = None
    speaker: str = Field(
        "",
        description="The passage in which the source's speaker states the relation in the "
        "first person (`trust.teaching.speaker_carrier`), when one does.",
    )
    gate: Decision | None = None
    decision: ReviewDecision
    reason: str


LessonDecision = Literal["PUBLISHED", "WITHHELD"]


class Teaching(Frozen):
    """A receipt's `teaching` section: the lesson of a published answer as reviewed.

    `lesson_sha256` is the SHA-256 of the canonical JSON of `reviewed_lesson()` (the
    blocks and relations with their decisions): what was reviewed is what is published.
    """

    answer_run_id: str
    answer_receipt_sha256: str
    teacher: str
    blocks: tuple[BlockReview, ...]
    relations: tuple[RelationReview, ...]
    decision: LessonDecision
    reason: str
    lesson_sha256: str

    def reviewed_lesson(self) -> dict[str, Any]:
        """What the lesson hash covers, as JSON."""
        return self.model_dump(mode="json", include={"blocks", "relations"})


class ImageReview(Frozen):
    """An image reviewer's verdict on a picture, from the picture itself: advice that the
    illustrate stage reads with code's own checks (`runs/illustrate.py`)."""

    shows_text: bool
    depicts_only_the_lesson: bool
    misleading: bool
    reason: str = Field("", max_length=600)


# A shown picture's file name is its hash and this suffix (`Illustration.file_name`).
PICTURE_SUFFIXES: dict[str, str] = {"image/png": ".png", "image/jpeg": ".jpg"}


class Illustration(Frozen):
    """A lesson's picture as the illustrate stage made and judged it (a lesson receipt's
    `illustration`). `shown` is true only when code's checks on the bytes passed and the
    reviewer said it shows no text, depicts only the lesson and is not misleading; a
    picture that is not shown is still recorded by its hash, with the reason."""

    engine: str = Field(description="The image engine (`EVIDENCE_DESK_ILLUSTRATOR`).")
    reviewer: str = Field("", description="The engine that reviewed the picture, if any.")
    prompt: str = Field(description="The image prompt the planning step wrote.")
    image_sha256: str = Field("", description="SHA-256 of the image bytes; empty: none came.")
    media_type: str = Field("", description="image/png or image/jpeg, read from the bytes.")
    width: int = 0
    height: int = 0
    review: ImageReview | None = Field(None, description="None: the picture was not reviewed.")
    shown: bool = False
    reason: str

    def file_name(self) -> str | None:
        """The shown picture's file in the data directory's `illustrations/`; None when
        it is not shown (such a picture is not kept)."""
        suffix = PICTURE_SUFFIXES.get(self.media_type)
        return f"{self.image_sha256}{suffix}" if self.shown and suffix else None


class Receipt(BaseModel):
    """The audit receipt of one run (`contracts/receipt.md`). Extra fields are kept."""

    model_config = ConfigDict(extra="allow")

    receipt_version: int = Field(
        3,
        description="3: claims carry their tier (verbatim, extractive, paraphrase) and the "
        "spans their auditor named; 2: claims carry the grounding contract's checks "
        "(docs/grounding.md); 1: receipts written before it, verified without them.",
    )
    run_id: str
    created_at: str
    question: str
    plan: Plan
    sources: list[Source]
    draft: str
    claims: list[Claim]
    quotes: list[Quote]
    decision: Decision
    reason: str
    published_answer: str
    engine: EngineIds
    policy: GatePolicy
    coverage: Coverage | None = None
    stages: list[StageRecord]
    usage: Usage
    failure: StageFailure | None = None
    searches: list[Search] = Field(
        default_factory=list,
        description="Every archive search the run issued, in order (empty in older receipts).",
    )
    web: WebEvidence | None = Field(
        None, description="Web pages and attached files the run read (None: the archive alone)."
    )
    teaching: Teaching | None = Field(
        None,
        description="An explanation run's lesson of the answer above it, as reviewed "
        "(None: an answer's own receipt).",
    )
    integrity: Integrity | None = None


JSON = dict[str, Any]
