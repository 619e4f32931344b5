"""The floors of the package and the imports that may never happen between them.

One table (`FORBIDDEN`) says which module may not import which, and why; one more rule says
no two packages import each other, even through others. Every import counts: at the top, under
`if TYPE_CHECKING:`, inside a function. A violation names the importing file and line. The
checker takes a root path, so the tests run it on the real tree and on a planted one.
`trust/`, the publish-safety boundary, has its own allow-list: the standard library,
pydantic, cryptography and `evidence_desk.types`.
"""

from __future__ import annotations

import ast
import itertools
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import evidence_desk

ROOT = Path(evidence_desk.__file__).parent
PACKAGE = "evidence_desk"

_BELOW_THE_APP = ("store", "runs", "agents", "retrieval", "archive", "sources", "trust", "judgment")

# (importer prefix, forbidden import prefix, why); a prefix matches the module or its children.
FORBIDDEN: tuple[tuple[str, str, str], ...] = (
    *(
        (
            who,
            f"{PACKAGE}.{floor}",
            "the interface reaches the application only through desk's face",
        )
        for who in (f"{PACKAGE}.server", f"{PACKAGE}.cli")
        for floor in _BELOW_THE_APP
    ),
    (
        f"{PACKAGE}.runs",
        f"{PACKAGE}.store.runs.RunRecords",
        "runs/ reaches the run records through RunLog",
    ),
    (
        f"{PACKAGE}.runs",
        f"{PACKAGE}.store.snapshots.Snapshots",
        "runs/ reaches snapshots through EffectLog",
    ),
    (f"{PACKAGE}.runs", f"{PACKAGE}.store.sqlite", "runs/ imports no concrete store class"),
    (f"{PACKAGE}.runs", f"{PACKAGE}.store.accounts", "runs/ knows no readers' accounts"),
    *(
        (f"{PACKAGE}.runs", f"{PACKAGE}.{above}", "runs/ is below the application")
        for above in ("desk", "server", "cli")
    ),
    *(
        (f"{PACKAGE}.store", f"{PACKAGE}.{above}", "the store is a floor: it imports none above it")
        for above in ("runs", "agents", "desk", "server", "cli", "sources", "retrieval")
    ),
    *(
        (f"{PACKAGE}.{floor}", f"{PACKAGE}.{above}", f"{floor}/ is below {above}/")
        for floor, aboves in (
            ("agents", ("runs", "desk", "server", "cli", "store", "archive", "sources")),
            ("retrieval", ("runs", "agents", "desk", "server", "cli", "archive", "sources")),
            ("archive", ("runs", "agents", "desk", "server", "cli", "sources")),
            ("sources", ("runs", "agents", "desk", "server", "cli", "store")),
            ("evaluation", ("runs", "agents", "desk", "server", "cli", "store", "retrieval")),
            ("judgment", ("runs", "desk", "server", "cli", "store")),
        )
        for above in aboves
    ),
    (
        f"{PACKAGE}.desk.workspace",
        f"{PACKAGE}.desk.facade",
        "the workspace is built on the parts, never on Desk",
    ),
)
# (module prefix, the only importers allowed, why): a seam with one door.
ONLY_FROM: tuple[tuple[str, tuple[str, ...], str], ...] = (
    (
        f"{PACKAGE}.store.sqlite",
        (f"{PACKAGE}.store", f"{PACKAGE}.desk.parts"),
        "only the desk's parts name a store class; the rest is handed a Store",
    ),
)
TRUST_ALLOWED_PACKAGES = {"pydantic", "cryptography"}
TRUST_ALLOWED_PROJECT = {f"{PACKAGE}.types"}


@dataclass(frozen=True)
class Import:
    importer: str  # the importing module's dotted name
    path: Path
    line: int
    name: str  # the imported module (or module.attribute for `from m import a`)

    def at(self, root: Path) -> str:
        return f"{self.path.relative_to(root.parent)}:{self.line}"


