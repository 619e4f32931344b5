"""One archive, one set of drafts and one run of each auditor for the whole session.

The archive (ten addresses from the `sotu` package, and ten digital.gov articles when the
shared data folder is present) is ingested once into a temporary data dir. Its embeddings
are cached in pytest's cache folder (`.pytest_cache/d/adversarial-embeddings`, ignored by
git), so only the first run on a machine pays for the model; later runs ingest in seconds.

Every draft is checked with the always-supported auditor. The offline auditor is slower
(a few tenths of a second a draft), so the tests run it on a fixed sample of each family
(`OFFLINE_EVERY`); `python -m bench.adversarial` runs it on every draft.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import coverage
import pytest

from evidence_desk.desk import Desk

from .cases import FAITHFUL, Case
from .corpus import DIGITALGOV, DIGITALGOV_PARTS, SOTU, SOTU_IDS, DocView, build_desk, views
from .hostile import generate
from .judge import Outcome, SupportedAuditor, run

ROOT_CONFTEST = Path(__file__).resolve().parents[1] / "conftest.py"
# The offline auditor checks every n-th draft of each (archive, family) group.
OFFLINE_EVERY = {FAITHFUL: 3, "hostile": 6}
SUPPORTED, OFFLINE = "supported-for-all", "offline"


@dataclass(frozen=True)
class Archive:
    desk: Desk
    pools: Mapping[str, Sequence[DocView]]


@dataclass(frozen=True)
class Results:
    """Outcomes by auditor (`SUPPORTED`, `OFFLINE`), in case order."""

    cases: Sequence[Case]
    outcomes: Mapping[str, Sequence[Outcome]]

    def of(self, auditor: str, archive: str, family: str) -> list[Outcome]:
        return [
            o
            for o in self.outcomes[auditor]
            if o.case.archive == archive and o.case.family == family
        ]


@pytest.fixture(scope="session")
def shared_data_or_skip(request: pytest.FixtureRequest) -> Callable[..., Path]:
    """`shared_data_or_skip` of `tests/conftest.py` (pytest registers it by its path)."""
    root = request.config.pluginmanager.get_plugin(str(ROOT_CONFTEST))
    assert root is not None, f"{ROOT_CONFTEST} is not loaded"
    helper: Callable[..., Path] = root.shared_data_or_skip
    return helper


@pytest.fixture(scope="session")
def adversarial_archive(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Archive:
    root = request.config.pluginmanager.get_plugin(str(ROOT_CONFTEST))
    assert root is not None, f"{ROOT_CONFTEST} is not loaded"
    news = Path(root.SHARED_DATA).joinpath(*DIGITALGOV_PARTS)
    pytest_cache = getattr(request.config, "cache", None)  # absent with -p no:cacheprovider
    cache = (
        pytest_cache.mkdir("adversarial-embeddings")
        if pytest_cache is not None
        else tmp_path_factory.mktemp("embedding-cache")
    )
    home = tmp_path_factory.mktemp("adversarial") / "home"
    desk, article_ids = build_desk(home, Path(cache), news if news.exists() else None)
    pools = {SOTU: views(desk, SOTU, SOTU_IDS)}
    if article_ids:
        pools[DIGITALGOV] = views(desk, DIGITALGOV, article_ids)
    return Archive(desk, pools)


def offline_sample(cases: Sequence[Case]) -> list[Case]:
    """Every n-th case of each (archive, family) group, in order."""
    seen: dict[tuple[str, str], int] = {}
    out = []
    for c in cases:
        i = seen[(c.archive, c.family)] = seen.get((c.archive, c.family), -1) + 1
        if i % OFFLINE_EVERY[FAITHFUL if c.family == FAITHFUL else "hostile"] == 0:
            out.append(c)
    return out


@contextmanager
def untraced() -> Iterator[None]:
    """Pause the coverage measurement `make test` runs, if any.

    The drafts are a measurement of the contract, not its coverage: tests/unit covers every
    line and branch of trust/ on its own, and tracing thousands of drafts through it would
    triple the time they take.
    """
    measuring = coverage.Coverage.current()
    if measuring is None:
        yield
        return
    measuring.stop()
    try:
        yield
    finally:
        measuring.start()


@pytest.fixture(scope="session")
def results(adversarial_archive: Archive) -> Results:
    desk = adversarial_archive.desk
    cases = generate(adversarial_archive.pools)
    reads = desk.question_reader()
    with untraced():
        supported = run(
            cases, desk.store, SupportedAuditor(), desk.policy, desk.settings, False, reads
        )
        offline = run(
            offline_sample(cases),
            desk.store,
            desk.agents.auditor,
            desk.policy,
            desk.settings,
            False,
            reads,
        )
    return Results(cases, {SUPPORTED: supported, OFFLINE: offline})
