"""The application layer: what the command line and the web app call, and nothing else does.

`Desk` (`facade.py`) is one data directory's desk: ingest, ask, runs, `check`, receipts,
evaluation, doctor and status. `Workspace` (`workspace/`) is what the web app offers readers
and editors on the same parts: owner-scoped runs, conversations, lessons, notes, reviews, the
widget's switch.
The parts both are built on (the store, the index, the embedders, the agents, the pipeline,
the run records, the executor, the signing key) are made in one place, `parts.py`.

This package may import every floor below it (`runs/`, `agents/`, `archive/`, `retrieval/`,
`sources/`, `store/`, `trust/`); `cli/` and `server/` import the application from here
alone: the names below are its face, and the record types the web app shows come through
it, not from `store/` (`tests/unit/test_layering.py`).
"""

from ..agents.probe import EngineProbe
from ..runs.records import DISPLAY_STATES, RunSummary, state_words
from ..runs.state import RunState
from ..store.accounts import Conversation, OwnedRun, Review, Session, SwitchFlip, User
from ..store.notes import Note
from ..store.runs import StoredEvent
from .drafts import DraftFileError
from .embedding import Estimate, ReembedSummary
from .facade import Desk, publisher_name
from .preparing import ArchivePreparing, SamplePreparation
from .receipts import ChainOutcome, VerifyOutcome
from .running import AskResult
from .web import FetchReport
from .workspace import HELD_NOTICE, RunPage, Thread, Workspace
from .workspace.errors import (
    Forbidden,
    NotFound,
    SignInRequired,
    TooLarge,
    TooManyAttempts,
    WorkspaceError,
)
from .workspace.lessons import Margin
from .workspace.lessonview import LESSON_CHANGED, LessonView
from .workspace.review import ReviewResult
from .workspace.views import held_reasons

__all__ = [
    "DISPLAY_STATES",
    "HELD_NOTICE",
    "LESSON_CHANGED",
    "ArchivePreparing",
    "AskResult",
    "ChainOutcome",
    "Conversation",
    "Desk",
    "DraftFileError",
    "EngineProbe",
    "Estimate",
    "FetchReport",
    "Forbidden",
    "LessonView",
    "Margin",
    "NotFound",
    "Note",
    "OwnedRun",
    "ReembedSummary",
    "Review",
    "ReviewResult",
    "RunPage",
    "RunState",
    "RunSummary",
    "SamplePreparation",
    "Session",
    "SignInRequired",
    "StoredEvent",
    "SwitchFlip",
    "Thread",
    "TooLarge",
    "TooManyAttempts",
    "User",
    "VerifyOutcome",
    "Workspace",
    "WorkspaceError",
    "held_reasons",
    "publisher_name",
    "state_words",
]
