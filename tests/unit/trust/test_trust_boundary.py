"""`trust/` stays small and pure: it imports only the stdlib, pydantic, types and cryptography."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import evidence_desk.trust

TRUST = Path(evidence_desk.trust.__file__).parent
ALLOWED_PACKAGES = {"pydantic", "cryptography"}
ALLOWED_PROJECT = {"evidence_desk.types"}


def imports(path: Path) -> list[str]:
    """Absolute module names imported by a trust module (relative ones resolved)."""
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                names.append(node.module or "")
            else:
                base = ["evidence_desk", "trust"][: 3 - node.level]
                names.append(".".join([*base, *([node.module] if node.module else [])]))
    return names


def allowed(name: str) -> bool:
    top = name.split(".")[0]
    if top == "evidence_desk":
        return name in ALLOWED_PROJECT or name.startswith("evidence_desk.trust")
    return top in sys.stdlib_module_names or top in ALLOWED_PACKAGES


def test_trust_imports_only_the_allowed_modules() -> None:
    modules = sorted(TRUST.glob("*.py"))
    assert len(modules) >= 8
    offending = {
        f"{path.name}: {name}" for path in modules for name in imports(path) if not allowed(name)
    }
    assert offending == set()


def test_the_checker_catches_a_forbidden_import(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("from ..agents import base\nimport torch\nfrom .text import x\n")
    assert [n for n in imports(bad) if not allowed(n)] == ["evidence_desk.agents", "torch"]


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
    assert all(m == "evidence_desk" or allowed(m) for m in project)
