"""Faithful drafts in natural prose: true answers written the way reporters and models write.

`faithful.py` writes true drafts in the shapes the checks were built around. This family
writes them the way a careful journalist or a language model does, from the same stored
text, and every draft is still true to its source:

* `connective`: two verbatim quotes of one source joined by connectives (`It also said:`,
  `He added:` for the next sentence, `Later in the same address, he said`, `In the same
  message, Roosevelt warned that` when the sentence is a warning);
* `reporting`: one sentence behind a reporting verb in another tense or form, the speaker
  named by full or last name, office (`the President`) or pronoun (`Kennedy argued that`,
  `the President told Congress that`, `According to Lincoln,`, `"...," Obama said.`),
  with a verbatim quote or the sentence's own words;
* `list`: items gathered from consecutive sentences (`The first is ... The second is ...`,
  `First, ... Second, ...`), from an enumeration inside one sentence, or from a list under
  a line ending in a colon (`Roosevelt named four essential human freedoms: ...`);
* `dated`: the source's month and year with a content verb inflected from the passage's own
  (`I am proposing` -> `In January 1963, Kennedy proposed`; `I ask` -> `asks`; `I will
  submit` -> `said he would submit`), or an article's sentence dated by its publication;
* `characterise`: `X is Y` told as `Bush called the state of the Union strong`, `described X
  as Y`;
* `reported_quote`: a passage that quotes someone, reported as such (`Kennedy quoted Thomas
  Jefferson as saying "leaving Fear astern"`), a phrase the source put in quotation marks
  (`Reagan used the phrase "the American Miracle"`), and a quote inside a quote;
* `paraphrase`: light paraphrase that keeps every number, name, negation and modal: an
  intensifier dropped, an opening phrase moved to the end, a plain synonym, the serial comma
  dropped, tense shifted back in reported speech;
* `multi`: two- and three-sentence answers from one source in reading order, with
  pronouns and connectives, and comparisons of two sources (`Kennedy said ... [S1] Reagan,
  for his part, said ... [S2]`).

Nothing here bends a fact: numbers, names, negations, modals, conditions and quantifiers
are carried over unchanged, first-person words are never moved out of a quote into the
writer's mouth, and a verb that characterises (`warned`, `proposed`, `asked`) is used only
when the sentence is a warning, a proposal or a request. `KINDS` is what `hostile.py`
registers under `PROSE`, `PROSE_PER_ARCHIVE` drafts per archive; `generate` makes the same
drafts on its own, seeded the way `hostile.generate` seeds a family.
"""

from __future__ import annotations

import datetime as dt
import random
import re
from collections.abc import Sequence

from evidence_desk.textutil import STOPWORDS

from .cases import (
    CRITICAL,
    NEGATIONS,
    PREPOSITIONS,
    SUBORDINATE,
    Case,
    Kind,
    Pools,
    Producer,
    ends,
    has_negation,
    lower_words,
    meaningful,
    numeric,
    pick,
    qualified,
)
from .corpus import DIGITALGOV, SOTU, DocView, Sentence, usable
from .fam_breaks import MONTHS

PROSE = "faithful_prose"
PROSE_PER_ARCHIVE = {SOTU: 200, DIGITALGOV: 100}
SEED = "evidence-desk-adversarial-1"  # hostile.SEED (not imported: hostile imports this module)

FIRST_PERSON = frozenset(
    "i me my mine myself we us our ours ourselves you your yours i'm i've i'd i'll we're we've "
    "we'll we'd you're you've you'll you'd let's".split()
)
# A speaker's label in a transcript or interview (`Q:`, `A:`, `Sophie:`).
_LABEL = re.compile(r"^\w+(?: \w+)?: ")
# Addresses read to Congress in person; the others were written messages.
WRITTEN = frozenset({"1823-Monroe-1", "1862-Lincoln-1"})
DANGER = frozenset(
    "danger dangers dangerous threat threats threaten threatened threatening peril perils "
    "risk risks attack attacks aggression enemy enemies terror terrorist terrorists war".split()
)


# --------------------------------------------------------------------------- helpers


def _case(kind: str, doc: DocView, answer: str, *others: DocView) -> Case:
    ids = (doc.doc_id, *(o.doc_id for o in others))
    return Case(PROSE, kind, doc.archive, " ".join(answer.split()), ids)


def _first_person(text: str) -> bool:
    return any(w in FIRST_PERSON for w in lower_words(text))


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _authors(doc: DocView) -> list[str]:
    """An article's authors as a reader writes them (`chris-rottler` -> `Chris Rottler`)."""
    out = []
    for slug in doc.doc.meta.get("author", "").split(";"):
        words = [w for w in slug.strip().split("-") if w and w != "dr"]
        if words:
            out.append(" ".join(w.capitalize() for w in words))
    return out


def _name(doc: DocView, rng: random.Random) -> str:
    """The speaker or author by full or last name, or the article as a whole."""
    if doc.speaker is not None:
        assert doc.last_name is not None
        return rng.choice([doc.speaker, doc.last_name, doc.last_name])
    authors = _authors(doc)
    if len(authors) == 1 and rng.random() < 0.4:
        return rng.choice([authors[0], authors[0].split()[-1]])
    return rng.choice(["the article", "the post", "the article"])


def _speaker(doc: DocView, rng: random.Random) -> str:
    """`_name`, or the office for a president (`the President`, AP style `the president`)."""
    if doc.speaker is not None and rng.random() < 0.25:
        return rng.choice(["the President", "the president"])
    return _name(doc, rng)


