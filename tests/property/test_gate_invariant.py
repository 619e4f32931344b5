"""The gate invariant, under generated sources, drafts and auditor verdicts.

Sources are short documents of realistic sentences. Drafts mix good claims under the
grounding contract (a frame and a verbatim quote of a passage, a passage sentence stated
as it stands, correct citations) with bad ones: quotes with one character changed, spliced
from two places, with a Cyrillic or Greek look-alike letter, a zero-width character, a
changed case or a swapped apostrophe; wrong, unknown, malformed or missing citations;
changed numbers; sentences stitched from one sentence's subject and another's predicate;
an unclosed quote. The auditor may say anything, including `supported` for all.

Whatever happens, a published answer holds only grounded claims and verbatim quotes, a draft
with a bad quote or an unknown citation is never published, a stitched sentence (false by
construction) is never kept, and a good draft that the auditor supports is AUTO_CLEARED.
Quotes are judged by an independent oracle (`str.split`
white space, plain substring search), not by the code under test.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hypothesis import event, given, settings
from hypothesis import strategies as st

from evidence_desk.trust.checks import EvidenceSource, check_draft
from evidence_desk.trust.claims import split_claims
from evidence_desk.trust.gate import PUBLISHING, decide
from evidence_desk.types import ClaimAudit, Coverage, Decision, GatePolicy, Verdict

SUBJECTS = [
    "The nation's farmers",
    "Congress",
    "The people’s army",
    "Our country's schools",
    "The government",
    "Every state's treasury",
    "The navy",
    "Their children's teachers",
]
VERBS = ["counted", "built", "lost", "gained", "spent", "reported", "hired", "sold"]
OBJECTS = ["ships", "homes", "acres", "dollars", "schools", "bridges", "workers", "farms"]
TAILS = ["in", "during", "before", "after", "by"]
SEPARATORS = [" ", "  ", "\n", " \n ", "\u00a0"]
LEADS = ["The source says", "According to the source,", "The source said that", "It says"]
HOMOGLYPHS = {"a": "а", "e": "е", "o": "о", "p": "р", "c": "с", "y": "у", "i": "і", "T": "Τ"}
ZERO_WIDTH = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff"]
MALFORMED = ["[S]", "[Source 1]", "[1]", "[s1]", "[]", "[S1, Source 2]"]
MUTATIONS = ["char", "splice", "homoglyph", "zero_width", "case", "apostrophe"]

SETTINGS = settings(max_examples=200, deadline=None)


@dataclass
class Doc:
    sentences: list[str]
    text: str
    passage: str
    passage_words: list[str]  # words of the passage sentences, in order
    passage_start: int
    parts: list[tuple[str, str]]  # (subject, predicate) of each sentence

    @property
    def passage_sentences(self) -> list[int]:
        return [i for i, s in enumerate(self.sentences) if s in self.passage]


@dataclass
class Spec:
    text: str
    quotes: tuple[str, ...] = ()
    cited: tuple[str, ...] = ()
    bad_citation: bool = False
    changed_number: bool = False
    good: bool = False
    unclosed: bool = False
    false: bool = False  # false by construction: must never be kept


def oracle_verbatim(quote: str, text: str) -> bool:
    """Verbatim as the contract reads it: white space runs alike, and the first letter in the
    writer's case (`"the nation's farmers"` quotes `The nation's farmers`)."""
    needle = " ".join(quote.split())
    hay = " ".join(text.split())
    return bool(needle) and (needle in hay or needle[0].swapcase() + needle[1:] in hay)


def sentence(data: st.DataObject) -> tuple[str, str]:
    """(subject, predicate) of a sentence."""
    subject = data.draw(st.sampled_from(SUBJECTS))
    verb = data.draw(st.sampled_from(VERBS))
    obj = data.draw(st.sampled_from(OBJECTS))
    if data.draw(st.booleans()):
        n = data.draw(st.integers(2, 999))
        year = data.draw(st.integers(1790, 2020))
        return subject, f"{verb} {n} {obj} {data.draw(st.sampled_from(TAILS))} {year}"
    return subject, f"{verb} new {obj} for the {data.draw(st.sampled_from(OBJECTS))}"


