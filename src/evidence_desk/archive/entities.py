"""Names the archive knows, mapped to the time windows its documents cover for each.

The planner turns "What did Lincoln say about ...?" into a time window without searching:
it looks the name up here. A name maps to several windows when several people share it
("roosevelt" -> Theodore's and Franklin D.'s addresses), or when one person's documents are
split (a president's non-consecutive terms, told apart by `meta["president_id"]`).

Sources of names, per document: `meta["president"]` (full name) with `meta["president_last"]`
and `meta["president_id"]`; and each name in `meta["author"]` (names separated by `; `) that
reads as a person's (`looks_like_a_person`: a slug such as `amy-ashida` reads as "amy
ashida"; `18f-team` or a one-word user name is no person, and names no window).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from ..types import TimeWindow


class Dated(Protocol):
    """Anything with a date and string metadata: a `Document` or a stored document's row."""

    @property
    def date(self) -> str | None: ...

    @property
    def meta(self) -> Mapping[str, str]: ...


@dataclass
class _Group:
    label: str
    names: set[str] = field(default_factory=set)
    first: str = "9999-12-31"
    last: str = "0000-01-01"


def _groups_of(doc: Dated) -> list[tuple[str, str, set[str]]]:
    """(group key, label, lower-cased names) for each person a document is by or about."""
    meta = doc.meta
    found: list[tuple[str, str, set[str]]] = []
    president = meta.get("president", "").strip()
    if president:
        names = {president.lower()}
        last = meta.get("president_last", "").strip()
        if last:
            names.add(last.lower())
        key = meta.get("president_id", "").strip() or president.lower()
        found.append((f"president:{key}", president, names))
    for author in meta.get("author", "").split(";"):
        name = " ".join(author.replace("-", " ").split())
        if looks_like_a_person(name):
            found.append((f"author:{name.lower()}", name, {name.lower()}))
    return found


# Words that make an author field a team, an office or a site rather than a person.
_NOT_PERSON_WORDS = frozenset(
    """team teams staff office offices gov digitalgov program programs group editor editors
    agency center centre council community lab labs usa us federal service services news
    blog admin administrator contributor contributors guest web the of and for department
    division initiative project network partners""".split()
)


def looks_like_a_person(name: str) -> bool:
    """Two to four words of letters, none of them a team, office or site word: "Amy
    Ashida" or "amy-ashida" is a person; "18f-team", "aids-gov" and the one-word user name
    "bbrantley" are not (a question naming "Gov" or "team" is not about their posts)."""
    parts = name.lower().split()
    return (
        2 <= len(parts) <= 4
        and all(p.replace("'", "").replace(".", "").replace(",", "").isalpha() for p in parts)
        and not any(p in _NOT_PERSON_WORDS for p in parts)
    )


def entities_from_documents(docs: Iterable[Dated]) -> dict[str, tuple[TimeWindow, ...]]:
    """Lower-cased name -> windows (first to last document date), sorted by start."""
    groups: dict[str, _Group] = {}
    for doc in docs:
        if not doc.date:
            continue
        day = doc.date[:10]
        for key, label, names in _groups_of(doc):
            group = groups.setdefault(key, _Group(label=label))
            group.names |= names
            group.first = min(group.first, day)
            group.last = max(group.last, day)
    windows: dict[str, list[TimeWindow]] = {}
    for group in groups.values():
        window = TimeWindow(start=group.first, end=group.last, label=group.label)
        for name in group.names:
            windows.setdefault(name, []).append(window)
    return {
        name: tuple(sorted(found, key=lambda w: (w.start, w.end, w.label)))
        for name, found in sorted(windows.items())
    }
