"""Trust in a repository's own configuration before hooks run its commands.

A cloned repository's `.reflection.yaml` can list gate and fix commands; with
`stop.run_gates` a globally installed Stop hook would run them in any repo the
agent opens. As with pre-commit and Codex hooks, the user trusts a repository's
config once (`reflection trust`; `reflection init` only says so); trust is keyed by the
repository path and the config file's content hash, so any edit to the config
needs trust again. Untrusted commands are not run, and the user is told once per
config version in one line. State lives in `<state dir>/trust.json`.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from reflection_core import paths
from reflection_core.atomic import locked, write_json_atomic

TRUST_FILE = "trust.json"


def repo_commands(cfg: Any) -> list[str]:
    """Every command the repo's config would make a hook run (gates and their fixes)."""
    commands: list[str] = []
    for gate in cfg.get("gates") or []:
        commands.append(str(gate.get("run", "")))
        commands.extend(str(fix) for fix in gate.get("fix") or [])
    return [c for c in commands if c.strip()]


def config_hash(cfg: Any) -> str | None:
    """The content hash of the config file, or None when the config has no file."""
    source = getattr(cfg, "source", None)
    if source is None:
        return None
    try:
        return hashlib.sha256(Path(source).read_bytes()).hexdigest()
    except OSError:
        return None


def _key(root: Path) -> str:
    try:
        return str(root.resolve())
    except (OSError, RuntimeError):
        return str(root)


def _store_path() -> Path:
    return paths.state_dir() / TRUST_FILE


def _read() -> dict[str, Any]:
    try:
        data = json.loads(_store_path().read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


def _update(root: Path, **fields: str) -> None:
    store = _store_path()
    with locked(store):
        data = _read()
        entry = data.get(_key(root))
        entry = dict(entry) if isinstance(entry, dict) else {}
        entry.update(fields)
        data[_key(root)] = entry
        write_json_atomic(store, data)


def is_trusted(root: Path, cfg: Any) -> bool:
    """True when the config runs no commands or is not a repository file (built in code),
    or when the user trusted this exact config here."""
    if not repo_commands(cfg) or getattr(cfg, "source", None) is None:
        return True
    digest = config_hash(cfg)
    entry = _read().get(_key(root))
    return digest is not None and isinstance(entry, dict) and entry.get("trusted") == digest


def trust(root: Path, cfg: Any) -> str | None:
    """Record trust in the current config of `root`; returns the hash trusted."""
    digest = config_hash(cfg)
    if digest is not None:
        _update(root, trusted=digest)
    return digest


def untrusted_notice(root: Path, cfg: Any) -> str | None:
    """The one line telling the user why the repo's commands did not run; None once told
    for this version of the config (or when the notice cannot be recorded twice)."""
    digest = config_hash(cfg) or ""
    entry = _read().get(_key(root))
    if isinstance(entry, dict) and entry.get("told") == digest:
        return None
    try:
        _update(root, told=digest)
    except OSError:
        pass  # cannot remember having told: telling again is the safe side
    count = len(repo_commands(cfg))
    return (
        f"reflection: {root}'s config asks to run {count} command(s) that you have not "
        "trusted; they did not run. Review them with `reflection doctor`, then run "
        "`reflection trust`."
    )
