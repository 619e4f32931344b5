"""A terminal progress display for ingest (stderr, so `--json` output stays clean)."""

from __future__ import annotations

from types import TracebackType

from rich.console import Console
from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from .archive.ingest import IngestProgress


class IngestProgressBar:
    """Two lines: documents read, and passages embedded out of those queued so far."""

    def __init__(self, console: Console) -> None:
        self._progress = Progress(
            TextColumn("{task.description:>10}"),
            BarColumn(),
            TextColumn("{task.completed:>7,}/{task.total:<7,}"),
            TimeElapsedColumn(),
            console=console,
            transient=False,
            disable=not console.is_terminal,
        )
        self._docs: TaskID | None = None
        self._passages: TaskID | None = None

    def __enter__(self) -> IngestProgressBar:
        self._progress.start()
        self._docs = self._progress.add_task("documents", total=None)
        self._passages = self._progress.add_task("embedded", total=None)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._progress.stop()

    def update(self, event: IngestProgress) -> None:
        assert self._docs is not None and self._passages is not None
        seen = event.documents_loaded + event.documents_skipped
        self._progress.update(self._docs, completed=seen, total=seen)
        self._progress.update(
            self._passages,
            completed=event.passages_embedded,
            total=max(event.passages_queued, event.passages_embedded),
        )