def module_name(root: Path, path: Path) -> str:
    parts = [root.name, *path.relative_to(root).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(root: Path) -> list[Import]:
    """Every import of every module under `root`, relative ones resolved. `from m import a`
    counts as importing `m.a` (a submodule or a name of `m`: a prefix rule on `m` matches
    either)."""
    found = []
    for path in sorted(root.rglob("*.py")):
        me = module_name(root, path)
        package = me if path.name == "__init__.py" else me.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found += [Import(me, path, node.lineno, a.name) for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    module = ".".join([*base, *([node.module] if node.module else [])])
                else:
                    module = node.module or ""
                found += [Import(me, path, node.lineno, f"{module}.{a.name}") for a in node.names]
    return found


def _within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def _past_the_face(root: Path, imp: Import) -> bool:
    """True when a module outside desk/ imports one of desk's own modules (`desk.facade`,
    `desk.parts`, `desk.workspace`, ...) instead of a name of its face, `desk/__init__.py`."""
    desk = f"{PACKAGE}.desk"
    if _within(imp.importer, desk) or not _within(imp.name, desk) or imp.name == desk:
        return False
    first = imp.name[len(desk) + 1 :].split(".")[0]
    return (root / "desk" / f"{first}.py").exists() or (root / "desk" / first).is_dir()


def _trust_allowed(name: str) -> bool:
    top = name.split(".")[0]
    if top == PACKAGE:
        return _within(name, f"{PACKAGE}.trust") or any(
            _within(name, a) for a in TRUST_ALLOWED_PROJECT
        )
    return top in sys.stdlib_module_names or top in TRUST_ALLOWED_PACKAGES


def violations(root: Path) -> list[str]:
    """Each forbidden import under `root`: file:line, the import, and why."""
    out = []
    for imp in imports(root):
        for who, what, why in FORBIDDEN:
            if _within(imp.importer, who) and _within(imp.name, what):
                out.append(f"{imp.at(root)}: {imp.importer} imports {imp.name}: {why}")
        for what, allowed, why in ONLY_FROM:
            if _within(imp.name, what) and not any(_within(imp.importer, a) for a in allowed):
                out.append(f"{imp.at(root)}: {imp.importer} imports {imp.name}: {why}")
        if _within(imp.importer, f"{PACKAGE}.trust") and not _trust_allowed(imp.name):
            out.append(f"{imp.at(root)}: {imp.importer} imports {imp.name}: trust/ stays pure")
        if _past_the_face(root, imp):
            out.append(f"{imp.at(root)}: {imp.importer} imports {imp.name}: only desk's face")
    return out


def unit(name: str) -> str | None:
    """The package a module belongs to (`evidence_desk.runs.loop` → `runs`); a top-level
    module is its own unit; None outside the project."""
    parts = name.split(".")
    return parts[1] if parts[0] == PACKAGE and len(parts) > 1 else None


def package_cycles(root: Path) -> list[str]:
    """Import cycles between packages, each as its chain with one import per edge."""
    known = {module_name(root, p) for p in root.rglob("*.py")}
    edges: dict[str, dict[str, Import]] = {}
    for imp in imports(root):
        target = imp.name if imp.name in known else imp.name.rpartition(".")[0]
        a, b = unit(imp.importer), unit(target)
        if a and b and a != b and target in known:
            edges.setdefault(a, {}).setdefault(b, imp)
    cycles: list[str] = []
    seen: set[frozenset[str]] = set()

    def walk(start: str, node: str, chain: list[str]) -> None:
        for nxt in sorted(edges.get(node, {})):
            if nxt == start:
                loop = [*chain, start]
                key = frozenset(loop)
                if key not in seen:
                    seen.add(key)
                    steps = [
                        f"{x} → {y} ({edges[x][y].at(root)})" for x, y in itertools.pairwise(loop)
                    ]
                    cycles.append("; ".join(steps))
            elif nxt not in chain and nxt > start:
                walk(start, nxt, [*chain, nxt])

    for start in sorted(edges):
        walk(start, start, [start])
    return cycles


def desk_reaches(paths: list[Path], base: Path, member: Callable[[str], bool]) -> list[str]:
    """Each `….desk.name` whose member name `member` picks. A name that ends in `desk`
    (`desk`, `self.desk`, `app.state.desk`) is taken to be a `Desk`."""
    out = []
    for path in paths:
        found = []
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Attribute) and member(node.attr)):
                continue
            holder = node.value
            name = holder.id if isinstance(holder, ast.Name) else getattr(holder, "attr", "")
            if name.lstrip("_") == "desk":
                found.append((node.lineno, f"{name}.{node.attr}"))
        out += [f"{path.relative_to(base)}:{line}: {what}" for line, what in sorted(found)]
    return out


def private_reaches(paths: list[Path], base: Path) -> list[str]:
    """Each `….desk._name` outside desk/: a private member of `Desk` reached from outside."""
    return desk_reaches(paths, base, lambda a: a.startswith("_") and not a.startswith("__"))


