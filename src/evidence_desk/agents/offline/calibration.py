"""The offline auditor's thresholds and where they come from.

The values are calibrated on the WiCE dev split by `bench/wice.py --calibrate`, precision
first: the best 3-class macro-F1 among settings whose `supported` has a dev precision of at
least 0.95 (the gate rests on `supported`; a wrong `partial` only costs a pruned sentence).
It writes `evidence_desk/data/auditor_calibration.json` together with the dev and test figures
and the date. The auditor loads that file at start; the defaults below are the same
calibrated values, used when the file is missing or unreadable.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields
from importlib import resources
from pathlib import Path
from typing import Any

CALIBRATION_FILE = "auditor_calibration.json"


@dataclass(frozen=True)
class AuditThresholds:
    """Decision thresholds of the offline auditor (see docs/auditor.md).

    score = lexical_weight * coverage + (1 - lexical_weight) * max(similarity, 0);
    supported when score >= supported, partial when score >= partial, else unsupported.
    """

    # Calibrated on WiCE dev (bench/wice.py --calibrate); keep equal to the packaged file.
    lexical_weight: float = 0.7
    supported: float = 0.85
    partial: float = 0.25
    max_sentences: int = 1
    missing_number_cap: str = "partial"
    # Fixed by design, not calibrated (WiCE has no contradiction label).
    dense_candidates: int = 8
    negation_overlap: float = 0.75
    number_conflict_overlap: float = 0.6

    def __post_init__(self) -> None:
        if self.missing_number_cap not in ("partial", "unsupported"):
            raise ValueError("missing_number_cap must be 'partial' or 'unsupported'.")
        if not 0.0 <= self.partial <= self.supported:
            raise ValueError("Auditor thresholds need 0 <= partial <= supported.")


def calibration_path() -> Path:
    """Where the packaged calibration file lives (it may not exist)."""
    return Path(str(resources.files("evidence_desk") / "data" / CALIBRATION_FILE))


def load_thresholds(path: Path | None = None) -> AuditThresholds:
    """Thresholds from the calibration file, or the code defaults when it is absent."""
    target = path or calibration_path()
    try:
        raw: dict[str, Any] = json.loads(target.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return AuditThresholds()
    known = {f.name for f in fields(AuditThresholds)}
    values = {k: v for k, v in raw.get("thresholds", {}).items() if k in known}
    try:
        return AuditThresholds(**values)
    except (TypeError, ValueError):
        return AuditThresholds()


def write_calibration(path: Path, thresholds: AuditThresholds, report: dict[str, Any]) -> None:
    """Write thresholds and their figures as stable, readable JSON."""
    data = {"thresholds": asdict(thresholds), **report}
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
