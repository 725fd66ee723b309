"""Secret redaction for records and notifications.

Patterns cover the shapes that leak in practice: provider API keys, GitHub and
Slack tokens, AWS keys, JWTs, bearer headers, private key blocks, credentials in
URLs and `password=...`-style assignments.
"""

from __future__ import annotations

import re
from typing import Any

REDACTED = "[REDACTED]"

_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(
            r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|\Z)", re.S
        ),
        REDACTED,
    ),
    (re.compile(r"\b(?:sk|rk|pk)-(?:ant-|proj-|live-|test-)?[A-Za-z0-9_\-]{16,}"), REDACTED),
    (re.compile(r"\bgh[pousr]_[A-Za-z0-9]{20,}\b"), REDACTED),
    (re.compile(r"\bgithub_pat_[A-Za-z0-9_]{20,}\b"), REDACTED),
    (re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}\b"), REDACTED),
    (re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"), REDACTED),
    (re.compile(r"\bAIza[0-9A-Za-z_\-]{35}\b"), REDACTED),
    (re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\b"), REDACTED),
    (re.compile(r"(?i)\b(bearer|token)\s+[A-Za-z0-9._~+/=\-]{16,}"), r"\1 " + REDACTED),
    (re.compile(r"(?i)(\b[a-z][a-z0-9+.\-]*://[^\s:/@]+:)[^\s@/]+@"), r"\1" + REDACTED + "@"),
    (
        re.compile(
            r"(?i)\b([A-Z0-9_]*(?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key"
            r"|private[_-]?key|auth)[A-Z0-9_]*)(\s*[:=]\s*)(\"[^\"\n]*\"|'[^'\n]*'|[^\s,;]+)"
        ),
        r"\1\2" + REDACTED,
    ),
)


def redact(text: str) -> str:
    """`text` with every secret-shaped span replaced by [REDACTED]."""
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return text


def secret_values(text: str) -> list[str]:
    """The secret part of every span `redact` would replace (the value, not the name
    or scheme kept around it), so a detector can tell a real value from a placeholder."""
    values = []
    for pattern, replacement in _PATTERNS:
        kept = [int(group) for group in re.findall(r"\\(\d)", replacement)]
        for match in pattern.finditer(text):
            start = match.end(max(kept)) if kept else match.start()
            values.append(text[start : match.end()].strip().strip("\"'@"))
    return values


def redact_obj(value: Any) -> Any:
    """A deep copy of JSON-like `value` with every string redacted."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {key: redact_obj(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact_obj(item) for item in value]
    return value
