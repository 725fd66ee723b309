"""The repo installs as a Claude Code plugin: manifest and hooks.json point at real things."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path

import pytest

from reflection_core.hook_dispatch import AGENT_EVENTS
from reflection_core.install.merge import claude_hook_entries

ROOT = Path(__file__).resolve().parents[2]


def test_plugin_manifest_names_the_plugin_and_leaves_the_standard_hooks_file_implicit() -> None:
    manifest = json.loads((ROOT / ".claude-plugin" / "plugin.json").read_text())
    assert manifest["name"] == "reflection"
    # Claude Code loads hooks/hooks.json by itself; naming it again fails on older CLIs.
    assert "hooks" not in manifest
    assert (ROOT / "hooks" / "hooks.json").is_file()


def test_plugin_hooks_call_the_launcher_with_known_events() -> None:
    hooks = json.loads((ROOT / "hooks" / "hooks.json").read_text())["hooks"]
    launcher = ROOT / "hooks" / "reflection-hook"
    assert os.access(launcher, os.X_OK)
    for groups in hooks.values():
        for group in groups:
            for hook in group["hooks"]:
                path, event = shlex.split(hook["command"])
                assert path == "${CLAUDE_PLUGIN_ROOT}/hooks/reflection-hook"
                assert hook["command"].startswith('"${CLAUDE_PLUGIN_ROOT}/')  # a path with spaces
                assert event in AGENT_EVENTS


def test_plugin_and_init_register_the_same_events() -> None:
    plugin_events = set(json.loads((ROOT / "hooks" / "hooks.json").read_text())["hooks"])
    assert plugin_events == {entry.event for entry in claude_hook_entries()}


def test_launcher_falls_back_to_the_checkout_without_an_installed_cli(tmp_path: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "REFLECTION_STATE_DIR": str(tmp_path)}
    proc = subprocess.run(
        ["sh", str(ROOT / "hooks" / "reflection-hook"), "no-such-event"],
        input="{}",
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert proc.returncode == 2
    assert "unknown event 'no-such-event'" in proc.stderr


def test_claude_plugin_validate_passes_with_no_warnings() -> None:
    claude = os.environ.get("REFLECTION_E2E_CLAUDE")
    if not claude or not Path(claude).exists():
        pytest.skip("REFLECTION_E2E_CLAUDE does not name the Claude Code CLI")
    proc = subprocess.run(
        [claude, "plugin", "validate", str(ROOT)], capture_output=True, text=True, timeout=120
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "Validation passed" in out
    assert "warning" not in out.lower(), out