def _pronoun(doc: DocView) -> str:
    if doc.speaker is not None:
        return "he"
    return "they" if len(_authors(doc)) > 1 else "it"


def _is_article(name: str) -> bool:
    return name.lower() in {"the article", "the post"}


def _past(doc: DocView, name: str) -> bool:
    """Whether a writer tells this source in the past tense (an address is an event)."""
    return doc.speaker is not None or not _is_article(name)


def _to_congress(doc: DocView) -> str:
    return "wrote to Congress" if doc.doc_id in WRITTEN else "told Congress"


def _month_year(doc: DocView) -> tuple[str, str, str]:
    """(`January 1963`, `January 14, 1963`, `1963`) from the source's date."""
    day = dt.date.fromisoformat((doc.doc.date or "1900-01-01")[:10])
    month = MONTHS[day.month - 1]
    return f"{month} {day.year}", f"{month} {day.day}, {day.year}", str(day.year)


def _next(doc: DocView, s: Sentence) -> Sentence | None:
    """The sentence that follows `s` in the document, when nothing but space lies between."""
    for t in doc.sentences:
        if t.start >= s.end:
            gap = doc.doc.text[s.end : t.start]
            return t if gap.strip() == "" else None
    return None


def _lc(doc: DocView, text: str) -> str:
    """`text` with its first letter lowered, as a writer runs it into a sentence, unless the
    first word is `I`, an acronym or a name (the document never has it in lower case)."""
    words = text.split()
    bare = words[0].strip(",;:.!?")
    if bare == "I" or (bare.isupper() and len(bare) > 1) or not bare[:1].isupper():
        return text
    common = re.search(rf"(?<![\w]){re.escape(bare.lower())}(?![\w])", doc.doc.text)
    mid = re.search(rf"[a-z,] {re.escape(bare)}\b", doc.doc.text)  # a name mid-sentence
    then_name = len(words) > 1 and words[1][:1].isupper()
    if common or not (mid or then_name):
        return text[0].lower() + text[1:]
    return text


def _unquotable(text: str) -> bool:
    """A sentence a writer can put in their own words only with its person changed, or a
    question (told as a statement it would say what the source only asked)."""
    return _first_person(text) or text.rstrip().endswith("?") or bool(_LABEL.match(text))


def _drop_lead(text: str) -> str:
    """A sentence without a leading `And`, `So` or `But,` (writers drop them when quoting)."""
    m = re.match(r"(?:And|So|Now|But|Well|Yes),? (?=[A-Za-z])", text)
    if m is None:
        return text
    rest = text[m.end() :]
    return _cap(rest) if rest.split()[0].lower() in {"the", "a", "an", "this"} else rest


def _quote(text: str) -> str:
    """`"text"` with a closing period inside the mark when the sentence ends without one."""
    return f'"{text}"' if text[-1] in ".!?" else f'"{text}."'


def _verb_for(text: str, past: bool) -> str:
    """A reporting verb the sentence earns: `warned` only for a warning, `argued` for a
    sentence that argues (must, should, need, because), else a neutral one."""
    words = set(lower_words(text))
    choices = ["said", "stated", "noted", "declared", "observed"]
    if words & DANGER:
        choices += ["warned", "warned"]
    if words & {"must", "should", "ought", "need", "because", "therefore"}:
        choices += ["argued", "argued", "insisted"]
    verb = random.Random(text).choice(choices)
    if past:
        return verb
    return {"said": "says", "stated": "states", "noted": "notes", "declared": "declares"}.get(
        verb, verb.removesuffix("ed") + "es" if verb.endswith("ed") else verb
    )


def _present(verb: str) -> str:
    table = {
        "said": "says",
        "stated": "states",
        "noted": "notes",
        "declared": "declares",
        "observed": "observes",
        "warned": "warns",
        "argued": "argues",
        "insisted": "insists",
        "explained": "explains",
        "reported": "reports",
    }
    return table.get(verb, verb)


# --------------------------------------------------------------------------- connective


