"""The repository and configuration a git guard runs against, and its deadline."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from reflection_core import config, paths
from reflection_core.hookio import (
    DEFAULT_DEADLINE_S,
    HookDeadline,
    deadline,
    env_deadline_seconds,
)


def repo_and_config(refused: str = "commit") -> tuple[Path, config.Config] | int:
    """(root, config) for the current repo, or the exit code to return right away.

    Outside a repository there is nothing to check (0); a bad config file refuses the
    `refused` action (2) with a message naming the file, the problem and the fix.
    """
    root = paths.find_repo_root()
    if root is None:
        sys.stderr.write("reflection: not inside a git repository; nothing to check.\n")
        return 0
    try:
        return root, commit_config(root)
    except config.ConfigError as exc:
        sys.stderr.write(config_refusal(exc, refused) + "\n")
        return 2


def config_refusal(exc: config.ConfigError, refused: str) -> str:
    """What a guard says when it cannot read the config: it refuses (fails closed, since
    a broken file must not switch the guards off) and names the file to fix."""
    staged = " (and `git add` it when it is staged)" if "commit" in refused else ""
    again = "try again" if " or " in refused else f"{refused} again"
    skip = "--no-verify" if " or " in refused else f"`git {refused} --no-verify`"
    return (
        f"reflection: configuration error: {exc}\n"
        f"reflection: refusing the {refused} (fails closed): the configuration cannot be "
        "read, so the guards cannot tell what to check.\n"
        f"  Fix {exc.source}{staged}, then {again}; `reflection doctor` checks it.\n"
        f"  (Emergency only: {skip} skips every check.)"
    )


def commit_config(root: Path) -> config.Config:
    """The config a commit is checked against: the one being committed. When the working
    `.reflection.yaml` or `[tool.reflection]` differs from the staged one (an unstaged
    edit, an untracked or git-ignored file), the staged version governs, and the guard
    says so: an edit nobody commits cannot switch a guard off."""
    working = config.load(root)
    staged = _staged_config(root)
    if working.source is None and staged is None:
        return working
    if (
        working.source is not None
        and staged is not None
        and staged[0] == working.source.name
        and config.read_config_bytes(working.source) == staged[1]
    ):
        return working
    what = (
        f"{working.source.name} differs from the staged one"
        if working.source
        else "a config is staged but the working tree has none"
    )
    sys.stderr.write(f"reflection: note: {what}; checking the commit against the staged config.\n")
    if staged is None:
        return config.Config(root=root)
    return config.load_bytes(root / staged[0], staged[1], root)


def _staged_config(root: Path) -> tuple[str, bytes] | None:
    """(file name, bytes) of the config in the index git commits from (GIT_INDEX_FILE in
    hooks): `.reflection.yaml`, else a pyproject.toml with [tool.reflection]."""
    from reflection_core.guards import gitcmd

    names = (config.CONFIG_FILENAME, config.PYPROJECT)
    listed = gitcmd.run(root, ["ls-files", "-z", "--", *(f":(literal){n}" for n in names)])
    return _config_blob(root, ":", [n for n in names if n in listed.split("\0")])


def _committed_config(root: Path, rev: str) -> tuple[str, bytes] | None:
    """(file name, bytes) of the config in commit `rev`, or None (no config, or a commit
    this clone does not have)."""
    from reflection_core.guards import gitcmd

    names = (config.CONFIG_FILENAME, config.PYPROJECT)
    listed = gitcmd.run(root, ["ls-tree", "-z", "--name-only", rev, "--", *names], check=False)
    return _config_blob(root, f"{rev}:", [n for n in names if n in listed.split("\0")])


def _config_blob(root: Path, where: str, present: list[str]) -> tuple[str, bytes] | None:
    from reflection_core.guards import gitcmd

    for name in present:
        raw = gitcmd.run(root, ["cat-file", "blob", f"{where}{name}"])
        raw_bytes = raw.encode("utf-8", "surrogateescape")
        if name == config.CONFIG_FILENAME or b"[tool.reflection" in raw_bytes:
            return name, raw_bytes
    return None


def _agreed_config(root: Path, rev: str) -> config.Config | None:
    """The config commit `rev` holds (the defaults when it has none or one that does not
    parse), None when this clone does not have the commit."""
    from reflection_core.guards import gitcmd

    if gitcmd.run(root, ["cat-file", "-t", rev], check=False).strip() != "commit":
        return None
    found = _committed_config(root, rev)
    if found is None:
        return config.Config(root=root)
    try:
        return config.load_bytes(root / found[0], found[1], root)
    except config.ConfigError:
        return config.Config(root=root)


def push_config(root: Path, agreed_revs: list[str]) -> config.Config:
    """The config a push is checked against: the working one, with every branch that a
    committed config protects added back, and only the `guards.allow_push` entries every
    committed config lists: the config at HEAD and at each remote tip the push replaces
    (what the remote already agreed on; a commit without a config protects the defaults
    and allows nobody). An edit in the working tree, or one committed on the way, can
    neither unprotect a branch nor allow an identity for the push that carries it."""
    working = config.load(root)
    protected = list(working.get("protected_branches"))
    allowed = list(working.get("guards.allow_push"))
    added: list[tuple[str, str]] = []
    for rev in dict.fromkeys(["HEAD", *agreed_revs]):
        agreed = _agreed_config(root, rev)
        if agreed is None:
            continue
        for rule in agreed.get("protected_branches"):
            if rule not in protected:
                protected.append(rule)
                added.append((rule, rev[:12]))
        allowed, _ = _listed_by(allowed, agreed)
    dropped = [e for e in working.get("guards.allow_push") if e not in allowed]
    _note_narrowed(added, dropped)
    if not added and not dropped:
        return working
    data = dict(working.data, protected_branches=protected)
    data["guards"] = dict(data.get("guards") or {}, allow_push=allowed)
    return config.Config(data=data, source=working.source, root=root)


def agreed_allow_push(root: Path, before: str | None, allow: list[str]) -> tuple[list[str], str]:
    """In CI, the `guards.allow_push` entries the pushed branch already agreed on: those the
    config at `before` (the branch's tip before the push) lists too, and a note when any
    entry does not count. Without that commit in the clone nothing counts: a push cannot
    allow its own pusher."""
    agreed = _agreed_config(root, before) if before and before.strip("0") else None
    if agreed is None:
        where = f"the branch's previous tip {before[:12]}" if before else "the push's `before`"
        return [], (
            f"guards.allow_push is not honoured: {where} is not in this clone, so the list "
            "the branch agreed on cannot be read (check out with fetch-depth: 2 or more)"
        )
    kept, dropped = _listed_by(allow, agreed)
    if not dropped:
        return kept, ""
    return kept, (
        "guards.allow_push entries added by this push do not count for it: "
        + ", ".join(repr(e) for e in dropped)
    )


def agreed_protected(root: Path, before: str | None, pushed: list[str]) -> tuple[list[str], str]:
    """In CI, the protected branches a push is checked against: those the pushed config
    protects plus those the config at `before` (the branch's tip before the push) protects,
    as the local push guard adds back what the remote's config protects, and a note when
    that adds any. Without that commit (a shallow clone, or a push that creates the branch)
    the defaults stand in for it, and the note says so: a push cannot unprotect a branch
    for itself."""
    agreed = _agreed_config(root, before) if before and before.strip("0") else None
    if agreed is None:
        defaults = config.Config(root=root).get("protected_branches")
        rules, _ = protected_union(pushed, defaults)
        named = ", ".join(repr(r) for r in defaults)
        why, advice = _unread_before(before)
        return rules, (
            f"{why}: checking protected_branches as this push's config plus the defaults "
            f"({named}){advice}"
        )
    rules, added = protected_union(pushed, agreed.get("protected_branches"))
    if not added:
        return rules, ""
    return rules, (
        "protected_branches rules this push removes still apply to it (the config at the "
        f"branch's previous tip {before[:12] if before else '?'} protects them): "
        + ", ".join(repr(r) for r in added)
    )


def _unread_before(before: str | None) -> tuple[str, str]:
    """Why the config at the push's `before` cannot be read, and what would let it be."""
    if before and not before.strip("0"):
        return "this push creates the branch, so it has no previous tip", ""
    deeper = "; check out with fetch-depth: 2 or more so the rules the branch had are read"
    if not before:
        return "the push's `before` is unknown (no readable GITHUB_EVENT_PATH)", ""
    return f"the branch's previous tip {before[:12]} is not in this clone", deeper


def protected_union(pushed: list[str], agreed: list[str]) -> tuple[list[str], list[str]]:
    """The pushed rules plus the agreed ones it lacks, and those it lacked."""
    added = [r for r in agreed if r not in pushed]
    return [*pushed, *added], added


def _listed_by(allow: list[str], agreed: config.Config) -> tuple[list[str], list[str]]:
    """The `allow` entries the agreed config's `guards.allow_push` lists too, and the rest."""
    listed = agreed.get("guards.allow_push")
    return [e for e in allow if e in listed], [e for e in allow if e not in listed]


def _note_narrowed(added: list[tuple[str, str]], dropped: list[str]) -> None:
    """Say on stderr which working-config entries the committed configs overrule."""
    if added:
        named = ", ".join(f"{rule!r} (at {rev})" for rule, rev in added)
        sys.stderr.write(
            "reflection: note: the working config does not protect "
            f"{named}, which the committed config protects (a commit without one protects "
            "the defaults); checking the push against both.\n"
        )
    if dropped:
        sys.stderr.write(
            "reflection: note: not counting guards.allow_push "
            f"{', '.join(repr(e) for e in dropped)}: the config the remote branch holds (or "
            "the one at HEAD) does not list it; an entry counts once it reaches the branch "
            "through a pull request.\n"
        )


def deadline_seconds(root: Path | None) -> float:
    """`REFLECTION_HOOK_DEADLINE` (seconds; 0 turns it off), else `hooks.deadline_seconds`
    of the repo's config, else the default (the config is read under that default)."""
    from_env = env_deadline_seconds()
    if from_env is not None:
        return from_env
    if root is None:
        return DEFAULT_DEADLINE_S
    try:
        with deadline(DEFAULT_DEADLINE_S):
            return float(config.load(root).get("hooks.deadline_seconds"))
    except (Exception, HookDeadline):
        return DEFAULT_DEADLINE_S  # a config problem is reported by the guard itself


def within_deadline(check: Callable[[], int], refused: str) -> int:
    """Run a git guard's own checks under the hook deadline. When it passes, the guard
    refuses (`refused`: "commit" or "push") and says why: a guard fails closed."""
    bound = deadline(deadline_seconds(paths.find_repo_root()))
    try:
        with bound:
            status = check()
    except HookDeadline as exc:
        sys.stderr.write(f"reflection: {exc}; refusing the {refused} (fails closed).\n")
        return 1
    if bound.expired:  # the deadline's exception was swallowed where Python ignores it
        sys.stderr.write(f"reflection: {bound.message()}; refusing the {refused} (fails closed).\n")
        return 1
    return status
