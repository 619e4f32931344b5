"""While the archive is being prepared: `/api/preparing`, and what every page shows of it.

`serve --sample sotu` on an empty data directory serves at once and prepares the archive in
the background (`desk/preparing.py`). Every page built on `base.html` shows its progress
(`_preparing.html`, through the template global `archive_preparing`, which is `shown`);
`static/preparing.js` keeps the bar current from `/api/preparing` and reloads the page once
the archive is ready. A question asked before then is refused by the desk itself
(`ArchivePreparing`), which the app answers with a 503 (`app.install_errors`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from ..progress import ArchiveProgress
from .context import desk_of

if TYPE_CHECKING:
    from ..desk import Desk

router = APIRouter()
NO_STORE = {"cache-control": "no-store"}
READY = ArchiveProgress("ready")  # what a desk that prepares nothing answers


class Preparing(BaseModel):
    ready: bool = Field(description="True once questions can be asked.")
    stage: str = Field(
        description="building the embedder, reading, embedding, indexing; then ready, failed "
        "or stopped."
    )
    done: int = Field(description="Units of this stage done.")
    total: int = Field(description="Units of this stage in all (0: it counts none).")
    unit: str = Field(description="What `done` and `total` count: passages, documents.")
    elapsed_seconds: float
    eta_seconds: float | None = Field(
        description="Seconds left for the whole preparation, from the rate reached so far; "
        "null while not known yet."
    )
    error: str | None = Field(description="Why it failed, when it did.")


def progress_of(desk: Desk) -> ArchiveProgress:
    preparation = desk.preparation
    return READY if preparation is None else preparation.progress()


def shown(desk: Desk) -> ArchiveProgress | None:
    """What a page shows: the progress while the archive is being prepared or after its
    preparation failed; None once it is ready (or nothing was prepared)."""
    progress = progress_of(desk)
    return progress if progress.working or progress.stage == "failed" else None


@router.get(
    "/api/preparing",
    tags=["operations"],
    summary="The archive's preparation",
    response_model=Preparing,
)
async def preparing(request: Request) -> JSONResponse:
    """How far preparing the archive has come (`serve --sample` on an empty data directory):
    `ready` once questions can be asked; until then its stage, `done` of `total` `unit`,
    and the seconds left. No session is needed, and none is made."""
    return JSONResponse(progress_of(desk_of(request)).to_json(), headers=NO_STORE)
