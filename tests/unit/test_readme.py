"""The README documents every hook id, every command and every config key."""

from __future__ import annotations

from pathlib import Path

import yaml

from reflection_core.cli.main import COMMANDS
from reflection_core.config import reference_markdown

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_every_hook_id_appears_in_the_readme() -> None:
    manifest = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    ids = [hook["id"] for hook in manifest]
    assert ids
    for hook_id in ids:
        assert f"`{hook_id}`" in README, hook_id


def test_every_cli_command_appears_in_the_readme() -> None:
    for name in COMMANDS:
        assert f"reflection {name}" in README, name


def test_config_reference_is_generated_from_the_schema() -> None:
    start = README.index("<!-- config-reference:start -->\n") + len(
        "<!-- config-reference:start -->\n"
    )
    end = README.index("<!-- config-reference:end -->")
    assert README[start:end] == reference_markdown(), (
        "README config reference is stale; regenerate it from "
        "reflection_core.config.reference_markdown()"
    )
