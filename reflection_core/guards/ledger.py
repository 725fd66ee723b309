"""The test-run ledger: one JSON line per test run, keyed by the tree it ran on.

Evidence, not claims: a stamp says which content (a git tree id) a command ran
on and how it ended. The ledger lives inside the git dir
(`git rev-parse --git-path reflection/ledger.jsonl`), never in the work tree.
Appends are single locked O_APPEND writes, so concurrent test runs lose nothing, and
each starts on its own line even after a torn last line (`atomic.append_line`);
when the file grows past `tests.max_entries` lines it is rewritten, under the
same lock, keeping the newest half. A corrupt line is skipped with a warning. A check
parses only the lines it needs (`Stamps`): a full ledger holds thousands of runs.

Every stamp is signed: an HMAC-SHA256 over its JSON with a per-user key kept
outside every repository (`$XDG_CONFIG_HOME/reflection/ledger.key`, mode 0600).
A line written by hand, copied from another machine or edited after the fact
does not verify and is never evidence (`Stamp.verified`). This stops casual
forgery (an agent appending a JSON line); it does not stop a process running as
the same user that reads the key. docs/git-guards.md says what the ledger proves.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path

from reflection_core import atomic, paths
from reflection_core.records import field, record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

LEDGER_RELPATH = ("reflection", "ledger.jsonl")
DEFAULT_MAX_ENTRIES = 5000


@record(eq=False)
class Stamp:
    """One recorded test run (equal to another when their recorded fields are)."""

    tree: str
    command: str
    exit_code: int
    passed: bool
    partial: bool = False
    counts: dict[str, int] = field(default_factory=dict)
    duration_s: float = 0.0
    timestamp: str = ""
    source: str = "run"  # "pytest" | "run" | "verify" | ...
    tool_versions: dict[str, str] = field(default_factory=dict)
    cwd: str = ""
    argv: list[str] = field(default_factory=list)  # how the runner was invoked
    notes: list[str] = field(default_factory=list)  # why a run is partial, recorded by the runner
    mac: str = ""

    def __post_init__(self) -> None:
        self._verified: bool | None = False  # None: not checked yet against `_key`
        self._key: bytes | None = None

    @property
    def verified(self) -> bool:
        """The signature checks out with this user's key. Not a recorded field. A stamp
        read from the ledger is checked when first asked: a check reads a few of the
        thousands of stamps a ledger holds, and signing each again was half of a read."""
        if self._verified is None:
            self._verified = verify(self, self._key)
        return self._verified

    @verified.setter
    def verified(self, value: bool) -> None:
        self._verified = value

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Stamp):
            return NotImplemented
        return self.payload() == other.payload()

    def payload(self) -> dict[str, Any]:
        """The recorded fields, containers copied: built by hand, as a stamp is signed
        again to be verified (`asdict` was half of reading a 5,000-stamp ledger)."""
        return {
            name: _copied(getattr(self, name))
            for name in type(self)._record_fields  # type: ignore[attr-defined]
        }

    def to_json(self) -> str:
        return json.dumps(self.payload(), ensure_ascii=False, sort_keys=True)

    def signing_bytes(self) -> bytes:
        data = self.payload()
        data.pop("mac")
        return json.dumps(data, ensure_ascii=False, sort_keys=True).encode("utf-8")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Stamp:
        """A stamp from a parsed line; raises ValueError when required fields are wrong."""
        tree, command, exit_code = data.get("tree"), data.get("command"), data.get("exit_code")
        if not isinstance(tree, str) or not tree or not isinstance(command, str):
            raise ValueError("missing tree or command")
        if isinstance(exit_code, bool) or not isinstance(exit_code, int):
            raise ValueError("exit_code is not an integer")
        counts = data.get("counts") or {}
        versions = data.get("tool_versions") or {}
        if not isinstance(counts, dict) or not isinstance(versions, dict):
            raise ValueError("counts/tool_versions are not objects")
        argv, notes = data.get("argv") or [], data.get("notes") or []
        if not isinstance(argv, list) or not isinstance(notes, list):
            raise ValueError("argv/notes are not lists")
        return cls(
            tree=tree,
            command=command,
            exit_code=exit_code,
            passed=exit_code == 0 and bool(data.get("passed", True)),
            partial=bool(data.get("partial", False)),
            counts={str(k): int(v) for k, v in counts.items()},
            duration_s=float(data.get("duration_s") or 0.0),
            timestamp=str(data.get("timestamp") or ""),
            source=str(data.get("source") or "run"),
            tool_versions={str(k): str(v) for k, v in versions.items()},
            cwd=str(data.get("cwd") or ""),
            argv=[str(a) for a in argv],
            notes=[str(n) for n in notes],
            mac=str(data.get("mac") or ""),
        )


def _copied(value: Any) -> Any:
    """A stamp's field value as its payload holds it: its lists and dicts are copies."""
    if isinstance(value, dict):
        return dict(value)
    return list(value) if isinstance(value, list) else value


