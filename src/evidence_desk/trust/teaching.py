"""The teaching review's rules, and how a receipt's `teaching` section is re-checked.

A lesson of a published answer (`types.Teaching`) is reviewed part by part: every block and
every diagram relation gets exactly one decision, `kept`, `dropped` or `unreviewed`. What
decides them is written here, in code, for the run that reviews (`runs/teach.py`) and for
`receipt verify` alike:

* a block of sentences, and a relation (as `relation_sentence`), is judged as an answer
  is: the grounding contract and the gate (`gate.decide_claims`). A block is kept when the
  gate would publish it, with its pruned text; a relation only when every check passed, the
  gate clears it whole (`AUTO_CLEARED`), not in the paraphrase tier (which does not hold a
  relation's direction), and its verb is a form of its kind (`RELATION_FORMS`: `enacted`
  may say `created`, never `caused`);
* a `not_said` block is kept when none of its `absent` terms is in a retained passage
  (`absent_problems`); its sentence is written here (`not_said_sentence`), never by the
  teacher;
* a `check` block's question may bring nothing its answer and passages lack
  (`question_problems`), and its answer is judged as any block;
* the lesson is withheld when any part went unreviewed, or when its key idea was not kept
  (`lesson_decision`);
* `lesson_hash` binds what was reviewed to what is published: the SHA-256 of the canonical
  JSON of the reviewed blocks and relations. Publishing refuses a lesson whose hash no
  longer matches, and so does `teaching_problems`.

`teaching_problems` re-derives all of this from the receipt alone, each block's and
relation's claims through the same consistency checks an answer's claims get.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from ..types import (
    BlockReview,
    Claim,
    Decision,
    Illustration,
    LessonDecision,
    Receipt,
    Relation,
    RelationReview,
    Source,
    Teaching,
    Verdict,
)
from .canonical import canonical_json, sha256_hex
from .consistency import consistency_problems
from .gate import PUBLISHING, decide_claims

# The words a relation of each kind may be written with, its own verb first: the teacher
# picks the kind and, from these, the passage's words; code writes the sentence.
RELATION_FORMS: dict[str, tuple[str, ...]] = {
    "proposed": ("proposed", "propose", "proposes", "recommended", "recommend", "recommends"),
    "caused": ("caused", "causes", "led to", "leads to", "brought about", "resulted in"),
    "preceded": ("preceded", "precedes", "came before"),
    "part of": ("is part of", "are part of", "was part of", "were part of", "is a part of"),
    "contrasts with": ("contrasts with", "contrast with", "differs from", "differ from"),
    "supported": ("supported", "supports", "support", "backed", "endorsed", "favored"),
    "opposed": ("opposed", "opposes", "oppose", "rejected", "rejects", "resisted"),
    "created": ("created", "creates", "established", "establishes", "founded", "enacted"),
    "ended": ("ended", "ends", "abolished", "abolishes", "repealed", "repeals"),
    "called for": ("called for", "calls for", "call for", "urged", "urges", "urge"),
}
RELATION_VERBS: dict[str, str] = {kind: forms[0] for kind, forms in RELATION_FORMS.items()}

_WORD = re.compile(r"[A-Za-z][A-Za-z'\-]*|[0-9][0-9,.]*")
# Words a question may use that need no evidence: what asks, and the glue around it.
QUESTION_WORDS = frozenset(
    """a an the of to in on at by for from with about into as and or but not no is are was
    were be been being do does did has have had can could would should will shall may might
    must what which who whom whose when where why how that this these those it its their
    his her he she they them we you i one ones according sources source say says said
    passage passages answer named name names did does mean means called call word words
    give gives given lesson speaker speakers address""".split()
)
MAX_QUESTION_WORDS = 30


def relation_verb(relation: Relation) -> str:
    """The relation's verb as written: its own words when they are a form of its kind."""
    verb = " ".join(relation.verb.lower().split())
    return verb if verb in RELATION_FORMS[relation.relation] else RELATION_VERBS[relation.relation]


def relation_problems(relation: Relation, claim: Claim | None = None) -> list[str]:
    """Why a relation cannot stand as typed: its verb is not a form of its kind, or its
    judged sentence (`claim`) is carried only in the paraphrase tier, whose anchors do not
    hold who did what to whom (`many studies supported Sherlock` for `Sherlock supported
    many studies`): a relation's ends must stand in the passage's own order."""
    verb = " ".join(relation.verb.lower().split())
    problems: list[str] = []
    if verb and verb not in RELATION_FORMS[relation.relation]:
        problems.append(f'"{verb}" does not say "{relation.relation}"')
    if claim is not None and claim.checks.tier == "paraphrase":
        problems.append("its sentence is carried only as a paraphrase, not in the passage's order")
    return problems


