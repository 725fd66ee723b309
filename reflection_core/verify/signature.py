"""Error normalization: the same failure gets the same signature on every run.

Gate output carries noise that changes from run to run (temporary directories,
timings, memory addresses, colours, absolute paths, line numbers shifted by an
unrelated edit). The tracker compares failures by signature to notice that an
error persists, so the signature keeps what identifies the error (file, rule,
message, test id) and drops the noise. Pure functions, no I/O.
"""

from __future__ import annotations

import hashlib
import re

from reflection_core.lazyre import lazy
from reflection_core.terminal import strip_ansi

_TMP_PATH = lazy(
    r"(?:/private)?/(?:tmp|var/folders|var/tmp)/[^\s:'\"),]*"
    r"|[A-Za-z]:\\Users\\[^\\\s]+\\AppData\\Local\\Temp\\[^\s:'\"),]*"
    r"|\bpytest-of-[^/\s]+/pytest-\d+/[^\s:'\"),]*"
)
_ISO_TIME = lazy(r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?")
_CLOCK = lazy(r"\b\d{1,2}:\d{2}:\d{2}(?:\.\d+)?\b")
_DURATION = lazy(
    r"\b\d+(?:\.\d+)?\s*(?:ms|s|sec|secs|seconds?|minutes?|min)\b(?:\s*\(\d+:\d{2}:\d{2}\))?",
    re.I,
)
_ADDRESS = lazy(r"\b0x[0-9a-fA-F]+\b")
_UUID = lazy(r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b")
_LONG_HEX = lazy(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{8,}\b")
_FILE_LINE = lazy(r"(\.[A-Za-z0-9]{1,6}|\"):(\d+)(?::(\d+))?")
_LINE_WORD = lazy(r"\b(line|ln|col|column)\s+\d+", re.I)
_PID = lazy(r"\b(pid|process|thread)\s*[=:]?\s*\d+", re.I)
_SPACES = lazy(r"[ \t]+")
# Lines that name an error in the output of common gate tools.
_ERROR_LINE = lazy(
    r"^(?:FAILED|ERROR)\b"  # pytest short summary
    r"|^E\s+\S"  # pytest assertion detail
    r"|^\S[^:\n]*:<n>(?::<n>)?:?\s+\S"  # path:line:col: message (ruff, mypy, tsc, gcc, eslint)
    r"|\berror(?:\[\w+\])?:|\bError\b:?|\bexception\b|\bfailed\b|\bFAIL\b"
    r"|^[A-Z][A-Za-z]*(?:Error|Exception)\b"
    r"|^\s*[A-Z]\d{3,4}\b",  # rule codes at line start
    re.I,
)
# Summary lines whose numbers change as other tests come and go: not part of an identity.
_COUNTS_LINE = lazy(
    r"^=*\s*(?:\d+ (?:passed|failed|errors?|skipped|warnings?|xfailed|xpassed|deselected)"
    r"[, ]*)+.*=*$|^Found \d+ errors?|^\[\*\] \d+ fixable|^No fixes available|^Success:",
    re.I,
)
MAX_KEY_LINES = 24
MAX_SUMMARY_CHARS = 1200


def normalize_line(line: str, root: str | None = None) -> str:
    """One output line with run-specific noise replaced by placeholders."""
    text = strip_ansi(line)
    if root:
        text = text.replace(root.rstrip("/") + "/", "").replace(root, ".")
    text = _TMP_PATH.sub("<tmp>", text)
    text = _ISO_TIME.sub("<time>", text)
    text = _CLOCK.sub("<time>", text)
    text = _DURATION.sub("<duration>", text)
    text = _UUID.sub("<id>", text)
    text = _ADDRESS.sub("<addr>", text)
    text = _LONG_HEX.sub("<hex>", text)
    text = _PID.sub(lambda m: f"{m.group(1)} <n>", text)
    text = _FILE_LINE.sub(
        lambda m: m.group(1) + ":<n>" + (":<n>" if m.group(3) is not None else ""), text
    )
    text = _LINE_WORD.sub(lambda m: f"{m.group(1)} <n>", text)
    return _SPACES.sub(" ", text).strip()


def _identity_lines(output: str, root: str | None = None) -> list[str]:
    lines = [normalize_line(raw, root) for raw in output.splitlines()]
    return [line for line in lines if line and not _COUNTS_LINE.search(line)]


def error_lines(output: str, root: str | None = None) -> frozenset[str]:
    """Every normalized line that names an error: two runs that print the same ones
    failed the same way, whatever their timings, paths and counts."""
    return frozenset(line for line in _identity_lines(output, root) if _ERROR_LINE.search(line))


def key_lines(output: str, root: str | None = None) -> list[str]:
    """The normalized lines that identify the failure: error lines, else the tail."""
    lines = _identity_lines(output, root)
    errors = [line for line in lines if _ERROR_LINE.search(line)]
    chosen = errors or lines[-MAX_KEY_LINES:]
    unique = sorted(dict.fromkeys(chosen))
    return unique[:MAX_KEY_LINES]


def error_signature(gate: str, output: str, exit_code: int | None, root: str | None = None) -> str:
    """`<gate>:<12 hex>` naming this failure; equal for the same failure on another run."""
    material = "\n".join([gate, f"exit={exit_code}", *key_lines(output, root)])
    return f"{gate}:{hashlib.sha256(material.encode('utf-8', 'replace')).hexdigest()[:12]}"


def summarize(output: str, root: str | None = None, limit: int = MAX_SUMMARY_CHARS) -> str:
    """A short human summary: the error lines (colours and root prefix removed), capped."""
    cleaned = []
    for raw in output.splitlines():
        line = strip_ansi(raw).rstrip()
        if root:
            line = line.replace(root.rstrip("/") + "/", "")
        if line.strip() and not _COUNTS_LINE.search(line.strip()):
            cleaned.append(line)
    errors = [line for line in cleaned if _ERROR_LINE.search(normalize_line(line))]
    chosen = errors[:12] or cleaned[-12:]
    text = "\n".join(chosen)
    return text if len(text) <= limit else text[: limit - 1] + "…"
