"""`evidence-desk check` with the writer's own verdicts (docs/grounding.md, "Verdicts from
outside"), through the real command line on the small archive.

A draft's verdicts stand in for the desk's auditor on the sentences they name, and only as
advice: a supported verdict with verbatim spans lets a faithful paraphrase through the
paraphrase tier, but code still checks the spans and every anchor, so a writer who lies
about a dropped negation or a changed number is held; a stricter verdict holds a sentence
the contract carries; and the sentences no verdict names go to the desk's own auditor.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from evidence_desk.cli import main
from evidence_desk.testing.archives import sotu_records

ROOSEVELT = "1941-Roosevelt-1"
SOURCES = [{"id": "S1", "doc_id": ROOSEVELT}]
# Verbatim in the 1941 address.
SPAN = (
    "In like fashion from 1815 to 1914— ninety-nine years— no single war in Europe or in Asia "
    "constituted a real threat against our future or against the future of any other "
    "American nation."
)
# The same in other words, keeping its numbers, names and negation.
PARAPHRASE = "From 1815 to 1914, no single war in Europe or in Asia was a real threat to our future"
FIRST = 'Roosevelt said: "The first is freedom of speech and expression" [S1].'
SECOND = (
    'Roosevelt said: "The second is freedom of every person to worship God in his own way" [S1].'
)
# Carried word for word, without quotes (the contract's `extractive` tier).
EXTRACT = (
    "Except in the Maximilian interlude in Mexico, no foreign power sought to establish itself "
    "in this Hemisphere [S1]."
)


@pytest.fixture(scope="module")
def document() -> str:
    [record] = sotu_records((ROOSEVELT,))
    return record["text"]


def cli(home: Path, cache: Path, *args: str, **env: str) -> Result:
    environment = {"EVIDENCE_DESK_CACHE_DIR": str(cache), "EVIDENCE_DESK_EMBED_WORKERS": "1"}
    environment.update(env)
    return CliRunner().invoke(main, ["--data-dir", str(home), *args], env=environment)


def verdict(
    text: str, name: str = "supported", *spans: str, by: str = "fact-desk"
) -> dict[str, Any]:
    """The writer's verdict on `text`, resting on `spans` of S1."""
    cited = [{"source": "S1", "text": s} for s in spans]
    return {"text": text, "verdict": name, "spans": cited, "by": by}


def draft(answer: str, *verdicts: dict[str, Any]) -> dict[str, Any]:
    question = "What did Roosevelt say?"
    return {"question": question, "answer": answer, "sources": SOURCES, "verdicts": list(verdicts)}


def check(
    home: Path, cache: Path, folder: Path, *drafts: dict[str, Any], **env: str
) -> list[dict[str, Any]]:
    """The drafts through `check --json` as one JSONL file, when every one is valid."""
    path = folder / "drafts.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in drafts), encoding="utf-8")
    res = cli(home, cache, "check", "--json", str(path), **env)
    assert res.exit_code == 0, res.stderr
    return [json.loads(line) for line in res.stdout.splitlines()]


def paraphrased(answer: str) -> dict[str, Any]:
    """`answer`, a one-sentence paraphrase, with a supported verdict naming `SPAN`."""
    return draft(answer, verdict(answer, "supported", SPAN))


# --------------------------------------------------------------------------- paraphrase


def test_a_faithful_paraphrase_with_a_supported_verdict_is_published_as_a_paraphrase(
    home: Path, embedding_cache: Path, tmp_path: Path, document: str
) -> None:
    answer = f"{PARAPHRASE} [S1]."
    [res] = check(home, embedding_cache, tmp_path, paraphrased(answer))
    assert res["decision"] == "AUTO_CLEARED", res["reason"]
    assert res["published_answer"] == answer
    assert res["policy"]["grounding"] == "paraphrase"
    assert res["auditor"] == "offline + the draft's verdicts"
    [claim] = res["claims"]
    assert claim["kept"] and claim["verdict"] == claim["auditor_verdict"] == "supported"
    assert claim["audited_by"] == "fact-desk"
    assert claim["spans"] == [{"source_id": "S1", "text": SPAN}]
    checks = claim["checks"]
    assert checks["tier"] == "paraphrase" and checks["grounding"] == []
    # the contract's own reasons are kept for the record
    assert checks["extractive"] and "same order" in checks["extractive"][0]
    for anchor in ("number: 1815", "number: 1914", "name: europe", "name: asia", "negation: not"):
        assert anchor in checks["anchors"]
    [rests] = checks["rests_on"]
    assert rests["source_id"] == "S1" and rests["verbatim"] is True
    assert document[rests["start"] : rests["end"]] == rests["text"]
    assert rests["text"] in SPAN and "no single war" in rests["text"]