def relation_sentence(relation: Relation) -> str:
    """The sentence a relation is judged as: `Roosevelt proposed a lend-lease program [S1].`"""
    marks = "".join(f"[{c}]" for c in relation.citations)
    subject = " ".join(relation.subject.split())
    obj = " ".join(relation.object.split()).rstrip(".")
    return f"{subject} {relation_verb(relation)} {obj} {marks}."


def not_said_sentence(absent: Sequence[str]) -> str:
    """The sentence a `not_said` block reads as, from its terms (code writes it)."""
    terms = [f'"{" ".join(t.split())}"' for t in absent]
    listed = terms[0] if len(terms) == 1 else f"{', '.join(terms[:-1])} or {terms[-1]}"
    return f"None of the passages this answer rests on mentions {listed}."


# A term's word is mentioned by any word of a passage that opens with the same letters,
# this many at most: `opposition` by `opposed`, `cost` by `costs`. A looser match only ever
# drops a "not said" block, never keeps one a passage contradicts.
_SAME_WORD_PREFIX = 5


def _mentions(term: str, text: str) -> bool:
    """Whether `text` holds every word of `term` in some form (`_SAME_WORD_PREFIX`)."""
    held = {w.lower()[:_SAME_WORD_PREFIX] for w in _WORD.findall(text)}
    return all(w.lower()[:_SAME_WORD_PREFIX] in held for w in _WORD.findall(term))


def absent_problems(absent: Sequence[str], sources: Sequence[Source]) -> list[str]:
    """Why a `not_said` block's terms are not absent: each term a retained passage holds."""
    if not absent or any(not _WORD.findall(t) for t in absent):
        return ["it names no term the sources lack"]
    passages = [p for s in sources for p in s.passages]
    problems: list[str] = []
    for term in absent:
        found = next((p for p in passages if _mentions(term, p.text)), None)
        if found is not None:
            problems.append(f'passage {found.id} mentions "{" ".join(term.split())}"')
    return problems


def _stem(word: str) -> str:
    return word.lower().replace(",", "").rstrip(".")[:5]


def _stems(texts: Iterable[str]) -> set[str]:
    return {_stem(w) for t in texts for w in _WORD.findall(t)}


def question_problems(question: str, answer: str, cited: Sequence[Source]) -> list[str]:
    """Why a check question is not fit to ask: it must be one question, asking, and bring no
    word (past the words of asking) that its answer and cited passages do not hold."""
    text = " ".join(question.split())
    problems: list[str] = []
    if not text.endswith("?") or text.count("?") != 1:
        problems.append("the question is not one question ending in a question mark")
    if any(ch in text for ch in '[]"“”<>'):
        problems.append("the question carries citations, quotation marks or markup")
    words = _WORD.findall(text)
    if not words or len(words) > MAX_QUESTION_WORDS:
        problems.append(f"the question has no words or more than {MAX_QUESTION_WORDS}")
    known = _stems([answer, *(p.text for s in cited for p in s.passages)])
    known |= _stems(s.title for s in cited) | _stems(n for s in cited for n in s.names)
    known |= _stems(s.date or "" for s in cited)
    new = [w for w in words if w.lower() not in QUESTION_WORDS and _stem(w) not in known]
    if new:
        problems.append(f"the question brings words its answer and passages lack: {new[0]!r}")
    return problems


def lesson_decision(
    blocks: Sequence[BlockReview], relations: Sequence[RelationReview]
) -> tuple[LessonDecision, str]:
    """PUBLISHED or WITHHELD, and why: every part must have its decision, and the key idea
    must be kept."""
    parts = len(blocks) + len(relations)
    missing: list[str] = [b.block.kind for b in blocks if b.decision == "unreviewed"]
    missing += [r.relation.id for r in relations if r.decision == "unreviewed"]
    if missing:
        return "WITHHELD", (
            f"The teaching review is incomplete: {len(missing)} of {parts} parts have no "
            f"review decision ({', '.join(missing)}), so the whole lesson is withheld."
        )
    key = next((b for b in blocks if b.block.kind == "key_idea"), None)
    if key is None or key.decision != "kept":
        why = "the lesson has no key idea" if key is None else key.reason
        return "WITHHELD", f"The key idea did not pass review ({why}), so the lesson is withheld."
    kept_b = sum(b.decision == "kept" for b in blocks)
    kept_r = sum(r.decision == "kept" for r in relations)
    return "PUBLISHED", (
        f"Every part was reviewed: {kept_b} of {len(blocks)} blocks and {kept_r} of "
        f"{len(relations)} relations kept; what was dropped is recorded with its reason."
    )