def document(data: st.DataObject) -> Doc:
    parts = [sentence(data) for _ in range(data.draw(st.integers(2, 5)))]
    sentences = [f"{a} {b}." for a, b in parts]
    seps = [data.draw(st.sampled_from(SEPARATORS)) for _ in sentences[1:]]
    starts, text = [], ""
    for i, s in enumerate(sentences):
        text += seps[i - 1] if i else ""
        starts.append(len(text))
        text += s
    p0 = data.draw(st.integers(0, len(sentences) - 1))
    p1 = data.draw(st.integers(p0 + 1, len(sentences)))
    passage = text[starts[p0] : starts[p1 - 1] + len(sentences[p1 - 1])]
    return Doc(sentences, text, passage, passage.split(), starts[p0], parts)


def fragment(data: st.DataObject, words: list[str]) -> str:
    a = data.draw(st.integers(0, max(0, len(words) - 3)))
    b = data.draw(st.integers(min(a + 3, len(words)), min(a + 10, len(words))))
    return " ".join(words[a:b])


def mutate(data: st.DataObject, quote: str, other_words: list[str]) -> str:
    kind = data.draw(st.sampled_from(MUTATIONS))
    positions = {
        "char": [i for i, c in enumerate(quote) if c.isalnum()],
        "homoglyph": [i for i, c in enumerate(quote) if c in HOMOGLYPHS],
        "case": [i for i, c in enumerate(quote) if c.swapcase() != c],
        "apostrophe": [i for i, c in enumerate(quote) if c in "'’"],
    }.get(kind, [])
    if kind == "splice":
        return " ".join([*quote.split()[:2], fragment(data, other_words)])
    if not positions:  # the chosen mutation does not apply: insert a zero-width character
        at = data.draw(st.integers(1, len(quote) - 1))
        return quote[:at] + data.draw(st.sampled_from(ZERO_WIDTH)) + quote[at:]
    i = data.draw(st.sampled_from(positions))
    c = quote[i]
    new = {
        "char": "x" if c != "x" else "z",
        "homoglyph": HOMOGLYPHS.get(c, c),
        "case": c.swapcase(),
        "apostrophe": "’" if c == "'" else "'",
    }[kind]
    return quote[:i] + new + quote[i + 1 :]


def evidence_ints(
    docs: dict[str, Doc], metadata: tuple[str, ...], ids: tuple[str, ...]
) -> set[int]:
    texts = [docs[i].passage for i in ids if i in docs] + list(metadata)
    return {int(n) for t in texts for n in re.findall(r"\d+", t)}


GOOD_KINDS = ["quote", "number", "plain"]
PRUNABLE_KINDS = ["changed_number", "uncited", "stitched"]
HOLDING_KINDS = ["bad_quote", "wrong_source", "unknown", "malformed", "uncited_quote"]