def test_under_a_strict_policy_the_same_paraphrase_is_held(
    home: Path, embedding_cache: Path, tmp_path: Path
) -> None:
    answer = f"{PARAPHRASE} [S1]."
    [res] = check(
        home, embedding_cache, tmp_path, paraphrased(answer), EVIDENCE_DESK_GROUNDING="strict"
    )
    assert res["policy"]["grounding"] == "strict"
    assert res["decision"] == "HELD_FOR_REVIEW" and res["published_answer"] == ""
    [claim] = res["claims"]
    assert not claim["kept"] and claim["auditor_verdict"] == "supported"
    assert claim["verdict"] == "unsupported"
    assert claim["checks"]["tier"] is None and claim["checks"]["rests_on"] == []
    assert claim["checks"]["grounding"]  # the contract's reason, and no paraphrase tried
    assert not any("as a paraphrase" in r for r in claim["checks"]["grounding"])


# --------------------------------------------------------------------------- lying writers


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        (  # the negation dropped: the opposite of what the address says
            "From 1815 to 1914, a single war in Europe or in Asia was a real threat to our "
            "future [S1].",
            "as a paraphrase, its negation words (none) are not those of the words it rests "
            "on in S1 (not)",
        ),
        (
            PARAPHRASE.replace("1914", "1915") + " [S1].",
            "as a paraphrase, its numbers '1915' are not in the spans it rests on",
        ),
        (
            PARAPHRASE.replace("Asia", "Africa") + " [S1].",
            "as a paraphrase, its names 'africa' are not in the spans it rests on",
        ),
    ],
    ids=["negation-dropped", "number-changed", "name-changed"],
)
def test_a_lying_verdict_on_a_changed_anchor_is_held_naming_the_anchor(
    home: Path, embedding_cache: Path, tmp_path: Path, answer: str, reason: str
) -> None:
    [res] = check(home, embedding_cache, tmp_path, paraphrased(answer))
    assert res["decision"] == "HELD_FOR_REVIEW" and res["published_answer"] == ""
    [claim] = res["claims"]
    assert claim["auditor_verdict"] == "supported" and claim["audited_by"] == "fact-desk"
    assert claim["verdict"] == "unsupported" and not claim["kept"]
    assert claim["checks"]["tier"] is None and claim["checks"]["rests_on"] == []
    assert reason in claim["checks"]["grounding"]


def test_a_span_not_word_for_word_in_the_source_is_held(
    home: Path, embedding_cache: Path, tmp_path: Path, document: str
) -> None:
    forged = SPAN.replace("a real threat", "a grave threat")
    assert forged not in document
    answer = f"{PARAPHRASE} [S1]."
    [res] = check(
        home, embedding_cache, tmp_path, draft(answer, verdict(answer, "supported", forged))
    )
    assert res["decision"] == "HELD_FOR_REVIEW" and res["published_answer"] == ""
    [claim] = res["claims"]
    assert not claim["kept"] and claim["checks"]["tier"] is None
    assert any(
        r.startswith("as a paraphrase, the span") and r.endswith("is not word for word in S1")
        for r in claim["checks"]["grounding"]
    ), claim["checks"]["grounding"]


# --------------------------------------------------------------------------- stricter