def lesson_hash(blocks: Sequence[BlockReview], relations: Sequence[RelationReview]) -> str:
    """The SHA-256 of the canonical JSON of the reviewed lesson (`Teaching.reviewed_lesson`)."""
    reviewed = {
        "blocks": [b.model_dump(mode="json") for b in blocks],
        "relations": [r.model_dump(mode="json") for r in relations],
    }
    return sha256_hex(canonical_json(reviewed))


def block_decision(gate: Decision | None, problems: Sequence[str]) -> bool:
    """Whether a judged block is kept: the gate would publish it and nothing else failed."""
    return gate in PUBLISHING and not problems


# Between a speaker's `I` and the verb: words that neither deny, defer nor hedge it.
_SPEAKER_ADVERBS = r"(?:(?:also|again|now|therefore|hereby|earnestly|strongly|once more)\s+)?"


def speaker_names(source: Source, sources: Sequence[Source]) -> set[str]:
    """What a relation may call a source's speaker: the full name, and the surname when no
    other source of the answer has a speaker of that surname (`surnames.py`)."""
    if not source.names or len(source.names[0].split()) < 2:
        return set()
    full = " ".join(source.names[0].split())
    surname = full.split()[-1]
    rivals = [s for s in sources if s.names and s.names[0] != source.names[0]]
    if any(s.names[0].split()[-1] == surname for s in rivals):
        return {full}
    return {full, surname}


def speaker_carrier(relation: Relation, sources: Sequence[Source]) -> str | None:
    """The passage in which a cited source's speaker states the relation in the first
    person, or None: `I recommend a national health program` carries `Truman proposed a
    national health program` in Truman's address. The passage must read `I`, at most one
    adverb that neither denies nor defers (`also`, `again`, `hereby`, ...), a form of the
    relation's kind, then its object word for word; the subject must be the source's
    speaker (`speaker_names`). No modal, negation or condition can stand between."""
    obj = " ".join(relation.object.split())
    for source in (s for s in sources if s.id in relation.citations):
        if " ".join(relation.subject.split()) not in speaker_names(source, sources):
            continue
        forms = "|".join(
            re.escape(f).replace(r"\ ", r"\s+") for f in RELATION_FORMS[relation.relation]
        )
        words = r"\s+".join(re.escape(w) for w in obj.split())
        pattern = re.compile(rf"(?<![\w'’])I\s+{_SPEAKER_ADVERBS}(?:{forms})\s+{words}(?![\w])")
        found = next((p for p in source.passages if pattern.search(p.text)), None)
        if found is not None:
            return found.id
    return None


def relation_decision(
    relation: Relation, claim: Claim | None, gate: Decision | None, speaker: str | None = None
) -> bool:
    """Whether a judged relation is kept: its verb says its kind, and either the gate clears
    its one sentence whole, word for word (`relation_problems`), or the speaker states it
    in the first person (`speaker`, the passage `speaker_carrier` found) while every check
    of its sentence but the grounding contract's passes and its auditor does not contradict
    it."""
    if gate == Decision.AUTO_CLEARED and not relation_problems(relation, claim):
        return True
    if speaker is None or claim is None or relation_problems(relation):
        return False
    checks = claim.checks.model_copy(update={"grounding": ()})
    return checks.passed and claim.auditor_verdict != Verdict.CONTRADICTED


# --------------------------------------------------------------------------- verifying


def _judged_problems(
    receipt: Receipt, where: str, text: str, claims: Sequence[Claim], gate: Decision | None
) -> list[str]:
    """The consistency checks of an answer, run on one judged block or relation."""
    if gate is None:
        return [f"{where} has judged sentences but no gate decision."] if claims else []
    outcome = decide_claims(claims, receipt.coverage, receipt.policy)
    as_answer = receipt.model_copy(
        update={
            "draft": text,
            "claims": list(claims),
            "quotes": [q for c in claims for q in c.quotes],
            "decision": gate,
            "published_answer": outcome.published_answer,
            "teaching": None,
        }
    )
    return [f"{where}: {p}" for p in consistency_problems(as_answer)]


