"""The illustrate stage: a lesson's optional picture, drawn, checked in code, looked at by a
reviewer, and shown only when every one of them passes.

An explanation run reaches this stage only when it was opened to illustrate
(`RunState.illustrate`, `explain --illustrate`), its lesson was published by the teaching
review, and an illustrator is set (`EVIDENCE_DESK_ILLUSTRATOR`); otherwise `teaching_review`
goes straight to `publish` (`illustrates`). The agents (`agents/illustrator.py`) advise:

1. the planning step writes the image prompt in code from the lesson's kept blocks
   (`kept_texts`: the published text of the key idea, how it works and the example,
   citation markers stripped; not the absent terms nor the check question);
2. the image model draws it, its spend reserved in the run's budget and every try in the
   run's ledger, so a resumed stage reads the picture back and pays nothing;
3. code reads the bytes (`agents/images.py`: a PNG or JPEG by its signature, its size from
   its header, at most 4 MiB); bytes that fail are never sent to a reviewer;
4. a vision model looks at the picture itself, with the lesson's kept texts.

Code decides (`picture_decision`): the picture is shown only when its bytes passed and the
reviewer said it shows no text, depicts only the lesson and is not misleading. A review that
failed (no verdict) shows nothing. Whatever happens, the stage records an `Illustration`
(the prompt, the image's hash when one came, the verdict, `shown`, the reason) and the run
goes on to publish: a lesson is never held back for its picture. Only a shown picture is
written, atomically, to `<data dir>/illustrations/<sha256>.png` (`.jpg` for a JPEG).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..agents.base import AgentFailure, ModelUsage
from ..agents.illustrator import Illustrator
from ..agents.images import NotAnImage
from ..agents.prompts import illustration_prompt
from ..trust.claims import strip_markers
from ..trust.teaching import picture_problems
from ..types import PICTURE_SUFFIXES, Illustration, ImageReview, Teaching
from .deps import Deps, Step
from .state import RunState

ILLUSTRATED_KINDS = ("key_idea", "how", "example")
NO_ILLUSTRATOR = "Nothing was drawn: no illustrator is set (EVIDENCE_DESK_ILLUSTRATOR)."


@dataclass(frozen=True)
class IllustrationParts:
    """What the illustrate stage needs: the illustrator, and where shown pictures are kept."""

    illustrator: Illustrator
    folder: Path


def illustrates(state: RunState, deps: Deps, decision: str) -> bool:
    """Whether the run goes on to the illustrate stage after a lesson `decision`."""
    parts = deps.teaching.illustration if deps.teaching is not None else None
    return state.illustrate and decision == "PUBLISHED" and parts is not None


def kept_texts(teaching: Teaching) -> list[str]:
    """The published text of the lesson's kept blocks a picture may show, in order, without
    their citation markers."""
    return [
        strip_markers(b.published)
        for b in teaching.blocks
        if b.decision == "kept" and b.block.kind in ILLUSTRATED_KINDS and b.published.strip()
    ]


def picture_decision(review: ImageReview) -> tuple[bool, str]:
    """Code's decision on a well-formed picture from its reviewer's verdict, and why."""
    found = [
        what
        for what, bad in (
            ("it shows text", review.shows_text),
            ("it depicts more than the lesson", not review.depicts_only_the_lesson),
            ("it is misleading", review.misleading),
        )
        if bad
    ]
    said = f" ({review.reason.rstrip('.')})" if review.reason else ""
    if found:
        return False, f"Not shown: the reviewer found that {' and '.join(found)}{said}."
    return True, (
        "Shown: a well-formed image that its reviewer found free of text, of anything beyond "
        f"the lesson and of anything misleading{said}."
    )


def keep_picture(folder: Path, sha256: str, media_type: str, data: bytes) -> Path:
    """`folder/<sha256><suffix>`, written atomically (a temporary file synced and renamed);
    a file already there under its hash holds the same bytes and is left as it is."""
    if hashlib.sha256(data).hexdigest() != sha256:
        raise ValueError(f"The picture's bytes do not match their hash {sha256}.")
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{sha256}{PICTURE_SUFFIXES[media_type]}"
    if target.exists():
        return target
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".picture-", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def _step(
    illustration: Illustration, reason: str, usage: ModelUsage | None, error: str | None = None
) -> Step:
    done = illustration.model_copy(update={"reason": reason})
    return Step({"illustration": done}, "publish", usage, error)


def illustrate_stage(state: RunState, deps: Deps) -> Step:
    """Draw, check, review, decide (see the module docstring)."""
    if state.teaching is None:
        raise RuntimeError(f"Run {state.run_id} has no reviewed lesson to illustrate.")
    texts = kept_texts(state.teaching)
    prompt = illustration_prompt(texts)
    parts = deps.teaching.illustration if deps.teaching is not None else None
    if parts is None:  # a run resumed on settings that no longer name an illustrator
        return _step(Illustration(engine="", prompt=prompt, reason=""), NO_ILLUSTRATOR, None)
    artist = parts.illustrator
    made = Illustration(
        engine=artist.engine_id, reviewer=artist.reviewer_id, prompt=prompt, reason=""
    )
    try:
        drawn = artist.draw(prompt, deps.budget)
    except AgentFailure as failure:
        return _step(made, f"Nothing was drawn: {failure.reason}", failure.usage, failure.reason)
    usage = drawn.usage
    made = made.model_copy(update={"image_sha256": drawn.value.sha256})
    try:
        facts = drawn.value.facts()
    except NotAnImage as exc:
        return _step(made, f"Not shown, and not reviewed: {exc}.", usage)
    size = {"media_type": facts.media_type, "width": facts.width, "height": facts.height}
    made = made.model_copy(update=size)
    image = drawn.value.data()
    try:
        seen = artist.review(image, facts.media_type, texts, deps.budget)
    except AgentFailure as failure:
        reason = f"Not shown: the picture has no review. {failure.reason}"
        return _step(made, reason, usage + failure.usage, failure.reason)
    shown, reason = picture_decision(seen.value)
    made = made.model_copy(update={"review": seen.value})
    problems = picture_problems(made)  # the rule `receipt verify` re-checks (trust/)
    if shown and problems:
        shown, reason = False, f"Not shown: {problems[0]}."
    if shown:
        keep_picture(parts.folder, drawn.value.sha256, facts.media_type, image)
    made = made.model_copy(update={"shown": shown})
    return _step(made, reason, usage + seen.usage)


__all__ = [
    "IllustrationParts",
    "illustrate_stage",
    "illustrates",
    "keep_picture",
    "kept_texts",
    "picture_decision",
]
