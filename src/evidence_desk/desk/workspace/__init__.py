"""The workspace: what the web app offers readers and editors, on a desk's parts and runs.

Readers ask (a run opens at once and is executed later, by the web app's executor), follow
a run's stored events, read its answer and sources, keep conversations and download
receipts. A reader explains their published answers and reads the lessons (`lessons.py`),
and keeps notes on their answers and lessons that only they see and no model ever reads
(`notes.py`). Editors review held runs (`review.py`), watch a dashboard and pull the widget's
kill switch. Every record a reader reaches goes through `_owned`: another reader's run,
conversation or receipt is `NotFound`, exactly like one that does not exist. Editors may
read every run (they review them). It is built on the same `Parts` and `Runs` as the desk
(`../parts.py`, `../running.py`), never on `Desk` itself.
"""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from ...errors import DeskError
from ...store.accounts import Conversation, OwnedRun, SwitchFlip, User
from ...store.notes import Note
from ...store.rows import Channel, RunOwner
from ...store.runs import StoredEvent
from .errors import Forbidden, NotFound, TooLarge, WorkspaceError, shown
from .lessons import Lessons, Margin
from .lessonview import LessonView
from .notes import Notes
from .people import People
from .review import ReviewResult, StandardsDesk
from .threads import ThreadSummary, followup_hint, thread_summary
from .views import (
    AnswerView,
    SourceView,
    answer_view,
    held_reasons,
    reader_receipts,
    source_view,
)

if TYPE_CHECKING:
    from ..parts import Parts
    from ..running import Runs

__all__ = ["Workspace"]

MODES = ("quick", "deep")
HELD_NOTICE = (
    "This answer is with the standards desk: its receipt and sources are shown once an "
    "editor publishes it."
)
MAX_ATTACHMENTS = 3


@dataclass(frozen=True)
class RunPage:
    """A run as its reader sees it: its state now, and its answer once it has one."""

    run_id: str
    question: str
    mode: str
    state: str
    conv_id: str | None
    answer: AnswerView | None
    failure: str | None


@dataclass(frozen=True)
class Thread:
    """A conversation: its answers' runs in order, and each answer's lesson by its run id
    (a lesson is kept in its answer's conversation, not listed as a question)."""

    conversation: Conversation
    runs: list[RunPage]
    lessons: dict[str, str] = field(default_factory=dict)


def _count(n: int) -> str:
    return f"{n:,} document{'' if n == 1 else 's'}"


def _docs_in(year: int, n: int) -> str:
    return f"{year} ({_count(n)})"