def _block_problems(receipt: Receipt, n: int, review: BlockReview) -> list[str]:
    block = review.block
    where = f"Lesson block {n} ({block.kind})"
    if review.decision == "unreviewed":
        return []
    problems: list[str] = []
    if block.kind == "not_said":
        expected = not absent_problems(block.absent, receipt.sources)
        if review.published != (not_said_sentence(block.absent) if expected else ""):
            problems.append(f"{where}'s published sentence is not the one its terms give.")
    else:
        problems += _judged_problems(receipt, where, block.text, review.claims, review.gate)
        extra: list[str] = []
        if block.kind == "check":
            cited = [s for s in receipt.sources if any(s.id in c.citations for c in review.claims)]
            extra = question_problems(block.question, block.text, cited)
        expected = block_decision(review.gate, extra)
        outcome = decide_claims(review.claims, receipt.coverage, receipt.policy)
        if review.published != (outcome.published_answer if expected else ""):
            problems.append(f"{where}'s published text is not what its review keeps.")
    if (review.decision == "kept") != expected:
        problems.append(f"{where}'s decision does not follow from its checks.")
    return problems


def _relation_problems(receipt: Receipt, review: RelationReview) -> list[str]:
    where = f"Relation {review.relation.id}"
    if review.decision == "unreviewed":
        return []
    if review.sentence != relation_sentence(review.relation):
        return [f"{where}'s sentence is not the one its relation gives."]
    claims = (review.claim,) if review.claim is not None else ()
    problems = _judged_problems(receipt, where, review.sentence, claims, review.gate)
    if review.speaker != (speaker_carrier(review.relation, receipt.sources) or ""):
        problems.append(f"{where}'s speaker's passage is not the one its sources give.")
    kept = relation_decision(review.relation, review.claim, review.gate, review.speaker or None)
    if (review.decision == "kept") != kept:
        problems.append(f"{where}'s decision does not follow from its checks.")
    return problems


def teaching_problems(receipt: Receipt) -> list[str]:
    """Every way a receipt's teaching section fails to follow from what it records."""
    teaching: Teaching | None = receipt.teaching
    if teaching is None:
        return []
    problems: list[str] = []
    if lesson_hash(teaching.blocks, teaching.relations) != teaching.lesson_sha256:
        problems.append("The lesson was changed after its review: its hash does not match.")
    for n, review in enumerate(teaching.blocks, start=1):
        problems += _block_problems(receipt, n, review)
    ids = [r.relation.id for r in teaching.relations]
    if len(set(ids)) != len(ids):
        problems.append("Two relations of the lesson share an id.")
    for relation in teaching.relations:
        problems += _relation_problems(receipt, relation)
    decision, _ = lesson_decision(teaching.blocks, teaching.relations)
    if decision != teaching.decision:
        problems.append(
            f"The lesson's recorded decision {teaching.decision} does not follow from its "
            f"review, which gives {decision}."
        )
    if teaching.decision == "PUBLISHED" and receipt.decision not in PUBLISHING:
        problems.append("The lesson is published but the answer it explains is not.")
    problems += illustration_problems(receipt, teaching)
    return problems


# --------------------------------------------------------------------------- pictures

# Each side of a picture, in pixels, that code accepts (`agents/images.py` reads the bytes).
PICTURE_SIDES = (256, 4096)
_SHA256 = re.compile(r"^[0-9a-f]{64}$")


def picture_problems(illustration: Illustration) -> list[str]:
    """Why a lesson's picture may not be shown: its bytes' facts out of bounds, no review,
    or a review that found text, more than the lesson, or anything misleading. A model's
    review is advice that only ever keeps a picture back."""
    problems: list[str] = []
    low, high = PICTURE_SIDES
    if not _SHA256.match(illustration.image_sha256) or illustration.media_type not in (
        "image/png",
        "image/jpeg",
    ):
        problems.append("it has no image of a known kind")
    if not (low <= illustration.width <= high and low <= illustration.height <= high):
        problems.append(f"its sides are not within {low} to {high} pixels")
    review = illustration.review
    if review is None:
        problems.append("it was not reviewed")
    elif review.shows_text or review.misleading or not review.depicts_only_the_lesson:
        problems.append("its review found text, more than the lesson, or something misleading")
    return problems


def illustration_problems(receipt: Receipt, teaching: Teaching) -> list[str]:
    """A lesson receipt's `illustration`, re-checked: a picture is shown only when
    `picture_problems` finds nothing and the lesson itself is published."""
    raw = (receipt.model_extra or {}).get("illustration")
    if raw is None:
        return []
    try:
        illustration = Illustration.model_validate(raw)
    except ValueError:
        return ["The lesson's illustration is not a valid record."]
    if illustration.shown and (picture_problems(illustration) or teaching.decision != "PUBLISHED"):
        return ["The lesson's picture is marked shown, but its checks and review do not allow it."]
    return []
