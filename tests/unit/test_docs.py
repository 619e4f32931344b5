"""The README stays honest: every setting and every command it must mention is there."""

from __future__ import annotations

from pathlib import Path

import click

from evidence_desk.cli import main
from evidence_desk.settings import Settings

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")


def test_every_setting_is_documented_with_its_variable() -> None:
    missing = [
        name for name in Settings.model_fields if f"`EVIDENCE_DESK_{name.upper()}`" not in README
    ]
    assert missing == []


def test_every_setting_has_a_description() -> None:
    assert all(f.description for f in Settings.model_fields.values())


def test_every_command_is_documented() -> None:
    commands = []
    for name, cmd in main.commands.items():
        if isinstance(cmd, click.Group):
            commands += [f"{name} {sub}" for sub in cmd.commands]
        else:
            commands.append(name)
    missing = [c for c in commands if f"evidence-desk {c}" not in README]
    assert missing == []


def test_readme_starts_with_the_two_commands_ci_runs() -> None:
    first_block = README.split("```")[1]
    lines = [ln.split("#")[0].strip() for ln in first_block.splitlines() if ln.strip()]
    assert lines[1:] == ["make demo", "make test"]
    ci = (Path(__file__).resolve().parents[2] / ".ci" / "run").read_text(encoding="utf-8")
    assert "\nmake test\n" in ci
