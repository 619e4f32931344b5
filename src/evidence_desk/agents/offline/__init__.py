"""The offline engine: planner, answerer and auditor that need no model provider.

A real, deterministic product feature: it plans with rules, answers by quoting the
best-supported sentences, and audits with lexical, embedding and number/negation checks.
"""

from .answerer import OfflineAnswerer
from .auditor import OfflineAuditor
from .calibration import AuditThresholds, load_thresholds
from .embedcache import CachedEmbedder
from .planner import OfflinePlanner

__all__ = [
    "AuditThresholds",
    "CachedEmbedder",
    "OfflineAnswerer",
    "OfflineAuditor",
    "OfflinePlanner",
    "load_thresholds",
]