def ledger_path(root: Path) -> Path:
    """`<git dir>/reflection/ledger.jsonl`, computed without running git."""
    return paths.git_dir(root).joinpath(*LEDGER_RELPATH)


def key_path() -> Path:
    """The per-user signing key: outside every repository, readable by this user only."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "reflection" / "ledger.key"


def signing_key(*, create: bool) -> bytes | None:
    """This user's ledger key; created (0600) on first use when `create`, else None if absent."""
    path = key_path()
    try:  # bytes, decoded in C: a text read would import the ascii codec's module
        return bytes.fromhex(path.read_bytes().decode("ascii").strip())
    except FileNotFoundError:
        if not create:
            return None
    except (OSError, ValueError):
        return None
    # Written in full under a temporary name, then linked into place: a reader never
    # sees a half-written key, and of two first recorders exactly one key wins.
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        import secrets  # once per user: when the key is first created

        with os.fdopen(fd, "w", encoding="ascii") as handle:
            handle.write(secrets.token_hex(32) + "\n")
        os.link(tmp, path)
    except FileExistsError:  # another recorder created it first
        pass
    except OSError:
        return None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
    return signing_key(create=False)


def signature(stamp: Stamp, key: bytes) -> str:
    return hmac_sha256(key, stamp.signing_bytes())


def hmac_sha256(key: bytes, message: bytes) -> str:
    """HMAC-SHA256 (RFC 2104) of `message`, in hex, on the interpreter's own SHA-256
    (paths.builtin_sha256): `hmac` and `hashlib` load OpenSSL, 3-5 ms of CPU in every
    process that checks a stamp (a commit, a push, `reflection check tests`)."""
    sha256 = paths.builtin_sha256()
    block = 64
    if len(key) > block:
        key = sha256(key).digest()
    key = key.ljust(block, b"\0")
    inner = sha256(bytes(b ^ 0x36 for b in key) + message).digest()
    return str(sha256(bytes(b ^ 0x5C for b in key) + inner).hexdigest())


def verify(stamp: Stamp, key: bytes | None) -> bool:
    """The stamp's MAC is the one `key` gives, compared in constant time."""
    import _operator  # its _compare_digest is hmac.compare_digest, without loading OpenSSL

    if not key or not stamp.mac:
        return False
    return bool(_operator._compare_digest(stamp.mac, signature(stamp, key)))


def utc_now() -> str:
    from datetime import datetime, timezone  # only recorders need it, not the readers

    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def python_versions() -> dict[str, str]:
    import platform  # only when a run is recorded, not when evidence is read

    return {"python": platform.python_version()}


