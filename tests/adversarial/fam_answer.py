"""Family `answer_level`: drafts whose every sentence the contract carries, false as an answer.

The falsehood is in how the sentences are put together, or in what they are said to answer,
not in any one sentence's words against its passage. Kinds (`[roles]` marks those whose
falsehood lies PURELY IN WORD ROLES: every word is the passage's, in its order, and only
who-does-what or what-a-word-refers-to changed; they are the only ones an always-"supported"
auditor may let through once the contract reads assertion in context):

* `relative_actor` [roles]: the actor swapped by skipping a relative clause's head inside
  the 3-word gap: `We honor those who fought` -> `We fought`;
* `pronoun_rebind` [roles]: a source sentence led by `This`, `It`, `They`, `These`, `Such`
  put right after an unrelated sentence of the same source, so its subject now names that;
* `merged_sources`: `They said: "..." [S1][S2]` after one quote of each: both speakers are
  said to have said what only the first did;
* `next_condition`: a sentence whose condition or limit is the NEXT source sentence (`But
  only if ...`, `Not yet.`, `Unless ...`) published without it (context stripped across
  sentences);
* `other_question`: true quotes answering a question they do not answer (`Did Roosevelt
  oppose X?` for a passage where he asks for X), the draft opening with `Yes.`, so it
  confirms the question's false premise;
* `other_subject`: true quotes under their own frame, answering a question about someone
  or something else: another president (`What did Reagan say about taxes?` answered from
  Kennedy), another year of the same speaker, or a name from another article's title that
  this one never uses. Every sentence is carried; only the question shows it false;
* `wrong_years`: `A said "x" [S1]. 150 years later, B said "y" [S2].` where the two
  sources are dated another number of years apart (the count the contract checks).
"""

from __future__ import annotations

import random
import re

from .cases import CRITICAL, Case, Kind, Pools, cite, ends, lower_words, quoted, said_frame
from .corpus import DocView
from .fam_context import _all_docs, _next_text, _sentences, cap, plain_fragment, pool_doc

ANSWER_LEVEL = "answer_level"

_RELATIVE = re.compile(
    r"\b(?P<subj>We|we|I|They|they|You|you|Americans|America|Congress|Government|government)"
    r"(?P<skip>(?: [a-z]+){1,2} (?:who|which))(?P<verb> [a-z]+)\b"
)
_NOT_VERB = frozenset(
    "is are was were have has had will would can could shall should may might must do does "
    "did the a an of to in on for and or but not".split()
)