def claim_spec(
    data: st.DataObject, docs: dict[str, Doc], metadata: tuple[str, ...], kinds: list[str]
) -> Spec:
    ids = sorted(docs)
    sid = data.draw(st.sampled_from(ids))
    doc = docs[sid]
    lead = data.draw(st.sampled_from(LEADS))
    kind = data.draw(st.sampled_from(kinds))
    quote = fragment(data, doc.passage_words)
    marker = f"[{sid}]"
    own = doc.sentences[data.draw(st.sampled_from(doc.passage_sentences))].rstrip(".")
    long_enough = len(quote.split()) >= 5  # always 2 words that are not stop words
    if kind == "quote":
        return Spec(f'{lead} "{quote}" {marker}.', (quote,), (sid,), good=long_enough)
    if kind == "number":
        return Spec(f"{own} {marker}.", (), (sid,), good=True)
    if kind == "plain":
        return Spec(f"{lead} {own[0].lower()}{own[1:]} {marker}.", (), (sid,), good=True)
    if kind == "stitched":
        subjects = {a for a, _ in doc.parts}
        predicate = doc.parts[data.draw(st.sampled_from(doc.passage_sentences))][1]
        other = data.draw(st.sampled_from(SUBJECTS))
        false = other not in subjects and (other, predicate) not in doc.parts
        return Spec(f"{other} {predicate} {marker}.", (), (sid,), false=false)
    if kind == "bad_quote":
        other_doc = docs[data.draw(st.sampled_from(ids))]
        bad = mutate(data, quote, other_doc.text.split())
        return Spec(f'{lead} "{bad}" {marker}.', (bad,), (sid,))
    if kind == "wrong_source":
        other = data.draw(st.sampled_from(ids))
        good = other == sid and long_enough
        return Spec(f'{lead} "{quote}" [{other}].', (quote,), (other,), good=good)
    if kind == "unknown":
        return Spec(f'{lead} "{quote}" [{sid}, S9].', (quote,), (sid,), bad_citation=True)
    if kind == "malformed":
        bad_marker = data.draw(st.sampled_from(MALFORMED))
        cited = ("S1",) if "S1" in bad_marker else ()
        return Spec(f"The source discusses ships {bad_marker}.", (), cited, bad_citation=True)
    if kind == "changed_number":
        used = evidence_ints(docs, metadata, (sid,))
        n = data.draw(st.integers(2, 3000).filter(lambda v: v not in used))
        return Spec(f"Records show {n} of the ships {marker}.", (), (sid,), changed_number=True)
    if kind == "uncited":
        return Spec(f"The source discusses {data.draw(st.sampled_from(OBJECTS))}.")
    return Spec(f'{lead} "{quote}".', (quote,))


def scenario(data: st.DataObject) -> tuple[dict[str, Doc], dict[str, EvidenceSource], list[Spec]]:
    n_docs = data.draw(st.integers(1, 3))
    docs = {f"S{i + 1}": document(data) for i in range(n_docs)}
    metadata = ("Annual Message", data.draw(st.sampled_from(["1933-03-04", "1861-12-03"])))
    sources = {
        sid: EvidenceSource(
            sid,
            f"doc-{sid}",
            d.text,
            ((f"doc-{sid}#0", d.passage_start, d.passage_start + len(d.passage)),),
            title=metadata[0],
            date=metadata[1],
        )
        for sid, d in docs.items()
    }
    # Drafts that are all good, good with prunable sentences, or anything at all.
    kinds = data.draw(
        st.sampled_from(
            [GOOD_KINDS, GOOD_KINDS + PRUNABLE_KINDS, GOOD_KINDS + PRUNABLE_KINDS + HOLDING_KINDS]
        )
    )
    n_claims = data.draw(st.integers(1, 6))
    specs = [claim_spec(data, docs, metadata, kinds) for _ in range(n_claims)]
    if kinds is not GOOD_KINDS and data.draw(st.integers(0, 9)) == 0:
        # An unclosed quote, last so that no later quote mark can close it.
        sid = data.draw(st.sampled_from(sorted(docs)))
        words = fragment(data, docs[sid].passage_words).split()
        ends = [i for i, w in enumerate(words) if w.endswith(".")]
        quote = " ".join(words[: ends[0] + 1] if ends else [*words[:-1], words[-1] + "."])
        specs.append(Spec(f'We read [{sid}] "{quote}', (quote,), (sid,), unclosed=True))
    return docs, sources, specs