@pytest.mark.parametrize(
    ("name", "decision"),
    [
        ("partial", "PUBLISHED_AFTER_PRUNING"),
        ("unsupported", "PUBLISHED_AFTER_PRUNING"),
        ("contradicted", "HELD_FOR_REVIEW"),  # a contradiction holds the whole answer
    ],
)
def test_a_stricter_outside_verdict_keeps_a_sentence_the_contract_carries_out(
    home: Path, embedding_cache: Path, tmp_path: Path, name: str, decision: str
) -> None:
    answer = f"{FIRST} {EXTRACT}"
    plain, judged = check(
        home, embedding_cache, tmp_path, draft(answer), draft(answer, verdict(EXTRACT, name))
    )
    assert plain["decision"] == "AUTO_CLEARED", plain["reason"]  # the contract carries both
    assert [c["checks"]["tier"] for c in plain["claims"]] == ["verbatim", "extractive"]
    first, second = judged["claims"]
    assert second["checks"]["tier"] == "extractive" and second["checks"]["grounding"] == []
    assert second["auditor_verdict"] == second["verdict"] == name
    assert second["audited_by"] == "fact-desk" and not second["kept"]
    assert first["audited_by"] == "" and first["verdict"] == "supported"  # the desk's auditor
    assert judged["decision"] == decision, judged["reason"]
    assert EXTRACT not in judged["published_answer"]
    assert judged["published_answer"] == (FIRST if decision == "PUBLISHED_AFTER_PRUNING" else "")


def test_an_unsupported_verdict_on_a_quoted_sentence_holds_the_answer(
    home: Path, embedding_cache: Path, tmp_path: Path
) -> None:
    [res] = check(home, embedding_cache, tmp_path, draft(FIRST, verdict(FIRST, "unsupported")))
    [claim] = res["claims"]
    assert claim["checks"]["tier"] == "verbatim" and claim["checks"]["quotes_verbatim"] is True
    assert claim["verdict"] == "unsupported" and not claim["kept"]
    assert res["decision"] == "HELD_FOR_REVIEW" and res["published_answer"] == ""


# --------------------------------------------------------------------------- invalid


def test_invalid_verdicts_make_their_draft_invalid_and_the_others_are_still_checked(
    home: Path, embedding_cache: Path, tmp_path: Path
) -> None:
    good = paraphrased(f"{PARAPHRASE} [S1].")
    not_a_sentence = draft(FIRST, verdict("Roosevelt spoke of freedom.", "supported"))
    # a part of a sentence is no sentence of the answer either
    a_part = draft(FIRST, verdict("The first is freedom of speech and expression", "supported"))
    elsewhere = {**verdict(FIRST), "spans": [{"source": "S2", "text": "freedom of speech"}]}
    unlisted = draft(FIRST, verdict(FIRST, "supported"), elsewhere)
    path = tmp_path / "drafts.jsonl"
    lines = [good, not_a_sentence, a_part, unlisted, draft(FIRST)]
    path.write_text("".join(json.dumps(d) + "\n" for d in lines), encoding="utf-8")
    res = cli(home, embedding_cache, "check", "--json", str(path))
    assert res.exit_code == 1
    results = [json.loads(line) for line in res.stdout.splitlines()]
    assert [r["decision"] for r in results] == [
        "AUTO_CLEARED", None, None, None, "AUTO_CLEARED"
    ]  # fmt: skip
    assert results[1:4] == [
        {"line": 2, "error": f"{path}:2: verdicts.0.text: not a sentence of the answer.",
         "decision": None},
        {"line": 3, "error": f"{path}:3: verdicts.0.text: not a sentence of the answer.",
         "decision": None},
        {"line": 4, "error": f"{path}:4: verdicts.1.spans: S2 is not one of the draft's sources.",
         "decision": None},
    ]  # fmt: skip
    assert results[0]["claims"][0]["checks"]["tier"] == "paraphrase"
    assert res.stderr.count("error:") == 1
    assert f"3 of 5 drafts in {path} could not be checked (line 2, line 3, line 4)." in res.stderr
    human = cli(home, embedding_cache, "check", str(path))
    assert human.exit_code == 1 and "Traceback" not in human.stderr
    assert f"INVALID — {path}:4: verdicts.1.spans: S2 is not one of the draft's sources." in (
        human.stdout
    )