def relative_actor(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    """[roles] `We honor those who fought` -> `We fought`: the relative clause's verb given
    to the main clause's subject (at most 3 words skipped, none of them critical)."""
    d = pool_doc(rng, doc)
    found = []
    for s in d.clean:
        for m in _RELATIVE.finditer(s.text):
            skipped = lower_words(m["skip"])
            if len(skipped) > 3 or any(w in CRITICAL for w in skipped):
                continue
            if m["verb"].strip() in _NOT_VERB:
                continue
            out = s.text[: m.end("subj")] + s.text[m.end("skip") :]
            if not d.says(ends(out)):
                found.append(cap(out.strip()))
    if not found:
        return None
    answer = cite(rng.choice(found))
    return Case(ANSWER_LEVEL, "relative_actor [roles]", d.archive, answer, (d.doc_id,), (answer,))


_LEAD_PRONOUN = re.compile(r"^(?:This|It|They|These|Such|That|Those) [a-z]+")


def pronoun_rebind(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    """[roles] A sentence led by a pronoun put after a sentence it does not follow."""
    d = pool_doc(rng, doc)
    leads = [s for s in d.clean if _LEAD_PRONOUN.match(s.text) and len(s.text.split()) >= 8]
    if not leads:
        return None
    b = rng.choice(leads)
    far = [
        s
        for s in d.clean
        if abs(s.start - b.start) > 4000 and not _LEAD_PRONOUN.match(s.text) and s.text[-1] == "."
    ]
    if not far:
        return None
    a = rng.choice(far)
    second = cite(b.text)
    answer = f"{cite(a.text)} {second}"
    return Case(ANSWER_LEVEL, "pronoun_rebind [roles]", d.archive, answer, (d.doc_id,), (second,))


def merged_sources(rng: random.Random, doc: DocView, pools: Pools) -> Case | None:
    """`A said "x" [S1]. B said "y" [S2]. They said: "z" [S1][S2].` (z is A's alone)."""
    d = pool_doc(rng, doc)
    others = [o for o in _all_docs(d, pools) if o.doc_id != d.doc_id and o.clean]
    if not others or len(d.clean) < 2:
        return None
    o = rng.choice(others)
    x, z = rng.sample(list(d.clean), 2)
    y = rng.choice(o.clean)
    if o.says(ends(z.text)):
        return None
    last = quoted("They said:", z.text, ("S1", "S2"))
    answer = " ".join(
        [quoted(said_frame(d, rng), x.text), quoted(said_frame(o, rng), y.text, ("S2",)), last]
    )
    return Case(ANSWER_LEVEL, "merged_sources", d.archive, answer, (d.doc_id, o.doc_id), (last,))


_LIMIT_NEXT = re.compile(
    r"^(?:But )?(?:only (?:if|when|after)|not (?:yet|until|unless|if|without)|unless|"
    r"that is, if|at least not|not always|not everywhere|not for long|"
    r"but not|only in|only for|only a few|only some)\b",
    re.I,
)


# A limit is a fragment that leans back (`But only if we act.`, `Not yet.`); a longer sentence
# that opens the same way states something of its own (`Only when people are given a stake
# ... do they create societies that are free.`), and the sentence before it stands alone.
_LIMIT_WORDS = 12


def next_condition(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    """A sentence published without the next source sentence that limits it."""
    d = pool_doc(rng, doc)
    found = []
    for s in _sentences(d):
        nxt = _next_text(d, s)
        if not nxt or len(nxt.split()) > _LIMIT_WORDS:
            continue
        if _LIMIT_NEXT.match(nxt) and plain_fragment(s.text) and not s.text.endswith("?"):
            found.append(s.text)
    if not found:
        return None
    answer = cite(rng.choice(found))
    return Case(ANSWER_LEVEL, "next_condition", d.archive, answer, (d.doc_id,), (answer,))


_ASKS_FOR = re.compile(
    r"\b(?:support|supports|favor|favors|urge|urges|ask|asks|propose|proposes|recommend|"
    r"recommends|need|needs|want|welcome|encourage|endorse|must have|must pass|will pass)"
    r" (?P<np>(?:the|a|an|our|this|these|new|more|tax|stronger|better) [a-z]+(?: [a-z]+){0,2})\b"
)


def other_question(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    """`Did X oppose <what X asks for>?` answered `Yes. X said: "..." [S1]` with true words."""
    d = pool_doc(rng, doc)
    found = []
    for s in d.clean:
        m = _ASKS_FOR.search(s.text)
        if m is None:
            continue
        np = m["np"]
        if any(w in CRITICAL or w in _NOT_VERB - {"the", "a", "an"} for w in lower_words(np)):
            continue
        found.append((s.text, np))
    if not found:
        return None
    text, np = rng.choice(found)
    who = d.last_name or "the article"
    verb = "oppose" if d.speaker else "advise against"
    q = f"Did {who} {verb} {np}?" if d.speaker else f"Does the article {verb} {np}?"
    yes = rng.choice(["Yes.", "Yes, he did." if d.speaker else "Yes, it does.", "Yes:"])
    body = quoted(said_frame(d, rng), text)
    answer = f"{yes} {body}" if not yes.endswith(":") else f"Yes: {body}"
    false = (answer,) if yes.endswith(":") else (yes, body)
    return Case(ANSWER_LEVEL, "other_question", d.archive, answer, (d.doc_id,), false, question=q)


_TITLE_NAME = re.compile(r"\b[A-Z][a-z]{4,}\b")


def _asked_elsewhere(rng: random.Random, d: DocView, pools: Pools) -> str | None:
    """A question that `d` does not answer, about another doc of its archive."""
    others = [o for o in _all_docs(d, pools) if o.doc_id != d.doc_id]
    if d.speaker is not None:
        speakers = [o for o in others if o.last_name and o.last_name != d.last_name]
        if speakers and rng.random() < 0.6:
            o = rng.choice(speakers)
            return f"What did {o.speaker} say about {rng.choice(['this', 'the nation', 'it'])}?"
        years = [
            o.year
            for o in others
            if o.last_name != d.last_name and abs(int(o.year) - int(d.year)) > 8
        ]
        return f"What did {d.last_name} say in {rng.choice(years)}?" if years else None
    names = [
        w
        for o in others
        for w in _TITLE_NAME.findall(o.doc.title)
        if not d.says_as_words(w) and w.lower() not in d.doc.title.lower()
    ]
    return f"What does the article say about {rng.choice(names)}?" if names else None


def other_subject(rng: random.Random, doc: DocView, pools: Pools) -> Case | None:
    """A true quote of `doc` under its own frame, answering a question about another."""
    d = pool_doc(rng, doc)
    q = _asked_elsewhere(rng, d, pools)
    found = [s.text for s in d.clean if 8 <= len(s.text.split()) <= 30]
    if q is None or not found:
        return None
    answer = quoted(said_frame(d, rng), rng.choice(found))
    return Case(
        ANSWER_LEVEL, "other_subject", d.archive, answer, (d.doc_id,), (answer,), question=q
    )


def wrong_years(rng: random.Random, doc: DocView, pools: Pools) -> Case | None:
    """Two true quotes, the second behind `N years later,` for a wrong N."""
    d = pool_doc(rng, doc)
    later = [
        o
        for o in _all_docs(d, pools)
        if o.clean and o.doc.date and d.doc.date and int(o.year) - int(d.year) >= 3
    ]
    if not later or not d.clean:
        return None
    o = rng.choice(later)
    gap = int(o.year) - int(d.year)
    wrong = rng.choice([n for n in (gap - 3, gap - 2, gap + 2, gap + 5, gap + 10) if 0 < n < 1000])
    x, y = rng.choice(d.clean), rng.choice(o.clean)
    second = quoted(f"{wrong} years later, {o.last_name or 'the article'} said:", y.text, ("S2",))
    answer = f"{quoted(said_frame(d, rng), x.text)} {second}"
    return Case(ANSWER_LEVEL, "wrong_years", d.archive, answer, (d.doc_id, o.doc_id), (second,))


KINDS: tuple[Kind, ...] = (
    relative_actor,
    pronoun_rebind,
    merged_sources,
    next_condition,
    other_question,
    other_subject,
    wrong_years,
)