class Workspace:
    """The web-facing operations of one desk."""

    def __init__(self, parts: Parts, runs: Runs) -> None:
        self.parts = parts
        self.runs = runs
        self.settings = parts.settings
        self.accounts = parts.store.accounts_on(parts.clock)
        self.people = People(self.accounts, parts.settings)
        self.lessons = Lessons(parts, runs, self.accounts, self._owned)
        self.notebook = Notes(self.accounts)

    @cached_property
    def standards(self) -> StandardsDesk:
        d = self.parts
        return StandardsDesk(
            d.store,
            self.accounts,
            d.publisher,
            lambda: d.agents.auditor,
            d.settings,
            d.clock,
            lambda pairs: d.archive.texts(pairs),  # the archive opens on the first edit
        )

    # ------------------------------------------------------------------ asking

    def check_question(self, question: str) -> str:
        """The question as a run gets it: stripped, without NUL characters (pages use one as
        a placeholder), within `max_question_chars`."""
        question = question.replace("\x00", "").strip()
        if not question:
            raise WorkspaceError("The question is empty.")
        limit = self.settings.max_question_chars
        if len(question) > limit:
            raise TooLarge(
                f"A question has at most {limit:,} characters; this one has {len(question):,}."
            )
        return question

    def ask(
        self,
        user: User,
        question: str,
        *,
        mode: str = "quick",
        conv_id: str | None = None,
        channel: Channel = "workspace",
        files: Sequence[tuple[str, bytes]] = (),
    ) -> OwnedRun:
        """Open a run for `user` in a conversation (a new one unless `conv_id` is theirs).
        `files` (name, bytes): documents attached to this question alone, read first; one
        that cannot be read refuses the question with its reason."""
        question = self.check_question(question)
        if mode not in MODES:
            raise WorkspaceError(f"Unknown mode {mode!r}: use quick or deep.")
        if len(files) > MAX_ATTACHMENTS:
            raise WorkspaceError(f"Attach at most {MAX_ATTACHMENTS} files to one question.")
        thread: tuple[str, ...] = ()  # a follow-up's planner reads the questions before it
        if conv_id is not None:
            asked_in = self.accounts.conversation(conv_id, user.user_id)
            if asked_in is None:
                raise NotFound("There is no such conversation.")
            thread = asked_in.recent_questions
        elif channel == "workspace":
            self.runs.require_archive(question, mode)  # a refused question opens no thread
            conv_id = self.accounts.new_conversation(user.user_id, question[:120]).conv_id
        try:
            attachments = [self.parts.web.attach_bytes(name, body) for name, body in files]
        except DeskError as exc:
            raise WorkspaceError(str(exc)) from None
        run_id = self.runs.submit(
            question,
            mode=mode,
            owned_by=RunOwner(user.user_id, conv_id, channel),
            attachments=attachments,
            thread=thread,
        )
        found = self.accounts.run_owner(run_id)
        assert found is not None
        return found

    # ------------------------------------------------------------------ reading

    def _owned(self, user: User, run_id: str) -> OwnedRun | None:
        """The run's owner record if `user` may read it; NotFound otherwise."""
        owned = self.accounts.run_owner(run_id)
        if owned is not None and owned.owner_id == user.user_id:
            return owned
        if user.is_editor and self.runs.exists(run_id):
            return owned
        raise NotFound(f"There is no run {shown(run_id)}.")

    def owner_of(self, run_id: str) -> OwnedRun | None:
        """Whose the run is, where it was asked (None: nobody's, or no such run); callers
        scope by it (the widget reads only its own session's widget runs)."""
        return self.accounts.run_owner(run_id)

    def view_key(self, user: User, run_id: str) -> str | None:
        """What a finished run's view depends on, for a cache (`server/reader.py`): None
        while the run may still change. One indexed query; NotFound like `_owned`."""
        access = self.accounts.run_access(run_id)
        if access is None or (access[0] != user.user_id and not user.is_editor):
            raise NotFound(f"There is no run {shown(run_id)}.")
        _, status, reviews = access
        if status not in ("finished", "cancelled"):
            return None
        # an editor's view holds what a reader's must not (a held run's receipts)
        return f"{status}:{reviews}:{'editor' if user.is_editor else 'reader'}"

    def receipts_of(self, run_id: str) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
        """A run's own receipt and its review receipts, oldest first."""
        stored = self.parts.store.get_receipt(run_id)
        if stored is None:
            return None, []
        later = []
        for review in self.accounts.reviews_of(run_id):
            if review.receipt_run_id:
                r = self.parts.store.get_receipt(review.receipt_run_id)
                if r is not None:
                    later.append(json.loads(r.json))
        return json.loads(stored.json), later

    def run_page(self, user: User, run_id: str) -> RunPage:
        owned = self._owned(user, run_id)
        run = self.parts.run_records.get(run_id)
        state = self.runs.state(run_id)
        receipt, later = self.receipts_of(run_id)
        answer = None
        if receipt is not None:
            rejected = next(
                (r.reason for r in self.accounts.reviews_of(run_id) if r.action == "rejected"),
                None,
            )
            note = (
                self.coverage_note(receipt) if receipt["decision"] == "OUTSIDE_COVERAGE" else None
            )
            answer = answer_view(receipt, later, rejected=rejected, coverage_note=note)
            if not user.is_editor:
                answer = dataclasses.replace(answer, receipts=reader_receipts(receipt, later))
        return RunPage(
            run_id,
            run.question,
            run.mode,
            state,
            owned.conv_id if owned else None,
            answer,
            run.failure,
        )

    def events(self, user: User, run_id: str, after: int = 0) -> list[StoredEvent]:
        self._owned(user, run_id)
        return self.runs.events(run_id, after)

    def state(self, user: User, run_id: str) -> str:
        self._owned(user, run_id)
        return self.runs.state(run_id)

    def receipt_for(self, user: User, run_id: str, receipt_id: str) -> str:
        """The signed JSON of a run's receipt: its own (`receipt_id == run_id`) or one of
        its review receipts. A reader gets none that holds an unpublished draft."""
        self._owned(user, run_id)
        ids = {run_id} | {
            r.receipt_run_id for r in self.accounts.reviews_of(run_id) if r.receipt_run_id
        }
        stored = self.parts.store.get_receipt(receipt_id) if receipt_id in ids else None
        if stored is None:
            raise NotFound(f"Run {shown(run_id)} has no receipt {shown(receipt_id)}.")
        if not user.is_editor:
            receipt, later = self.receipts_of(run_id)
            if receipt is None or receipt_id not in reader_receipts(receipt, later):
                raise NotFound(HELD_NOTICE)
        return stored.json

    def source(self, user: User, run_id: str, source_id: str) -> SourceView:
        """One source of the run with its quotes: from the newest receipt that publishes
        (any receipt for an editor); a reader sees none while nothing is published."""
        self._owned(user, run_id)
        receipt, later = self.receipts_of(run_id)
        shown_receipts = [*reversed(later), receipt]
        if not user.is_editor and receipt is not None:
            visible = set(reader_receipts(receipt, later))
            shown_receipts = [r for r in shown_receipts if r and r["run_id"] in visible]
            if not shown_receipts:
                raise NotFound(HELD_NOTICE)
        for r in shown_receipts:
            view = source_view(r, source_id) if r else None
            if view is not None:
                return view
        raise NotFound(f"Run {shown(run_id)} has no source {shown(source_id)}.")

    # ------------------------------------------------------------------ conversations

    def conversations(self, user: User) -> list[ThreadSummary]:
        """The reader's conversations, newest first: each with its number of questions and
        its latest run's mode, outcome (in plain words) and time."""
        return [thread_summary(c) for c in self.accounts.conversations(user.user_id)]

    def followup_hint(self, conversation: Conversation | None) -> str | None:
        """A follow-up to suggest under `conversation`, from its own subject; None when
        there is none to suggest (`threads.followup_hint`)."""
        if conversation is None:
            return None
        return followup_hint(conversation.recent_questions, self.parts.archive.profile())

    def conversation(self, user: User, conv_id: str) -> Conversation | None:
        """The reader's own conversation `conv_id`; None when there is none of theirs."""
        return self.accounts.conversation(conv_id, user.user_id)

    def thread(self, user: User, conv_id: str) -> Thread:
        conv = self.accounts.conversation(conv_id, user.user_id)
        if conv is None:
            raise NotFound("There is no such conversation.")
        owned = self.accounts.conversation_runs(conv_id)
        lessons, lesson_runs = self.lessons.in_conversation(owned)
        runs = [self.run_page(user, o.run_id) for o in owned if o.run_id not in lesson_runs]
        return Thread(conv, runs, lessons)

    # ------------------------------------------------------------------ lessons and notes

    def explain(self, user: User, run_id: str) -> str:
        """The lesson run of `user`'s published answer `run_id`: the saved one, or a new one
        opened now in the answer's conversation (queued: the web app's executor runs it)."""
        return self.lessons.explain(user, run_id)

    def lesson(self, user: User, run_id: str) -> LessonView:
        """The lesson run `run_id` (or an answer's saved lesson) as `user` may see it."""
        return self.lessons.lesson(user, run_id)

    def margin(self, user: User, run_id: str) -> Margin:
        """Beside a run's page: may it be explained, its lesson, and the reader's notes."""
        return self.lessons.margin(user, run_id, self.notebook.mine(user, run_id))

    def add_note(self, user: User, run_id: str, text: str) -> Note:
        """Keep a note on the reader's own run; no model provider is ever sent it."""
        return self.notebook.add(user, run_id, text)

    def notes(self, user: User, run_id: str) -> list[Note]:
        """The reader's notes on their own run, oldest first."""
        return self.notebook.of(user, run_id)

    def delete_note(self, user: User, note_id: str) -> None:
        self.notebook.delete(user, note_id)

    # ------------------------------------------------------------------ coverage

    @cached_property
    def _years(self) -> tuple[int, Counter[int]]:
        store = self.parts.store
        counts: Counter[int] = Counter()
        for meta in store.iter_documents_meta():
            if meta.date and meta.date[:4].isdigit():
                counts[int(meta.date[:4])] += 1
        return store.generation(), counts

    def _year_counts(self) -> Counter[int]:
        generation, counts = self._years
        if generation != self.parts.store.generation():
            del self.__dict__["_years"]
            generation, counts = self._years
        return counts

    def coverage_note(self, receipt: dict[str, Any]) -> str:
        """What the archive does cover, for an outside-coverage answer's period."""
        counts = self._year_counts()
        if not counts:
            return "The archive holds no dated documents."
        first, last = min(counts), max(counts)
        total = sum(counts.values())
        parts = [f"The archive holds {total:,} dated documents from {first} to {last}."]
        for window in (receipt.get("plan") or {}).get("time_windows", []):
            start, end = window.get("start") or "", window.get("end") or ""
            if not (start[:4].isdigit() and end[:4].isdigit()):
                continue
            lo, hi = int(start[:4]), int(end[:4])
            inside = sum(n for y, n in counts.items() if lo <= y <= hi)
            label = window.get("label") or (f"{lo}" if lo == hi else f"{lo}–{hi}")
            if inside:
                parts.append(f"For {label} it holds {_count(inside)}.")
                continue
            before = max((y for y in counts if y < lo), default=None)
            after = min((y for y in counts if y > hi), default=None)
            near = [_docs_in(y, counts[y]) for y in (before, after) if y is not None]
            nearest = (
                f"; the nearest year it covers is {near[0]}"
                if len(near) == 1
                else f"; the nearest years it covers are {near[0]} and {near[1]}"
                if near
                else ""
            )
            parts.append(f"For {label} it holds none{nearest}.")
        return " ".join(parts)

    # ------------------------------------------------------------------ the standards desk

    def require_editor(self, user: User) -> None:
        if not user.is_editor:
            raise Forbidden("Only an editor may do this: sign in to the standards desk.")

    def queue(self, editor: User) -> list[dict[str, Any]]:
        """Held runs no editor has decided yet, oldest first, each with why it was held."""
        self.require_editor(editor)
        closed = self.accounts.closed_reviews()
        out = []
        for summary in reversed(self.runs.recent(state="held", limit=500)):
            if summary.run_id in closed:
                continue
            stored = self.parts.store.get_receipt(summary.run_id)
            if stored is None:
                continue
            receipt = json.loads(stored.json)
            if receipt.get("teaching") is not None:
                continue  # a lesson's run passes no gate (its row has no decision): not held
            out.append(
                {
                    "run_id": summary.run_id,
                    "question": summary.question,
                    "created_at": summary.created_at,
                    "reason": receipt["reason"],
                    "failure": summary.failure,
                    "claims": held_reasons(receipt),
                }
            )
        return out

    def held(self, editor: User, run_id: str) -> dict[str, Any]:
        """One held run for review: the claims and why, with the sources side by side."""
        self.require_editor(editor)
        receipt, sha = self.standards.held_receipt(run_id)
        return {
            "run_id": run_id,
            "receipt": receipt,
            "receipt_sha256": sha,
            "claims": held_reasons(receipt),
            "sources": [source_view(receipt, s["id"]) for s in receipt.get("sources", [])],
            "reviews": self.accounts.reviews_of(run_id),
            "closed": run_id in self.accounts.closed_reviews(),
        }

    def approve(self, editor: User, run_id: str, note: str = "") -> ReviewResult:
        self.require_editor(editor)
        return self.standards.approve(editor, run_id, note)

    def reject(self, editor: User, run_id: str, reason: str) -> ReviewResult:
        self.require_editor(editor)
        return self.standards.reject(editor, run_id, reason)

    def edit(self, editor: User, run_id: str, draft: str, note: str = "") -> ReviewResult:
        self.require_editor(editor)
        return self.standards.edit(editor, run_id, draft, note)

    def dashboard(self, editor: User) -> dict[str, Any]:
        """Recent runs, decisions per day, failures and spend."""
        self.require_editor(editor)
        runs = self.runs.recent(limit=200)
        states = Counter(r.state for r in runs)
        per_day: dict[str, Counter[str]] = {}
        spend = 0.0
        calls = 0
        for stored in self._receipts():
            body = json.loads(stored.json)
            if body.get("review"):
                continue
            if body.get("teaching"):  # a lesson: the answer it repeats was counted already
                own = body.get("teaching_stages") or []
                spend += sum(float(s.get("estimated_spend_usd") or 0.0) for s in own)
                calls += sum(int(s.get("calls") or 0) for s in own)
                continue
            per_day.setdefault(stored.created_at[:10], Counter())[stored.decision] += 1
            usage = body.get("usage") or {}
            spend += float(usage.get("estimated_spend_usd") or 0.0)
            calls += int(usage.get("model_calls") or 0)
        return {
            "recent": runs[:50],
            "states": dict(states),
            "per_day": sorted(per_day.items(), reverse=True)[:30],
            "failures": [r for r in runs if r.failure][:20],
            "spend_usd": round(spend, 6),
            "model_calls": calls,
            "reviews": self.accounts.recent_reviews(20),
        }

    def _receipts(self) -> Iterator[Any]:
        return self.parts.store.iter_receipts()

    # ------------------------------------------------------------------ the widget switch

    def widget_paused(self) -> bool:
        return self.accounts.widget_paused()

    def flip_widget(self, editor: User, paused: bool, reason: str = "") -> SwitchFlip:
        self.require_editor(editor)
        return self.accounts.flip_widget(paused, editor.user_id, reason.strip()[:500])

    def widget_flips(self, editor: User) -> list[SwitchFlip]:
        self.require_editor(editor)
        return self.accounts.widget_flips()

    # ------------------------------------------------------------------ setup

    def setup(self) -> dict[str, Any]:
        """Which engine each role runs and what, if anything, leaves the machine."""
        found = self._engines()
        provider = self.settings.search_provider.strip()
        if provider in ("", "archive", "none"):
            found["web"] = "Runs read the archive and attached files only; nothing is searched."
        else:
            found["web"] = (
                f"Runs also search the web ({provider.split(':', 1)[0]}): the plan's queries "
                "are sent to it, and the pages it proposes are fetched from their own sites "
                "through the safe fetch."
            )
            if found["offline"]:
                found["summary"] = (
                    "Every role runs on the built-in offline engine; only web searches and "
                    "page fetches leave this machine."
                )
            found["offline"] = False
        return found

    def _engines(self) -> dict[str, Any]:
        s = self.settings
        engines = {role: s.engine_name(role) for role in ("planner", "answerer", "auditor")}
        remote = {r: e for r, e in engines.items() if e != "offline"}
        if not remote:
            return {
                "engines": engines,
                "offline": True,
                "summary": "Every role runs on the built-in offline engine: nothing leaves "
                "this machine.",
                "would_add": "A model provider (EVIDENCE_DESK_MODEL=openai:…, anthropic:…, "
                "ollama:…) would write answers in its own words and audit them with a model; "
                "the same gate still decides what is published.",
                "uploads": "Attached files are read on this machine and sent nowhere.",
            }
        sent = ", ".join(f"{role} → {engine}" for role, engine in remote.items())
        return {
            "engines": engines,
            "offline": False,
            "summary": f"Questions and the passages of their sources are sent to: {sent}.",
            "would_add": "",
            "uploads": "Attached files are read on this machine; the passages selected from "
            f"them are sent with the question to: {sent}.",
        }