def append(root: Path, stamp: Stamp, *, max_entries: int = DEFAULT_MAX_ENTRIES) -> None:
    """Sign and add a stamp; rotate (keep the newest half) past `max_entries` lines.

    Raises OSError when the ledger cannot be written. Without a usable key the stamp
    is written unsigned (and says so on stderr): it is a record, never evidence.
    """
    path = ledger_path(root)
    key = signing_key(create=True)
    if key is None:
        sys.stderr.write(
            f"reflection: cannot read or create the ledger key {key_path()}; this run is "
            "recorded unsigned and will not count as test evidence.\n"
        )
        stamp.mac = ""
    else:
        stamp.mac = signature(stamp, key)
        stamp.verified = True
    line = stamp.to_json()
    atomic.append_line(path, line)
    try:
        size = path.stat().st_size
    except OSError:
        return
    # Lines are about the same length, so the size tells when a line count is worth
    # doing: the common append costs one stat.
    if size > max_entries * (len(line.encode("utf-8")) + 1):
        rotate(path, max_entries)


def rotate(path: Path, max_entries: int) -> None:
    """Keep the newest `max_entries // 2` lines when there are more than `max_entries`."""
    with atomic.locked(path):
        try:
            lines = path.read_bytes().splitlines(keepends=True)
        except FileNotFoundError:
            return
        if len(lines) <= max_entries:
            return
        keep = lines[-max(1, max_entries // 2) :]
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        with open(tmp, "wb") as handle:
            handle.writelines(keep)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)


def parse_lines(raw: bytes, source: str = "ledger") -> tuple[list[Stamp], list[str]]:
    """Stamps from ledger bytes and one warning per line that could not be read."""
    stamps: list[Stamp] = []
    warnings: list[str] = []
    key = signing_key(create=False)
    for number, line in enumerate(raw.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            stamps.append(parse_line(line, key))
        except (ValueError, TypeError) as exc:
            warnings.append(f"{source}:{number}: skipped a corrupt line ({exc})")
    return stamps, warnings


def parse_line(line: bytes, key: bytes | None) -> Stamp:
    """One ledger line's stamp, its signature checked against `key` when first asked;
    ValueError or TypeError when the line is not a stamp."""
    data = json.loads(line.decode("utf-8"))
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    stamp = Stamp.from_dict(data)
    stamp._verified, stamp._key = None, key  # checked when asked (Stamp.verified)
    return stamp


def read(root: Path, *, warn: bool = True) -> list[Stamp]:
    """All readable stamps, oldest first; corrupt lines are skipped with a warning on stderr."""
    raw = _read_bytes(ledger_path(root), warn)
    stamps, warnings = parse_lines(raw, str(ledger_path(root)))
    if warn:
        for warning in warnings[:5]:
            sys.stderr.write(f"reflection: warning: {warning}\n")
        if len(warnings) > 5:
            sys.stderr.write(f"reflection: warning: {len(warnings) - 5} more corrupt lines\n")
    return stamps


def read_lazily(root: Path, *, warn: bool = True) -> Stamps:
    """The ledger's stamps, each line parsed when a question needs it (see Stamps)."""
    path = ledger_path(root)
    return Stamps(_read_bytes(path, warn), str(path), warn)


def _read_bytes(path: Path, warn: bool) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return b""
    except OSError as exc:
        if warn:
            sys.stderr.write(f"reflection: cannot read the test ledger {path}: {exc}\n")
        return b""


class Stamps:
    """A ledger's stamps, each line parsed when first needed: a check asks about its tree
    and the newest passing runs, a few of the thousands of runs a full ledger holds
    (parsing every line of a 5,000-run ledger was 45-70 ms on every commit and stop).

    A stamp's line holds its tree id verbatim (the ledger writes canonical JSON), so the
    lines on given trees are found by searching the bytes for their ids; a line found
    that way counts only when its parsed tree is one of them. A corrupt line is reported
    (at most five a read) when a question reaches it."""

    def __init__(self, raw: bytes, source: str, warn: bool = True) -> None:
        self._raw, self._source, self._warn = raw, source, warn
        self._lines: list[tuple[int, int, int]] = []  # (start offset, end offset, number)
        offset = 0
        for number, line in enumerate(raw.splitlines(keepends=True), start=1):
            if line.strip():
                self._lines.append((offset, offset + len(line), number))
            offset += len(line)
        self._starts = [start for start, _, _ in self._lines]
        self._parsed: dict[int, Stamp | None] = {}
        self._key = signing_key(create=False) if self._lines else None
        self._warned = 0

    def newest_first(self) -> Iterator[Stamp]:
        """Every readable stamp, newest first, parsed as the caller goes."""
        for pos in range(len(self._lines) - 1, -1, -1):
            stamp = self._at(pos)
            if stamp is not None:
                yield stamp

    def on_trees(self, trees: Iterable[str]) -> list[Stamp]:
        """The readable stamps on `trees`, oldest first."""
        import bisect

        wanted = set(trees)
        positions: set[int] = set()
        for tree in wanted:
            needle = tree.encode("utf-8", "surrogateescape")
            at = self._raw.find(needle) if needle else -1
            while at >= 0:
                positions.add(bisect.bisect_right(self._starts, at) - 1)
                at = self._raw.find(needle, at + 1)
        found = (self._at(pos) for pos in sorted(positions) if pos >= 0)
        return [stamp for stamp in found if stamp is not None and stamp.tree in wanted]

    def __bool__(self) -> bool:
        return next(self.newest_first(), None) is not None

    def _at(self, pos: int) -> Stamp | None:
        if pos not in self._parsed:
            start, end, number = self._lines[pos]
            try:
                self._parsed[pos] = parse_line(self._raw[start:end], self._key)
            except (ValueError, TypeError) as exc:
                self._parsed[pos] = None
                self._report(f"{self._source}:{number}: skipped a corrupt line ({exc})")
        return self._parsed[pos]

    def _report(self, warning: str) -> None:
        self._warned += 1
        if self._warn and self._warned <= 5:
            sys.stderr.write(f"reflection: warning: {warning}\n")


def record_run(
    root: Path,
    command: str,
    exit_code: int,
    duration_s: float,
    *,
    counts: Mapping[str, int] | None = None,
    partial: bool = False,
    source: str = "run",
    tree: str | None = None,
    tool_versions: Mapping[str, str] | None = None,
    argv: Sequence[str] = (),
    notes: Sequence[str] = (),
    exclude: Sequence[str] | None = None,
    max_entries: int | None = None,
) -> Stamp:
    """Record a finished run; fingerprints the working tree now when `tree` is None.

    Secrets in the command (tokens in env assignments or URLs) are redacted.

    `exclude` and `max_entries` default to the repo's config (`tests.fingerprint_exclude`,
    `tests.max_entries`).
    """
    if exclude is None or max_entries is None:
        from reflection_core import config

        cfg = config.load(root)
        exclude = cfg.get("tests.fingerprint_exclude") if exclude is None else exclude
        max_entries = cfg.get("tests.max_entries") if max_entries is None else max_entries
    from reflection_core.guards.fingerprint import dirty_submodules, worktree_tree
    from reflection_core.redact import redact, redact_argv  # only recorders pay for them

    if tree is None:
        tree = worktree_tree(root, exclude or ())
    dirty = dirty_submodules(root)
    if dirty:
        more = f" and {len(dirty) - 1} more" if len(dirty) > 1 else ""
        partial = True  # the tree id holds the submodule's commit, not what the run tested
        notes = [
            *notes,
            f"submodule {dirty[0]}{more} had uncommitted changes, which the fingerprint "
            "cannot hold: commit or stash them and run the tests again",
        ]
    stamp = Stamp(
        tree=tree,
        command=redact(command),
        exit_code=exit_code,
        passed=exit_code == 0,
        partial=partial,
        counts=dict(counts or {}),
        duration_s=round(duration_s, 3),
        timestamp=utc_now(),
        source=source,
        tool_versions={**python_versions(), **(tool_versions or {})},
        cwd=os.getcwd(),
        argv=redact_argv(list(argv)),
        notes=list(notes),
    )
    append(root, stamp, max_entries=max_entries or DEFAULT_MAX_ENTRIES)
    return stamp