def connective(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    """Two verbatim sentences of one source, the second led in by a connective."""
    clean = list(doc.clean)
    if len(clean) < 2:
        return None
    first = rng.choice(clean[:-1])
    style = rng.choice(["also", "added", "later", "same"])
    if style == "added":
        second = _next(doc, first)
        if second is None or not usable(second.text):
            return None
    elif style == "later":
        later = [s for s in clean if s.passage > first.passage]
        if not later:
            return None
        second = rng.choice(later)
    else:
        second = rng.choice([s for s in clean if s.start > first.start])
    year = doc.year
    name = _speaker(doc, rng)
    article = doc.speaker is None
    if article:
        lead = rng.choice(
            [f"In {year} the article said:", "The article says:", f"{_cap(name)} notes:"]
        )
    else:
        lead = rng.choice(
            [
                f"In {year} the address said:",
                f"In his {year} message, {doc.speaker} said:",
                f"{_cap(name)} said:",
                f"In {year}, {name} {_to_congress(doc)}:",
            ]
        )
    # The pronoun that picks the lead's subject up: the address or article is `it`.
    pron = "it" if lead.startswith(f"In {year} the") else _pronoun(doc)
    if article and not lead.startswith(("In", "The")):
        pron = name.split()[-1]  # an author by name: no pronoun we could be sure of
    q1, q2 = _quote(first.text), _quote(second.text)
    if style == "also":
        link = rng.choice(
            [f"{_cap(pron)} also said:", f"{_cap(pron)} also noted:"]
            if not article
            else ["It also says:", "It also notes:", "The article also says:"]
        )
        if article and pron not in {"it", "they"}:
            link = f"{pron} also writes:"
    elif style == "added":
        link = rng.choice([f"{_cap(pron)} added:", f"{_cap(pron)} went on:"])
        if article:
            link = rng.choice(["It adds:", "The article adds:", "It goes on:"])
            if pron not in {"it", "they"}:
                link = f"{pron} adds:"
    elif style == "later":
        noun = "article" if article else rng.choice(["address", "message", "speech"])
        if pron == "it" and not article:
            pron = doc.last_name or pron
        link = rng.choice(
            [
                f"Later in the same {noun}, {pron} said:",
                f"Later in the {noun}, {pron} said",
                f"Later, {pron} said:",
            ]
        )
    else:
        noun = "article" if article else rng.choice(["address", "message"])
        who = "the article" if article else (doc.last_name or pron)
        verb = _verb_for(second.text, not article)
        if article:
            verb = _present(verb)
            noun, who = "article", "it"
        if not usable(second.text):
            return None
        link = f"In the same {noun}, {who} {verb} that"
        q2 = _quote(_lc(doc, _drop_lead(second.text)))
    return _case(f"connective {style}", doc, f"{lead} {q1} [S1] {link} {q2} [S1]")


# --------------------------------------------------------------------------- reporting verbs


def reporting(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    """One sentence behind a reporting verb: quoted verbatim, or in its own words when the
    sentence says nothing in the first person."""
    s = pick(rng, doc)
    if s is None:
        return None
    text = _drop_lead(s.text)
    name = _speaker(doc, rng)
    past = _past(doc, name)
    verb = _verb_for(text, past)
    tense = rng.choice(["past", "past", "past", "present"]) if past else "present"
    if tense == "present":
        verb = _present(verb)
    elif tense == "perfect":
        verb = f"has {verb}" if verb != "said" else "has said"
    unquoted_ok = not _unquotable(text)
    if _LABEL.match(s.text):
        return None
    style = rng.choice(["that", "colon", "according", "inverted", "congress", "pronoun"])
    if style == "congress" and doc.speaker is None:
        style = "that"
    if style == "pronoun" and doc.speaker is None:
        style = "according"
    body = ends(text)
    if style == "that":
        content = _lc(doc, body) if unquoted_ok and rng.random() < 0.6 else _quote(_lc(doc, text))
        answer = f"{_cap(name)} {verb} that {content} [S1]"
        answer += "" if content[0] == '"' else "."
        kind = "that" if content[0] != '"' else "that_quote"
    elif style == "colon":
        answer = f"{_cap(name)} {verb}: {_quote(s.text)} [S1]"
        kind = "colon"
    elif style == "according":
        if unquoted_ok and rng.random() < 0.6:
            answer = f"According to {name}, {_lc(doc, body)} [S1]."
            kind = "according"
        else:
            answer = f"According to {name}, {_quote(_lc(doc, text))} [S1]"
            kind = "according_quote"
    elif style == "inverted":
        tail = body if body[-1:].isalnum() else body.rstrip(",;: ")
        plain_verb = verb.split()[-1] if tense != "perfect" else verb
        answer = f'"{tail}," {name} {plain_verb} [S1].'
        if rng.random() < 0.3 and doc.speaker is not None:
            answer = f'"{tail}," said {name} [S1].'
        kind = "inverted"
    elif style == "congress":
        told = _to_congress(doc)
        content = _lc(doc, body) if unquoted_ok and rng.random() < 0.5 else _quote(_lc(doc, text))
        when = rng.choice(["", f" in {doc.year}", ""])
        answer = f"{_cap(name)} {told}{when} that {content} [S1]"
        answer += "" if content[0] == '"' else "."
        kind = "congress"
    else:
        # A pronoun speaker needs its antecedent: a sentence before it names him.
        prev = [t for t in doc.clean if t.end <= s.start]
        if not prev:
            return None
        first = rng.choice(prev)
        intro = f"{doc.speaker} {_to_congress(doc)} in {doc.year}: {_quote(first.text)} [S1]"
        content = _lc(doc, body) if unquoted_ok else _quote(_lc(doc, text))
        answer = f"{intro} He {'also ' if rng.random() < 0.5 else ''}{verb} that {content} [S1]"
        answer += "" if content[0] == '"' else "."
        kind = "pronoun"
    return _case(f"reporting {kind} {verb}", doc, answer)


# --------------------------------------------------------------------------- lists

_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth")
_ORD_ADV = {"second": "secondly", "third": "thirdly"}
_COUNT = ("two", "three", "four", "five", "six")
_ORDINAL_LEAD = re.compile(
    r"^(?:And )?(?:The (?P<o1>" + "|".join(_ORDINALS) + r") is (?P<item>.+)"
    r"|(?P<o2>" + "|".join(o.capitalize() for o in _ORDINALS) + r"|Finally), (?P<clause>.+))$"
)


def _ordinal_runs(doc: DocView) -> list[tuple[Sentence | None, list[tuple[str, Sentence]]]]:
    """Runs of sentences led by `The first is` / `First,` ... in order, each with the
    sentence before the run (which may announce the count) and (item text, sentence)."""
    runs = []
    sents = list(doc.sentences)
    for i, s in enumerate(sents):
        m = _ORDINAL_LEAD.match(s.text.strip())
        if m is None or (m["o1"] or m["o2"] or "").lower() != "first":
            continue
        items: list[tuple[str, Sentence]] = []
        want = 0
        for t in sents[i : i + 14]:
            mt = _ORDINAL_LEAD.match(t.text.strip())
            if mt is None:
                continue
            ordinal = (mt["o1"] or mt["o2"] or "").lower()
            if (want < len(_ORDINALS) and ordinal == _ORDINALS[want]) or ordinal == "finally":
                items.append((mt["item"] or mt["clause"], t))
                want += 1
                if ordinal == "finally":
                    break
        if len(items) >= 2 and (m["o1"] is None) == all(
            _ORDINAL_LEAD.match(t.text.strip())["o1"] is None  # type: ignore[index]
            for _, t in items
        ):
            runs.append((sents[i - 1] if i > 0 else None, items))
    return runs


def _count_phrase(sentence: str, n: int) -> str | None:
    """`four essential human freedoms` from the sentence announcing `n` items."""
    if not 2 <= n <= 6:
        return None
    words = sentence.rstrip(".:").split()
    for i, w in enumerate(words):
        if w.lower() == _COUNT[n - 2]:
            phrase = [w]
            for x in words[i + 1 : i + 5]:
                bare = x.strip(",.;:")
                phrase.append(bare)
                if bare.endswith("s"):  # the plural noun the count counts
                    return " ".join(phrase)
    return None


def _item_head(item: str) -> str:
    """An item up to its first dash or comma (`freedom from want—which, ...` -> `freedom
    from want`)."""
    return re.split(r"\s*(?:—|--|–|,|;)\s*", ends(item), maxsplit=1)[0]


def _join(items: Sequence[str], conj: str = "and") -> str:
    if len(items) == 2:
        return f"{items[0]} {conj} {items[1]}"
    return ", ".join(items[:-1]) + f" {conj} {items[-1]}"


def _colon_lists(doc: DocView) -> list[tuple[str, list[str]]]:
    """A line ending in a colon and the short lines right under it (markdown lists)."""
    out = []
    lines = doc.doc.text.split("\n")
    for i, line in enumerate(lines):
        if not line.rstrip().endswith(":"):
            continue
        items: list[str] = []
        for nxt in lines[i + 1 : i + 14]:
            if not nxt.strip():
                if items:
                    break
                continue
            if nxt.rstrip().endswith(":"):
                break
            items.append(nxt.strip())
        intro = re.split(r"(?<=[.!?])\s+", line.strip())[-1].rstrip(":").strip()
        if 2 <= len(items) <= 6 and all(len(x.split()) <= 16 for x in items):
            out.append((intro, items))
    return out


def _list_item(text: str) -> str | None:
    """A list line as part of a sentence: no end mark, first letter lowered unless it
    starts a name or an acronym; None for what cannot be joined (first person, quotes)."""
    text = ends(text)
    if _first_person(text) or any(ch in text for ch in '"“”‘’:') or not text:
        return None
    first = text.split()[0]
    if first.isupper() or (len(first) > 1 and first[1:].lower() != first[1:]):
        return text
    return text[0].lower() + text[1:]


_SERIAL = re.compile(r"\b(?P<a>[\w-]+), (?P<b>(?:[\w-]+ ){0,2}[\w-]+), and (?P<c>[\w-]+)")


def _serial(text: str) -> re.Match[str] | None:
    """A list of three or more with a serial comma (`speech, worship, and want`): none of
    its items a function word (`they, too, and each` is no list)."""
    m = _SERIAL.search(text)
    if m is None:
        return None
    heads = [m["a"], m["b"].split()[0], m["b"].split()[-1], m["c"]]
    return None if any(w.lower() in STOPWORDS | SUBORDINATE for w in heads) else m


def lists(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    """A list gathered the way writers gather one."""
    options: list[str] = []
    runs = _ordinal_runs(doc)
    colon = _colon_lists(doc)
    inline = [s for s in doc.sentences if re.search(r"\bfirst\b.*\bsecond(?:ly)?\b", s.text)]
    serial = [s for s in doc.clean if _serial(s.text) and not _unquotable(s.text)]
    if runs:
        options += ["ordinal", "ordinal"]
    if colon:
        options += ["colon", "colon"]
    if inline:
        options.append("inline")
    if serial:
        options.append("serial")
    if not options:
        return None
    style = rng.choice(options)
    name = _speaker(doc, rng)
    past = _past(doc, name)
    if style == "ordinal":
        before, items = rng.choice(runs)
        heads = [_item_head(x) for x, _ in items]
        n = len(items)
        phrase = _count_phrase(before.text, n) if before is not None else None
        if items[0][0] is not None and _ORDINAL_LEAD.match(items[0][1].text.strip())["o1"]:  # type: ignore[index]
            # `The first is freedom of speech ...`: noun phrases.
            if any(_first_person(h) for h in heads):
                return None
            what = phrase or f"{_COUNT[n - 2]} things"
            verb = rng.choice(["named", "listed", "set out"] if past else ["names", "lists"])
            answer = f"{_cap(name)} {verb} {what}: {_join(heads)} [S1]."
            if rng.random() < 0.4:
                answer = f"In {doc.year}, {name} {verb} {what}: {_join(heads)} [S1]."
            return _case(f"list ordinal_nouns {n}", doc, answer)
        # `First, we will ...`: clauses, quoted (they speak in the first person).
        clauses = [ends(_drop_lead(x)) for x, _ in items]
        if any(len(c.split()) > 28 for c in clauses):
            return None
        what = phrase or f"{_COUNT[n - 2]} points"
        parts = [
            f'{_ORDINALS[i] if i < n - 1 or x[1].text[:7] != "Finally" else "finally"}, "{c}"'
            for i, (c, x) in enumerate(zip(clauses, items, strict=True))
        ]
        verb = rng.choice(["made", "set out", "laid out"] if past else ["makes", "sets out"])
        answer = (
            f"{_cap(name)} {verb} {what}: " + "; ".join(parts[:-1]) + f"; and {parts[-1]} [S1]."
        )
        return _case(f"list ordinal_clauses {n}", doc, answer)
    if style == "colon":
        intro, raw = rng.choice(colon)
        items_or_none = [_list_item(x) for x in raw]
        if any(x is None for x in items_or_none):
            return None
        items_ = [x for x in items_or_none if x is not None]
        joined = _join(items_)
        low = intro.lower()
        if low in {"we recommend", "i recommend"}:
            who = "the authors" if low.startswith("we") else "the author"
            answer = f"{_cap(rng.choice(['the article', who]))} recommends {joined} [S1]."
            answer = answer.replace("The authors recommends", "The authors recommend")
        elif low == "be sure to":
            answer = f"The article advises readers to {joined} [S1]."
        elif _first_person(intro) or '"' in intro or "“" in intro:
            return None
        else:
            frame = rng.choice(
                ["The article says", "According to the article,", "The article notes that"]
            )
            lead = _lc(doc, intro)
            # `Ideal candidates:` -> `ideal candidates are ...`; `The reasons include:`
            if len(intro.split()) <= 3 or low.endswith(("include", "are", "of", "to", "that")):
                answer = f"{frame} {lead} {joined} [S1]."
            else:
                answer = f"{frame} {lead}: {joined} [S1]."
        return _case(f"list colon {len(items_)}", doc, answer)
    if style == "inline":
        s = rng.choice(inline)
        if len(s.text.split()) > 60:
            return None
        flat = re.sub(
            r",?\s*\b(?:and,? )?(?:first|second(?:ly)?|third(?:ly)?|finally),\s*", " ", s.text
        )
        flat = " ".join(flat.replace(" ;", ";").split())
        if flat == s.text or _first_person(flat) or '"' in flat:
            return None
        parts = [p.strip() for p in ends(flat).split(";")]
        if len(parts) < 2:
            return None
        m = re.match(r"(?P<head>.+?\b(?:are|is|were|was))\s+(?P<first>.+)$", parts[0])
        if m is None:
            return None
        inline_items: list[str] = [m["first"], *parts[1:]]
        said = "said that" if past else "says that"
        answer = f"{_cap(name)} {said} {_lc(doc, m['head'])} {_join(inline_items)} [S1]."
        return _case("list inline", doc, answer)
    s = rng.choice(serial)
    m = _serial(s.text)
    assert m is not None
    text = ends(_drop_lead(s.text[: m.start("c") - 6] + " and " + s.text[m.start("c") :]))
    frame = rng.choice(["", f"{_cap(name)} {'said' if past else 'says'} that "])
    answer = f"{frame}{_lc(doc, text) if frame else _cap(text)} [S1]."
    return _case("list serial_comma", doc, _cap(answer))


# --------------------------------------------------------------------------- dated

_REQUEST = re.compile(
    r"^(?P<lead>(?:And |So |Tonight |So tonight |This year |Today )?)I (?P<verb>am proposing|"
    r"propose|have proposed|recommend|am recommending|have recommended|urge|ask|am asking|"
    r"call on|call upon|am sending|have sent|request|have directed|have signed|will submit|"
    r"will send|shall submit|will propose|will ask)\b (?P<rest>.+)$"
)
_PAST_FORMS = {
    "am proposing": "proposed",
    "propose": "proposed",
    "have proposed": "proposed",
    "recommend": "recommended",
    "am recommending": "recommended",
    "have recommended": "recommended",
    "urge": "urged",
    "ask": "asked",
    "am asking": "asked",
    "call on": "called on",
    "call upon": "called upon",
    "am sending": "sent",
    "have sent": "sent",
    "request": "requested",
    "have directed": "directed",
    "have signed": "signed",
    "will submit": "said he would submit",
    "shall submit": "said he would submit",
    "will send": "said he would send",
    "will propose": "said he would propose",
    "will ask": "said he would ask",
}
_PRESENT_FORMS = {
    "am proposing": "proposes",
    "propose": "proposes",
    "recommend": "recommends",
    "am recommending": "recommends",
    "urge": "urges",
    "ask": "asks",
    "am asking": "asks",
    "call on": "calls on",
    "call upon": "calls upon",
    "request": "requests",
}
_BACKSHIFT = {
    "is": "was",
    "are": "were",
    "has": "had",
    "have": "had",
    "will": "would",
    "can": "could",
    "shall": "should",
}


def _third_person(rest: str) -> str | None:
    """The rest of `I ask you to ...` told about the speaker: `you` (Congress) and `my`,
    `me` changed; None when other first-person words remain."""
    rest = re.sub(r"^(?:you in the Congress|the Congress|you) ", "Congress ", rest)
    rest = re.sub(r"\bmy\b", "his", rest)
    rest = re.sub(r"\bjoin me\b", "join him", rest)
    return None if _first_person(rest) else rest


def dated(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    """The source's month and year framing a content verb inflected from its own words."""
    month_year, full, year = _month_year(doc)
    if doc.speaker is None:
        s = pick(rng, doc, lambda t: not _unquotable(t) and ":" not in t and t[-1] == ".")
        if s is None:
            return None
        body = _lc(doc, ends(_drop_lead(s.text)))
        a = "an" if month_year[0] in "AEIOU" else "a"
        lead = rng.choice([f"In {month_year},", f"On {full},", f"In {a} {month_year} post,"])
        if rng.random() < 0.4:
            words = body.split()
            shifted = [_BACKSHIFT.get(w, w) for w in words]
            if shifted == words:
                return None
            return _case(
                "dated article_backshift",
                doc,
                f"{lead} the article reported that {' '.join(shifted)} [S1].",
            )
        who = rng.choice(
            ["the article noted that", "the article said", "Digital.gov reported that"]
        )
        return _case("dated article", doc, f"{lead} {who} {body} [S1].")
    found = []
    for s in doc.sentences:
        m = _REQUEST.match(s.text.strip())
        if m is not None and s.text[-1] in ".!" and "\n" not in s.text and '"' not in s.text:
            rest = _third_person(ends(m["rest"]))
            if rest is not None and len(rest.split()) >= 3:
                found.append((m["verb"], rest))
    if not found:
        return None
    verb, rest = rng.choice(found)
    name = _speaker(doc, rng)
    tense = "present" if verb in _PRESENT_FORMS and rng.random() < 0.3 else "past"
    form = _PRESENT_FORMS[verb] if tense == "present" else _PAST_FORMS[verb]
    if tense == "present":
        lead = rng.choice([f"In his {month_year} message, {name}", f"In {year}, {name}"])
    else:
        lead = rng.choice(
            [
                f"In {month_year}, {name}",
                f"On {full}, {name}",
                f"In his {month_year} address, {name}",
                f"In {year} {name}",
            ]
        )
    return _case(
        f"dated {verb.split()[-1]}->{form.split()[-1]}", doc, f"{_cap(lead)} {form} {rest} [S1]."
    )


# --------------------------------------------------------------------------- characterise

_IS = re.compile(
    r"^(?:(?:But|And|So|Today|Now|Tonight),? )?(?P<subj>[A-Z][^,;:()]{3,60}?) "
    r"(?P<verb>is|are|was|were|remains|remain) (?P<pred>(?:a|an|the|one of the|strong|clear|"
    r"essential|necessary|vital|urgent|plain|simple|great|right) [^,;:()]{2,80})\.$"
)
_PRONOUN_SUBJECTS = frozenset(
    "it this that these those there here what which such they he she other one another each "
    "both".split()
)


def characterise(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    """`X is Y` told as `Name called X Y` or `described X as Y`."""
    found = []
    for s in doc.clean:
        m = _IS.match(s.text)
        if m is None:
            continue
        subj = re.sub(r"\b[Oo]ur (?=[A-Z])", "the ", m["subj"])
        subj = subj[0].lower() + subj[1:] if subj.split()[0].lower() in {"the", "a", "an"} else subj
        words = lower_words(subj)
        if not words or words[0] in _PRONOUN_SUBJECTS | SUBORDINATE or len(words) < 2:
            continue
        if any(w in CRITICAL for w in words) or "-" in subj or "—" in subj:
            continue
        subj = _lc(doc, subj)
        if _first_person(subj) or _first_person(m["pred"]) or has_negation(m["pred"]):
            continue
        if any(w in CRITICAL for w in lower_words(m["pred"])[:1]) or m["pred"].split()[1:2] == [
            "not"
        ]:
            continue
        found.append((subj, m["verb"], m["pred"]))
    if not found:
        return None
    subj, verb, pred = rng.choice(found)
    name = _speaker(doc, rng)
    past = _past(doc, name)
    style = rng.choice(["called", "described", "according"])
    if style == "called":
        v = "called" if past else "calls"
        answer = f"{_cap(name)} {v} {subj} {pred} [S1]."
    elif style == "described":
        v = "described" if past else "describes"
        answer = f"{_cap(name)} {v} {subj} as {pred} [S1]."
    else:
        answer = f"According to {name}, {subj} {verb} {pred} [S1]."
    return _case(f"characterise {style}", doc, answer)


# --------------------------------------------------------------------------- reported quotes

_INNER = re.compile(r"[\"“](?P<q>[^\"“”\n]{6,200}?)[,.]?[\"”]")
_QUOTER = re.compile(
    r"(?P<who>(?:[A-Z][\w.]*\.? ){0,2}[A-Z][\w.]+),? (?:who )?(?P<v>said|says|wrote|declared|"
    r"asked|put it)[,:]?\s*$"
)


def reported_quote(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    """A passage that quotes someone, or puts words in quotation marks, reported as such."""
    text = doc.doc.text
    found = []
    for m in _INNER.finditer(text):
        q = m["q"].strip()
        if not meaningful(q) or _INNER.search(q):
            continue
        para_start = max(text.rfind("\n", 0, m.start()), 0)
        before = text[para_start : m.start()]
        quoter = _QUOTER.search(before)
        found.append((q, quoter["who"] if quoter else None, quoter["v"] if quoter else None, m))
    if not found:
        return None
    q, who, v, m = rng.choice(found)
    name = _speaker(doc, rng)
    past = _past(doc, name)
    style = rng.choice(["quoted", "phrase", "nested"])
    if style == "quoted" and who is not None and who.split()[0] not in {"The", "A", "As", "And"}:
        as_ = {
            "said": "saying",
            "says": "saying",
            "wrote": "writing",
            "declared": "declaring",
            "asked": "asking",
            "put it": "saying",
        }[v or "said"]
        verb = "quoted" if past else "quotes"
        answer = f'{_cap(name)} {verb} {who} as {as_} "{q}" [S1].'
        return _case("reported_quote quoted", doc, answer)
    if style == "nested":
        for s in doc.sentences:
            if s.start <= m.start() and m.end() <= s.end and "\n" not in s.text:
                inner = s.text.replace("“", '"').replace("”", '"')
                if inner != s.text and s.text.count("“") != 1:
                    return None
                if s.text.count('"') not in (0, 2) or len(s.text.split()) > 45:
                    return None
                nested = s.text.replace("“", "‘").replace("”", "’").replace('"', "'")
                verb = "said" if past else "says"
                return _case("reported_quote nested", doc, f'{_cap(name)} {verb}: "{nested}" [S1]')
        return None
    if q[0].isupper() and (len(q.split()) > 6 or q[-1] in "?!."):
        verb = "used the words" if past else "uses the words"
        return _case("reported_quote words", doc, f'{_cap(name)} {verb} "{q}" [S1].')
    verb = rng.choice(["used the phrase", "spoke of"] if past else ["uses the phrase", "speaks of"])
    return _case("reported_quote phrase", doc, f'{_cap(name)} {verb} "{q}" [S1].')


# --------------------------------------------------------------------------- paraphrase

_INTENSIFIERS = frozenset(
    "great vast grave tremendous enormous genuine truly really deeply indeed especially "
    "particularly extremely earnest sincere profound".split()
)
_IDIOMS = frozenset("deal many britain lakes lengths war depression".split())
_SYNONYMS = {
    "nation": "country",
    "commence": "begin",
    "commenced": "began",
    "purchase": "buy",
    "sufficient": "enough",
    "obtain": "get",
    "utilize": "use",
    "demonstrate": "show",
    "demonstrated": "showed",
    "approximately": "about",
    "construct": "build",
    "constructed": "built",
    "attempt": "try",
    "objective": "goal",
    "objectives": "goals",
    "rapidly": "quickly",
    "assist": "help",
    "individuals": "people",
    "previously": "earlier",
    "currently": "now",
    "begin": "start",
    "began": "started",
}
_OPENING = re.compile(
    r"^(?P<open>(?:In|During|Over|After|Before|Throughout|Within|At|On|Last|This|Today|Tonight|"
    r"Since then)\b[^,;:]{0,60}), (?P<main>[A-Za-z][^;:]+)$"
)


_TIMELY = frozenset(
    "year years month months week weeks decade decades century today tonight past last "
    "recent since ago session".split()
)


def paraphrase(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    """Light paraphrase: every number, name, negation and modal kept."""
    style = rng.choice(["intensifier", "reorder", "synonym", "backshift"])
    candidates = [s for s in doc.clean if not _unquotable(s.text)]
    rng.shuffle(candidates)
    for s in candidates[:40]:
        case = _paraphrase(rng, doc, s, style)
        if case is not None:
            return case
    return None


def _paraphrase(rng: random.Random, doc: DocView, s: Sentence, style: str) -> Case | None:
    text = ends(_drop_lead(s.text))
    words = text.split()
    out: str | None = None
    if style == "intensifier":
        spots = [
            i
            for i, w in enumerate(words[:-1])
            if w.lower() in _INTENSIFIERS
            and w.islower()
            and words[i + 1].isalpha()
            and words[i + 1].lower() not in _IDIOMS | STOPWORDS | SUBORDINATE | PREPOSITIONS
            and not words[i + 1][0].isupper()
        ]
        if spots:
            i = rng.choice(spots)
            out = " ".join(words[:i] + words[i + 1 :])
    elif style == "reorder":
        m = _OPENING.match(text)
        timely = _TIMELY & set(lower_words(m["open"])) if m is not None else set()
        named = m is not None and any(w[:1].isupper() or numeric(w) for w in m["open"].split()[1:])
        if (
            m is not None
            and (timely or named)
            and not any(w in CRITICAL for w in lower_words(m["open"]))
        ):
            main = m["main"]
            first = main.split()[0]
            if first.lower() not in SUBORDINATE and first.lower() not in NEGATIONS:
                opening = m["open"]
                opening = (
                    opening
                    if opening.split()[0] in {"In", "On", "At"}
                    and any(numeric(w) or w[:1].isupper() for w in opening.split()[1:])
                    else opening[0].lower() + opening[1:]
                )
                out = f"{_lc(doc, main)} {opening}"
                out = _cap(out)
    elif style == "synonym":
        spots = [i for i, w in enumerate(words) if w.lower().strip(",") in _SYNONYMS]
        if spots:
            i = rng.choice(spots)
            w = words[i]
            bare = w.strip(",")
            new = _SYNONYMS[bare.lower()]
            new = _cap(new) if bare[0].isupper() and i == 0 else new
            out = " ".join([*words[:i], w.replace(bare, new), *words[i + 1 :]])
    else:
        shifted = [_BACKSHIFT.get(w, w) for w in words]
        if shifted != words and not qualified(text):
            name = _speaker(doc, rng)
            verb = "said" if doc.speaker is not None else rng.choice(["said", "reported"])
            out = f"{_cap(name)} {verb} that {_lc(doc, ' '.join(shifted))}"
    if out is None or out == text:
        return None
    if style != "backshift" and rng.random() < 0.5:
        name = _speaker(doc, rng)
        verb = "said" if _past(doc, name) else "says"
        out = f"{_cap(name)} {verb} {_lc(doc, out)}"
    return _case(f"paraphrase {style}", doc, f"{_cap(out)} [S1].")


# --------------------------------------------------------------------------- multi

# Words that name what a sentence is about wherever they stand in lower case (`Peace
# Corps` and `the energy of its character` are not about peace or energy).
_TOPICS = "taxes budget war peace jobs education trade farmers schools tariff".split()


def _one(rng: random.Random, doc: DocView, name: str, marker: str, quote_only: bool) -> str | None:
    s = pick(rng, doc)
    if s is None:
        return None
    text = _drop_lead(s.text)
    past = _past(doc, name)
    verb = "said" if past else "says"
    if not quote_only and not _unquotable(text) and rng.random() < 0.5:
        return f"{_cap(name)} {verb} that {_lc(doc, ends(text))} [{marker}]."
    return f"{_cap(name)} {verb}: {_quote(text)} [{marker}]"


def multi(rng: random.Random, doc: DocView, pools: Pools) -> Case | None:
    """Two or three sentences citing S1 in reading order, or two sources compared."""
    style = rng.choice(["two", "three", "compare", "compare"])
    clean = list(doc.clean)
    if style in {"two", "three"}:
        k = 2 if style == "two" else 3
        if len(clean) < k:
            return None
        chosen = sorted(rng.sample(clean, k), key=lambda s: s.start)
        name = _speaker(doc, rng)
        pron = _pronoun(doc) if doc.speaker or _is_article(name) else name.split()[-1]
        past = _past(doc, name)
        out = []
        for i, s in enumerate(chosen):
            text = _drop_lead(s.text)
            unq = not _unquotable(text) and rng.random() < 0.5
            if i == 0:
                who, verb = _cap(name), "said" if past else "says"
                when = f"In {doc.year}, " if doc.speaker is not None and rng.random() < 0.5 else ""
                who = f"{when}{name}" if when else who
            else:
                who = _cap(pron)
                options = (
                    ["also said", "added", "went on to say"] if past else ["also says", "adds"]
                )
                if i == 2:
                    options = ["later said"] if past else ["later says"]
                verb = rng.choice(options)
            out.append(
                f"{who} {verb} that {_lc(doc, ends(text))} [S1]."
                if unq
                else f"{who} {verb}: {_quote(s.text)} [S1]"
            )
        return _case(f"multi {style}", doc, " ".join(out))
    others = [d for d in pools.get(doc.archive, ()) if d is not doc]
    if not others:
        return None
    other = rng.choice(others)
    if doc.speaker is not None and other.year < doc.year:
        doc, other = other, doc
    if doc.speaker is not None and other.speaker == doc.speaker:
        return None
    for topic in rng.sample(_TOPICS, len(_TOPICS)):
        a = [s for s in doc.clean if re.search(rf"\b{topic}\b", s.text)]
        b = [s for s in other.clean if re.search(rf"\b{topic}\b", s.text)]
        if a and b:
            break
    else:
        return None
    sa, sb = rng.choice(a), rng.choice(b)
    qa, qb = _quote(sa.text), _quote(sb.text)
    if doc.speaker is None:
        first = f"On {topic}, one article says: {qa} [S1]"
        second = f"Another, from {_month_year(other)[0]}, says: {qb} [S2]"
        return _case("multi compare_articles", doc, f"{first} {second}", other)
    assert doc.last_name is not None and other.last_name is not None
    gap = int(other.year) - int(doc.year)
    link = rng.choice(
        [
            f"{other.last_name}, for his part, said:",
            f"In his own message, {other.last_name} said:",
            f"{'Decades' if gap >= 20 else 'Years'} later, {other.last_name} said:",
            f"{gap} years later, {other.last_name} said:",
        ]
    )
    first = f"On {topic}, {doc.last_name} said in {doc.year}: {qa} [S1]"
    kind = "multi compare_years" if link[0].isdigit() else "multi compare"
    return _case(kind, doc, f"{first} {link} {qb} [S2]", other)


KINDS: tuple[Kind, ...] = (
    connective,
    reporting,
    lists,
    dated,
    characterise,
    reported_quote,
    paraphrase,
    multi,
)


def generate(pools: Pools, seed: str = SEED, scale: float = 1.0) -> list[Case]:
    """The family's drafts for every archive in `pools`, as `hostile.generate` would make
    them once it registers `PROSE` (one `random.Random` per archive and family)."""
    out: list[Case] = []
    for archive, docs in pools.items():
        if not docs:
            continue
        rng = random.Random(f"{seed}:{archive}:{PROSE}")
        n = max(1, round(PROSE_PER_ARCHIVE[archive] * scale))
        out += Producer(PROSE, KINDS).produce(rng, docs, pools, n)
    return out