@SETTINGS
@given(st.data())
def test_gate_invariant(data: st.DataObject) -> None:
    docs, sources, specs = scenario(data)
    draft = " ".join(s.text for s in specs)
    checked = check_draft(draft, sources)
    assert [c.claim.text for c in checked] == [s.text for s in specs]

    # A good claim led by the pronoun `It says` leans on the claim before it: `It` is that
    # claim's source, so it is grounded only after a claim that cites its source too.
    for k, spec in enumerate(specs):
        if spec.good and k > 0 and spec.text.startswith("It says"):
            spec.good = spec.cited[0] in specs[k - 1].cited

    # The checks agree with the oracle and with how each claim was built.
    quote_ok: list[bool] = []
    for spec, c in zip(specs, checked, strict=True):
        cited = [docs[i].text for i in spec.cited if i in docs]
        ok = not spec.unclosed and all(
            any(oracle_verbatim(q, t) for t in cited) for q in spec.quotes
        )
        quote_ok.append(ok)
        assert c.checks.quotes_verbatim == ok
        assert c.checks.citations_exist == (not spec.bad_citation)
        assert c.checks.has_citation == bool(spec.cited)
        if spec.changed_number:
            assert not c.checks.numbers_dates
        if spec.good:
            assert c.checks.passed, (spec, c.checks)

    # The auditor: supports everything, supports most, or says anything.
    mode = data.draw(st.sampled_from(["all", "most", "any"]))
    verdicts = [
        Verdict.SUPPORTED
        if mode == "all" or (mode == "most" and data.draw(st.booleans()))
        else data.draw(st.sampled_from(list(Verdict)))
        for _ in specs
    ]
    all_supported = all(v == Verdict.SUPPORTED for v in verdicts)
    covered = Coverage(covered=True, score=0.9, floor=0.4, reason="")
    uncovered = Coverage(covered=False, score=0.1, floor=0.4, reason="")
    coverage = data.draw(st.sampled_from([None, covered, None, uncovered]))
    policy = GatePolicy(
        coverage_floor=0.4,
        max_pruned_fraction=data.draw(st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0])),
        min_kept_claims=data.draw(st.integers(0, 2)),
    )
    claims, outcome = decide(checked, [ClaimAudit(verdict=v) for v in verdicts], coverage, policy)

    event(f"decision: {outcome.decision.value}")
    publishes = outcome.decision in PUBLISHING
    kept = [c for c in claims if c.kept]
    assert [c.kept for c in claims] == list(outcome.kept)
    assert outcome.published_answer == (" ".join(c.text for c in kept) if publishes else "")
    assert publishes == bool(outcome.published_answer)

    # THE INVARIANT: every kept claim passed every check, is supported, quotes verbatim.
    for spec, judged, ok in zip(specs, claims, quote_ok, strict=True):
        if judged.kept:
            assert judged.checks.passed and judged.verdict == Verdict.SUPPORTED and ok
            assert not spec.bad_citation and not spec.changed_number and not spec.false

    # Re-checked from scratch, the published answer passes every check.
    rechecked = check_draft(outcome.published_answer, sources)
    assert [c.claim.text for c in rechecked] == [c.text for c in kept]
    for c in rechecked:
        assert c.checks.passed
        for q in c.quotes:
            assert any(oracle_verbatim(q.text, docs[i].text) for i in c.claim.citations)

    bad_draft = not all(quote_ok) or any(s.bad_citation for s in specs)
    if bad_draft:
        assert not publishes
    if coverage is not None and not coverage.covered:
        assert outcome.decision == Decision.OUTSIDE_COVERAGE
    elif all(s.good for s in specs) and all_supported and len(specs) >= policy.min_kept_claims:
        assert outcome.decision == Decision.AUTO_CLEARED
        assert outcome.published_answer == draft


@SETTINGS
@given(st.data())
def test_split_claims_returns_the_sentences_it_was_given(data: st.DataObject) -> None:
    docs, _, specs = scenario(data)
    joiner = data.draw(st.sampled_from([" ", "  ", "\n", "\n\n"]))
    draft = joiner.join(s.text for s in specs)
    claims = split_claims(draft)
    assert [c.text for c in claims] == [s.text for s in specs]
    assert [c.quotes for c in claims] == [s.quotes for s in specs]
    assert all(draft[c.start : c.end] == c.text for c in claims)
    assert len(docs) >= 1