def test_a_single_draft_with_an_invalid_verdict_is_one_error(
    home: Path, embedding_cache: Path, tmp_path: Path
) -> None:
    path = tmp_path / "draft.json"
    path.write_text(json.dumps(draft(FIRST, verdict("Something else.", "supported"))))
    res = cli(home, embedding_cache, "check", "--json", str(path))
    assert res.exit_code == 1 and res.stdout == ""
    assert res.stderr.count("error:") == 1 and "Traceback" not in res.stderr
    assert "verdicts.0.text: not a sentence of the answer." in res.stderr


# --------------------------------------------------------------------------- which auditor


def test_sentences_without_a_verdict_go_to_the_desks_auditor(
    home: Path, embedding_cache: Path, tmp_path: Path
) -> None:
    close = "From 1815 to 1914, no single war in Europe or in Asia was a real threat [S1]."
    loose = "For a century the wars of the Old World left America alone [S1]."
    answer = f"{FIRST} {PARAPHRASE} [S1]. {close} {loose}"
    # the writer's text may leave its citation markers out
    given = draft(answer, verdict(f"{PARAPHRASE}.", "supported", SPAN, by="newsroom"))
    [res] = check(home, embedding_cache, tmp_path, given)
    assert res["auditor"] == "offline + the draft's verdicts"
    first, second, third, fourth = res["claims"]
    assert first["audited_by"] == "" and first["auditor_verdict"] == "supported"  # offline
    assert first["kept"]
    assert first["checks"]["tier"] == "verbatim"
    assert second["audited_by"] == "newsroom" and second["kept"]
    assert second["checks"]["tier"] == "paraphrase"
    # the offline auditor's supported verdict names the sentence that covers the claim, and
    # the paraphrase tier checks the claim against it
    assert third["audited_by"] == "" and third["auditor_verdict"] == "supported"
    assert third["spans"] == [{"source_id": "S1", "text": SPAN}]
    assert third["kept"] and third["checks"]["tier"] == "paraphrase"
    # a sentence it does not find supported names no spans, and is not grounded
    assert fourth["audited_by"] == "" and fourth["auditor_verdict"] != "supported"
    assert fourth["spans"] == [] and not fourth["kept"] and fourth["checks"]["tier"] is None
    assert res["decision"] == "PUBLISHED_AFTER_PRUNING", res["reason"]
    assert res["published_answer"] == f"{FIRST} {PARAPHRASE} [S1]. {close}"


def test_one_verdict_may_name_several_sentences(
    home: Path, embedding_cache: Path, tmp_path: Path
) -> None:
    answer = f"{FIRST} {SECOND}"
    [res] = check(home, embedding_cache, tmp_path, draft(answer, verdict(answer, "unsupported")))
    assert [c["audited_by"] for c in res["claims"]] == ["fact-desk", "fact-desk"]
    assert res["decision"] == "HELD_FOR_REVIEW" and res["published_answer"] == ""


def test_a_verdict_is_for_the_sentence_it_names_not_one_its_words_hold(
    home: Path, embedding_cache: Path, tmp_path: Path
) -> None:
    # FIRST's words are inside the first sentence, which is not FIRST.
    longer = f"In 1941 {FIRST}"
    answer = f"{longer} {FIRST}"
    own, borrowed = check(
        home,
        embedding_cache,
        tmp_path,
        draft(answer, verdict(longer, by="desk-a"), verdict(FIRST, "contradicted", by="desk-b")),
        draft(answer, verdict(longer, by="desk-a")),
    )
    assert [(c["audited_by"], c["auditor_verdict"]) for c in own["claims"]] == [
        ("desk-a", "supported"),
        ("desk-b", "contradicted"),
    ]
    assert own["decision"] == "HELD_FOR_REVIEW"
    # with no verdict of its own, FIRST is the desk's auditor's to judge
    assert [c["audited_by"] for c in borrowed["claims"]] == ["desk-a", ""]