# What an interface may not read of a desk: its parts are the floors below, reached only
# through the desk's methods.
BELOW_THE_FACE = {"store", "parts"}


def test_no_forbidden_import_in_the_package() -> None:
    assert len(list(ROOT.rglob("*.py"))) > 100
    assert violations(ROOT) == []


def test_no_import_cycle_between_packages() -> None:
    assert package_cycles(ROOT) == []


def test_nothing_outside_desk_touches_a_private_member_of_desk() -> None:
    base = ROOT.parent.parent
    outside = [
        p
        for folder in (ROOT, base / "tests", base / "bench")
        for p in sorted(folder.rglob("*.py"))
        if not p.is_relative_to(ROOT / "desk")
    ]
    assert len(outside) > 200
    assert private_reaches(outside, base) == []


def test_the_private_member_check_finds_a_planted_reach(tmp_path: Path) -> None:
    planted = tmp_path / "x.py"
    planted.write_text("def f(app, desk):\n    desk._state\n    app.state.desk._executor.run()\n")
    assert private_reaches([planted], tmp_path) == ["x.py:2: desk._state", "x.py:3: desk._executor"]


def test_the_interfaces_reach_no_part_of_the_desk(tmp_path: Path) -> None:
    def below(paths: list[Path], base: Path) -> list[str]:
        return desk_reaches(paths, base, lambda a: a in BELOW_THE_FACE)

    interfaces = [*(ROOT / "server").rglob("*.py"), *(ROOT / "cli").rglob("*.py")]
    assert len(interfaces) > 10
    assert below(interfaces, ROOT.parent) == []
    planted = tmp_path / "x.py"
    planted.write_text(
        "def f(app, desk):\n    desk.store.count_passages()\n    app.state.desk.parts\n"
    )
    assert below([planted], tmp_path) == ["x.py:2: desk.store", "x.py:3: desk.parts"]


def test_the_checker_names_each_planted_import_with_its_file_and_line(tmp_path: Path) -> None:
    root = tmp_path / PACKAGE
    for package in ("server", "store", "runs", "trust", "desk", "desk/workspace"):
        (root / package).mkdir(parents=True)
        (root / package / "__init__.py").write_text("")
    (root / "__init__.py").write_text("")
    (root / "server" / "x.py").write_text("import json\nfrom ..store.accounts import User\n")
    (root / "trust" / "t.py").write_text(
        "from ..agents import base\nimport torch\nfrom .text import x\n"
    )
    (root / "desk" / "workspace" / "w.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..facade import Desk\n"
    )
    (root / "runs" / "r.py").write_text("def f():\n    from ..store import rows\n")
    (root / "store" / "rows.py").write_text("from ..runs import r\n")
    store_class = "from ..store.sqlite import ArchiveStore\n"
    (root / "desk" / "parts.py").write_text(store_class)  # the one door: allowed
    (root / "desk" / "d.py").write_text(store_class)
    found = violations(root)
    assert (
        f"{PACKAGE}/server/x.py:2: {PACKAGE}.server.x imports {PACKAGE}.store.accounts.User: "
        in found[2]
    )
    assert "only the desk's parts name a store class" in found[0]
    assert [v.split(": ")[0] for v in found] == [
        f"{PACKAGE}/desk/d.py:1",
        f"{PACKAGE}/desk/workspace/w.py:3",
        f"{PACKAGE}/server/x.py:2",
        f"{PACKAGE}/store/rows.py:1",
        f"{PACKAGE}/trust/t.py:1",
        f"{PACKAGE}/trust/t.py:2",
    ]
    (cycle,) = package_cycles(root)
    assert cycle == (
        f"runs → store ({PACKAGE}/runs/r.py:2); store → runs ({PACKAGE}/store/rows.py:1)"
    )


def test_importing_trust_loads_no_heavy_or_forbidden_module() -> None:
    code = (
        "import sys, evidence_desk.trust.receipts, evidence_desk.trust.checks;"
        "print(' '.join(sorted(sys.modules)))"
    )
    loaded = set(
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        ).stdout.split()
    )
    forbidden = {"torch", "tantivy", "numpy", "pydantic_ai", "langgraph", "openai", "anthropic"}
    assert "evidence_desk.trust.receipts" in loaded
    assert loaded & forbidden == set()
    project = {m for m in loaded if m.startswith("evidence_desk")}
    assert all(m == "evidence_desk" or _trust_allowed(m) for m in project)
