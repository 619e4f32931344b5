"""The façade: the one object the command line (and later the web app) calls.

`Desk` owns the settings, the archive store, the hybrid index, the embedding model, the
agents and the desk's signing key, and opens each lazily, so `evidence-desk receipt verify`
never loads a model and `ask` never rebuilds an index that is current. The index is derived
data: whenever the store's generation moved past the index's, it is rebuilt from the store.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from .agents.doctor import DoctorReport, diagnose
from .agents.registry import ROLES, Agents
from .agents.registry import resolve as resolve_agents
from .archive.ingest import IngestError, IngestProgress, IngestSummary, ingest
from .archive.loaders import iter_documents
from .archive.results import LoadResult
from .archive.sample import SampleError, load_sample
from .deskarchive import DeskArchive
from .drafts import DraftFileError, DraftInput, check_drafts, read_drafts
from .evaluation.questions import (
    BUNDLED_ARCHIVES,
    Question,
    QuestionFileError,
    bundled_questions,
    load_questions,
)
from .evaluation.runner import evaluate
from .retrieval.embedder import MiniLMEmbedder
from .runs.pipeline import Pipeline, PipelineConfig
from .runs.selection import SelectionBounds
from .settings import Settings
from .store.embedding_cache import EmbeddingCache
from .store.sqlite import ArchiveStore, ReceiptChainError, StoreError
from .trust.canonical import DuplicateKeyError, loads_strict
from .trust.receipts import VerifyReport, seal, verify_receipt
from .trust.signing import (
    decode_public_key,
    key_id_for,
    load_or_create_key,
    parse_key_list,
    parse_public_key,
    public_key_b64,
    raw_public_key,
)
from .types import GatePolicy, Receipt


class DeskError(Exception):
    """A problem the user can act on; the message is one clear sentence."""


@dataclass(frozen=True)
class AskResult:
    receipt: dict[str, Any]
    path: Path | None


@dataclass(frozen=True)
class VerifyOutcome:
    problems: list[str]
    passed: list[str]
    notes: list[str]
    run_id: str = ""

    @property
    def ok(self) -> bool:
        return not self.problems


class Desk:
    """Evidence Desk on one data directory."""

    def __init__(self, settings: Settings | None = None) -> None:
        self.settings = settings or Settings()

    # ------------------------------------------------------------------ parts, opened lazily

    @cached_property
    def store(self) -> ArchiveStore:
        self.settings.home.mkdir(parents=True, exist_ok=True)
        try:
            return ArchiveStore(self.settings.db_path)
        except StoreError as exc:
            raise DeskError(str(exc)) from exc

    @cached_property
    def embedder(self) -> MiniLMEmbedder:
        """The in-process model for queries and the offline engine.

        One torch thread: a query is a few dozen tokens, and with two threads each call
        measured up to ~0.5 s at p95 whenever another process held a core.
        """
        s = self.settings
        return MiniLMEmbedder(precision=s.embed_precision, batch_size=s.embed_batch_size, threads=1)

    @cached_property
    def archive(self) -> DeskArchive:
        return DeskArchive(self.store, self.settings, self.embedder)

    @cached_property
    def policy(self) -> GatePolicy:
        s = self.settings
        return GatePolicy(
            coverage_floor=s.coverage_floor, max_pruned_fraction=s.max_pruned_fraction
        )

    @cached_property
    def agents(self) -> Agents:
        """The planner, answerer and auditor on the engines the settings name."""
        try:
            return resolve_agents(self.settings, self.embedder)
        except ValueError as exc:
            raise DeskError(str(exc)) from exc

    @cached_property
    def pipeline(self) -> Pipeline:
        agents = self.agents
        s = self.settings
        config = PipelineConfig(
            policy=self.policy,
            bounds=SelectionBounds(s.max_sources, s.passages_per_source),
            rare_term_max_df=s.rare_term_max_df,
            common_zipf=s.common_zipf,
            max_model_calls=s.max_model_calls,
            max_model_tokens=s.max_model_tokens,
            relative_date_reach_days=s.relative_date_reach_days,
        )
        return Pipeline(self.archive, agents.planner, agents.answerer, agents.auditor, config)

    # ------------------------------------------------------------------ ingest

    def ingest(
        self, paths: Sequence[Path], progress: Callable[[IngestProgress], None] | None = None
    ) -> IngestSummary:
        missing = [str(p) for p in paths if not p.exists()]
        if missing:
            raise DeskError(f"{missing[0]} does not exist.")
        return self._ingest(iter_documents(list(paths)), progress)

    def ingest_sample(
        self, name: str, progress: Callable[[IngestProgress], None] | None = None
    ) -> IngestSummary:
        try:
            results = list(load_sample(name))
        except SampleError as exc:
            raise DeskError(str(exc)) from exc
        return self._ingest(results, progress)

    def _ingest(
        self, results: Any, progress: Callable[[IngestProgress], None] | None
    ) -> IngestSummary:
        from .retrieval.parallel import ParallelEmbedder

        loaded: Sequence[LoadResult] = results
        s = self.settings
        cache = EmbeddingCache(s.cache_dir) if s.cache_dir else None
        bulk = ParallelEmbedder.from_settings(s)
        try:
            summary = ingest(
                loaded,
                self.store,
                bulk,
                target_words=s.passage_words,
                max_words=s.passage_max_words,
                cache=cache,
                on_progress=progress,
            )
        except IngestError as exc:
            raise DeskError(str(exc)) from exc
        finally:
            bulk.close()
        self.archive.refresh()
        return summary

    # ------------------------------------------------------------------ ask

    def _require_archive(self) -> None:
        if self.store.count_documents() == 0:
            raise DeskError(
                f"The archive in {self.settings.home} is empty: run `evidence-desk ingest PATH...` "
                "or `evidence-desk ingest --sample sotu` first."
            )

    def run(self, question: str, *, mode: str = "quick") -> Receipt:
        """One run, not sealed or stored (evaluation uses this)."""
        question = question.strip()
        if not question:
            raise DeskError("The question is empty.")
        self._require_archive()
        return self.pipeline.run(question, mode=mode)

    def ask(self, question: str, *, mode: str = "quick", persist: bool = True) -> AskResult:
        receipt = self.run(question, mode=mode)
        if not persist:
            return AskResult(receipt.model_dump(mode="json"), None)
        return self._publish(receipt)

    @cached_property
    def key(self) -> Any:
        return load_or_create_key(self.settings.key_path)

    def _publish(self, receipt: Receipt) -> AskResult:
        body = receipt.model_dump(mode="json")
        for _ in range(3):  # another process may append between our read and our write
            previous = self.store.last_receipt_sha()
            sealed = seal(body, self.key, previous)
            sha = sealed["integrity"]["canonical_sha256"]
            text = json.dumps(sealed, ensure_ascii=False, indent=2)
            try:
                self.store.append_receipt(
                    sealed["run_id"], sealed["created_at"], sealed["decision"], sha, previous, text
                )
            except ReceiptChainError:
                continue
            return AskResult(sealed, self._write_receipt_file(sealed["run_id"], text))
        raise DeskError("Could not append the receipt: the receipt chain kept changing.")

    def _write_receipt_file(self, run_id: str, text: str) -> Path:
        folder = self.settings.receipts_dir
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / f"{run_id}.json"
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".receipt-", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text + "\n")
        os.replace(tmp, target)
        return target

    # ------------------------------------------------------------------ check

    def check_file(self, path: Path) -> list[dict[str, Any]]:
        """One result per draft of the file, in file order.

        An invalid draft's result is `InvalidDraft.to_json()` (its place, `error`, and
        `decision` null); every other draft is checked.
        """
        try:
            items = read_drafts(path)
        except DraftFileError as exc:
            raise DeskError(str(exc)) from exc
        self._require_archive()
        drafts = [d for d in items if isinstance(d, DraftInput)]
        checked = iter(
            check_drafts(drafts, self.store, self.agents.auditor, self.policy, self.settings)
        )
        return [next(checked) if isinstance(d, DraftInput) else d.to_json() for d in items]

    # ------------------------------------------------------------------ receipts

    def public_key(self) -> str:
        """This desk's public key in base64, one line of another desk's trusted-keys file."""
        return public_key_b64(self.key)

    def trusted_keys(self, key_files: Sequence[Path] = ()) -> dict[bytes, str]:
        """The public keys receipts may be signed with, each with where it was trusted.

        This desk's own key (if it has one yet), the keys listed in the trusted-keys file of
        the data directory, and the keys in `key_files` (each one base64 key or PEM). A
        receipt's own embedded key is never trusted for being there.
        """
        trusted: dict[bytes, str] = {}
        if self.settings.key_path.exists():
            trusted[raw_public_key(self.key)] = "this desk's key"
        listed = self.settings.trusted_keys_path
        if listed.exists():
            try:
                keys = parse_key_list(listed.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, ValueError) as exc:
                raise DeskError(f"The trusted-keys file {listed} cannot be used: {exc}.") from exc
            for raw in keys:
                trusted.setdefault(raw, f"listed in {listed}")
        for path in key_files:
            try:
                given = parse_public_key(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, ValueError) as exc:
                raise DeskError(
                    f"The key file {path} cannot be used: {exc}; it must hold one base64 "
                    "Ed25519 public key (as `evidence-desk receipt key` prints) or a PEM "
                    "public key."
                ) from exc
            trusted.setdefault(given, f"given in {path}")
        return trusted

    def verify_receipt_file(self, path: Path, *, key_files: Sequence[Path] = ()) -> VerifyOutcome:
        """`verify_receipt` on a receipt file; a key given twice in one object is a problem."""
        trusted = self.trusted_keys(key_files)
        try:
            data = loads_strict(path.read_text(encoding="utf-8"))
        except DuplicateKeyError as exc:
            return VerifyOutcome(
                [
                    f"The receipt has the key {exc.key!r} twice in one object; JSON readers "
                    "differ on which value counts, so it could say two things."
                ],
                [],
                [],
            )
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise DeskError(f"{path} is not a JSON receipt ({exc}).") from exc
        return self._verify(data, trusted)

    def verify_receipt(self, data: Any, *, key_files: Sequence[Path] = ()) -> VerifyOutcome:
        """Re-check a parsed receipt against the keys `trusted_keys(key_files)` trusts."""
        return self._verify(data, self.trusted_keys(key_files))

    def _verify(self, data: Any, trusted: dict[bytes, str]) -> VerifyOutcome:
        if not isinstance(data, dict):
            return VerifyOutcome(["The file does not hold a JSON receipt object."], [], [])
        documents, missing, kept = self._documents_for(data)
        notes = [
            f"{doc_id} was re-ingested since this receipt was written; its quotes were "
            "checked against the earlier text the archive kept, the one the receipt records."
            for doc_id in kept
        ]
        if missing:
            notes.append(
                f"The archive does not hold {', '.join(missing)}; quotes were not re-checked "
                "against stored text."
            )
        report: VerifyReport = verify_receipt(
            data,
            trusted_public_keys=trusted,
            documents=None if missing else documents,
            untrusted_hint=(
                f"pass --trust-key FILE or add it to {self.settings.trusted_keys_path}"
            ),
        )
        passed = ["hash", "signature", "decision follows from the recorded verdicts"]
        integrity = data.get("integrity")
        signer = (
            decode_public_key(str(integrity.get("public_key")))
            if isinstance(integrity, dict)
            else None
        )
        if signer is not None and signer in trusted:  # always so when the report is ok
            passed.insert(2, f"signed by trusted key {key_id_for(signer)} ({trusted[signer]})")
        if not missing and documents:
            passed.append("quotes at their offsets in the stored text")
        return VerifyOutcome(report.problems, passed, notes, str(data.get("run_id", "")))

    def _documents_for(self, data: dict[str, Any]) -> tuple[dict[str, str], list[str], list[str]]:
        """(doc_id -> the text to re-check quotes against, doc ids the archive does not hold,
        doc ids checked against a kept earlier text).

        Each source's text is the one whose hash the receipt records, current or kept since
        a re-ingest replaced it (`store/versions.py`); when the archive holds neither, the
        current text is given, so verification reports the document as changed."""
        sources = data.get("sources")
        if not isinstance(sources, list):
            return {}, [], []
        recorded: dict[str, str] = {}
        for source in sources:
            doc_id = source.get("doc_id") if isinstance(source, dict) else None
            if isinstance(doc_id, str):
                recorded.setdefault(doc_id, str(source.get("content_sha256", "")))
        wanted = list(recorded)
        if not wanted or not self.settings.db_path.exists():
            return {}, wanted, []
        found = self.store.texts_by_hash(recorded.items())
        documents = {d: found[d, sha].text for d, sha in recorded.items() if (d, sha) in found}
        kept = [d for d, sha in recorded.items() if (d, sha) in found and not found[d, sha].current]
        current = self.store.get_documents([d for d in wanted if d not in documents])
        documents.update({d: doc.text for d, doc in current.items()})
        return documents, [d for d in wanted if d not in documents], kept

    # ------------------------------------------------------------------ evaluation

    def sample_questions(self, name: str) -> list[Question]:
        try:
            return bundled_questions(name)
        except QuestionFileError as exc:
            raise DeskError(str(exc)) from exc

    def require_gold_documents(self, name: str, questions: Sequence[Question]) -> None:
        """Fail in one sentence unless the archive holds a gold document of bundled set `name`."""
        wanted = sorted({doc_id for q in questions for doc_id in q.gold_doc_ids})
        if not wanted:
            return
        if self.settings.db_path.exists() and any(
            self.store.document_sha(doc_id) is not None for doc_id in wanted
        ):
            return
        how = BUNDLED_ARCHIVES.get(name, "evidence-desk ingest PATH...")
        raise DeskError(
            f"The archive in {self.settings.home} holds none of the gold documents of the "
            f"{name!r} question set: run `{how}` first."
        )

    def evaluate(self, questions: Path | Sequence[Question]) -> dict[str, Any]:
        if isinstance(questions, Path):
            try:
                questions = load_questions(questions)
            except QuestionFileError as exc:
                raise DeskError(str(exc)) from exc
        self._require_archive()

        def text_of(doc_id: str) -> str | None:
            doc = self.store.get_document(doc_id)
            return None if doc is None else doc.text

        return evaluate(questions, self.run, text_of)

    # ------------------------------------------------------------------ doctor

    def doctor(self, timeout: float = 5.0) -> DoctorReport:
        """Each role's engine, key presence, endpoint and price, and what is missing."""
        return diagnose(self.settings, timeout)

    # ------------------------------------------------------------------ status

    def status(self) -> dict[str, Any]:
        s = self.settings
        info: dict[str, Any] = {"data directory": str(s.home)}
        if not s.db_path.exists():
            info["archive"] = "empty (nothing ingested yet)"
            return info
        info["documents"] = self.store.count_documents()
        info["passages"] = self.store.count_passages()
        info["generation"] = self.store.generation()
        index = self.archive.index_if_current()
        info["index"] = f"generation {index.generation}" if index else "stale (rebuilt on next ask)"
        info["receipts"] = sum(1 for _ in self.store.iter_receipts())
        if s.key_path.exists():
            info["signing key"] = key_id_for(raw_public_key(self.key))
        info["engines"] = " ".join(f"{r}={s.engine_name(r)}" for r in ROLES)
        return info
