"""Evaluation questions (`contracts/questions.md`): loading and validation.

A question file is JSONL; a bad line is reported with its line number and the run does not
start, so a typo never silently shrinks an evaluation.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from ..errors import DeskError

Kind = Literal["factoid", "temporal", "comparison", "out_of_coverage"]

BUNDLED = {"sotu": "sotu_eval.jsonl", "digitalgov": "digitalgov_eval.jsonl"}
"""The bundled question sets (`evidence-desk eval --set NAME`): name -> file in `data/`."""

BUNDLED_ARCHIVES = {
    "sotu": "evidence-desk ingest --sample sotu",
    "digitalgov": "evidence-desk ingest <shared data>/digitalgov-news/raw/content/news",
}
"""How to build the archive each bundled set is written for (its gold documents' ids)."""


class Question(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")

    id: str
    kind: Kind
    question: str
    gold_doc_ids: tuple[str, ...] = ()
    gold_evidence: tuple[str, ...] = ()
    answer_any: tuple[str, ...] = ()
    notes: str = ""

    @model_validator(mode="after")
    def _gold_matches_kind(self) -> Question:
        answerable = self.kind != "out_of_coverage"
        if answerable and not (self.gold_doc_ids and self.answer_any):
            raise ValueError("an answerable question needs gold_doc_ids and answer_any")
        if not answerable and (self.gold_doc_ids or self.gold_evidence or self.answer_any):
            raise ValueError("an out_of_coverage question has empty gold fields")
        return self

    @property
    def answerable(self) -> bool:
        return self.kind != "out_of_coverage"


class QuestionFileError(DeskError, ValueError):
    """A question file that cannot be used, with the line that broke it."""


def parse_questions(text: str, name: str = "questions") -> list[Question]:
    questions: list[Question] = []
    seen: set[str] = set()
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            q = Question.model_validate(json.loads(line))
        except json.JSONDecodeError as exc:
            raise QuestionFileError(f"{name}:{lineno}: not JSON ({exc.msg}).") from exc
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "item"
            raise QuestionFileError(f"{name}:{lineno}: {where}: {first['msg']}.") from exc
        if q.id in seen:
            raise QuestionFileError(f"{name}:{lineno}: duplicate id {q.id!r}.")
        seen.add(q.id)
        questions.append(q)
    if not questions:
        raise QuestionFileError(f"{name} holds no questions.")
    return questions


def load_questions(path: Path) -> list[Question]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise QuestionFileError(f"Cannot read {path}: {exc}.") from exc
    return parse_questions(text, str(path))


def bundled_questions(sample: str) -> list[Question]:
    if sample not in BUNDLED:
        raise QuestionFileError(
            f"No bundled question set named {sample!r}; available: {', '.join(BUNDLED)}."
        )
    res = resources.files("evidence_desk").joinpath("data", BUNDLED[sample])
    return parse_questions(res.read_text(encoding="utf-8"), f"bundled:{sample}")
