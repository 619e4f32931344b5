"""Lessons in the workspace: a reader explains their own published answer and reads the lesson.

Explaining opens the answer's explanation run (`runs/teach.py`) in the answer's own
conversation, under the answer's owner, so the conversation keeps its lessons; explaining
again returns the saved one (no new run, no model call). Only a run the reader may read is
explained (`Workspace._owned`: another reader's answer reads as missing), and only an
answer the gate published. What the lesson's page shows of it is `lessonview.py`'s.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pydantic import ValidationError

from ...errors import DeskError
from ...store.accounts import Accounts, OwnedRun, User
from ...store.notes import Note
from ...store.rows import RunOwner
from ...types import Decision
from .errors import NotFound, WorkspaceError, shown
from .lessonview import LESSON_CHANGED, LessonView, lesson_view, withheld

if TYPE_CHECKING:
    from ..parts import Parts
    from ..running import Runs

NOT_EXPLAINABLE = "Only an answer the desk published can be explained, and this run has none."
IS_A_LESSON = "This run is a lesson already: explain its answer instead."
PUBLISHED = frozenset({Decision.AUTO_CLEARED.value, Decision.PUBLISHED_AFTER_PRUNING.value})
_OPENING = threading.Lock()  # one explanation run per answer, however many clicks arrive


@dataclass(frozen=True)
class Margin:
    """What a run's page shows beside it for the person reading: whether it may be explained
    and its lesson, if it has one (`answer_run_id`: the answer when the run is a lesson), and
    their own notes on it (None: not their run, so they keep none there)."""

    run_id: str
    explainable: bool
    lesson_id: str | None
    answer_run_id: str | None
    notes: tuple[Note, ...] | None


class Lessons:
    """Explaining and reading lessons for the workspace; `owned` is `Workspace._owned`."""

    def __init__(
        self,
        parts: Parts,
        runs: Runs,
        accounts: Accounts,
        owned: Callable[[User, str], OwnedRun | None],
    ) -> None:
        self.parts = parts
        self.runs = runs
        self.accounts = accounts
        self.owned = owned

    def explain(self, user: User, run_id: str) -> str:
        """The id of the lesson of `run_id`, a published answer `user` may read: its saved
        one, or a new explanation run opened now, queued, in the answer's conversation."""
        owned = self.owned(user, run_id)
        run = self.runs.get(run_id)
        if run.opening.get("explains"):
            raise WorkspaceError(IS_A_LESSON)
        if run.status != "finished" or run.decision not in PUBLISHED:
            raise WorkspaceError(NOT_EXPLAINABLE)
        # The lesson is the answer's owner's, like the answer (an editor may open it too).
        owner = None if owned is None else RunOwner(owned.owner_id, owned.conv_id, owned.channel)
        try:
            with _OPENING:
                return self.runs.open_explanation(run_id, owned_by=owner)
        except DeskError:
            raise WorkspaceError(NOT_EXPLAINABLE) from None

    def lesson_id(self, run_id: str) -> str | None:
        """The saved lesson of the answer `run_id`, if it has one."""
        found = self.runs.explanation_of(run_id)
        return None if found is None else found.run_id

    def lesson(self, user: User, run_id: str) -> LessonView:
        """The lesson `run_id` (or the saved lesson of the answer `run_id`) as `user` may
        see it; NotFound for a run they may not read or one with no lesson."""
        self.owned(user, run_id)
        run = self.runs.get(run_id)
        answer_run_id = run.opening.get("explains")
        if not answer_run_id:
            found = self.runs.explanation_of(run_id)
            if found is None:
                raise NotFound(f"Run {shown(run_id)} has no lesson.")
            run, answer_run_id = found, run_id
            self.owned(user, run.run_id)
        base = LessonView(
            run_id=run.run_id,
            answer_run_id=str(answer_run_id),
            question=run.question,
            # a lesson run passes no gate: finished is all its row says (its lesson says more)
            state="finished" if run.status == "finished" else self.runs.state(run.run_id),
            failure=run.failure,
        )
        try:
            receipt = self.parts.answer_receipt(run.run_id)
        except ValidationError:
            return withheld(base, LESSON_CHANGED)
        return lesson_view(base, receipt, editor=user.is_editor)

    def margin(self, user: User, run_id: str, notes: tuple[Note, ...] | None) -> Margin:
        """What the page of `run_id` shows beside it for `user` (`Margin`)."""
        self.owned(user, run_id)
        run = self.runs.get(run_id)
        explains = run.opening.get("explains")
        answer = not explains and run.status == "finished" and run.decision in PUBLISHED
        return Margin(
            run_id=run_id,
            explainable=bool(answer),
            lesson_id=self.lesson_id(run_id) if answer else None,
            answer_run_id=str(explains) if explains else None,
            notes=notes,
        )

    def in_conversation(self, runs: Sequence[OwnedRun]) -> tuple[dict[str, str], set[str]]:
        """Of a conversation's runs: each answer's lesson by the answer's run id (its newest
        not cancelled), and the ids of every lesson run among them."""
        lessons: dict[str, str] = {}
        every: set[str] = set()
        for owned in runs:
            run = self.runs.get(owned.run_id)
            explains = run.opening.get("explains")
            if not explains:
                continue
            every.add(run.run_id)
            if run.status != "cancelled":
                lessons[str(explains)] = run.run_id
        return lessons, every
