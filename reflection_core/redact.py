"""Secret redaction for everything that leaves the process.

Verdicts, records, the test-run ledger, notifications and the prompt history
all pass through `redact` / `redact_obj` at the point where they are written.
The rules are a table (`RULES`): each has a name, a pattern, what it keeps, and
an example that the tests check one by one. Every pattern is linear-time on
adversarial input (no nested or adjacent unbounded quantifiers over the same
characters); benchmarks/bench_adversarial.py measures it.
"""

from __future__ import annotations

import re

from reflection_core import lazyre
from reflection_core.lazyre import lazy
from reflection_core.records import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

REDACTED = "[REDACTED]"

# Names whose value is a secret: `password`, `DB_PASS`, `GITHUB_TOKEN`, `AWS_SECRET`,
# `STRIPE_KEY`, `api-key`, `client_secret`...
_SECRET_NAME = (
    r"[A-Za-z0-9_.-]{0,40}?(?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key"
    r"|private[_-]?key|auth|credentials?)[A-Za-z0-9_.-]{0,40}"
    r"|[A-Za-z0-9_]{0,40}_(?:PASS|KEY|PAT)"
)
# A value: escaped-JSON quoted (`\"v\"`), quoted, or bare. A quote that never closes (a
# string cut short before it got here) runs to the end of the line: still redacted.
_VALUE = (
    r"(?!\[REDACTED\])(\\\"[^\"\n]{0,4096}(?:\"|$)|\"[^\"\n]{0,4096}(?:\"|$)"
    r"|'[^'\n]{0,4096}(?:'|$)|[^\s,;\"'}\\]{1,4096})"
)
# A quote as it appears around a JSON key, escaped or not (`"key"`, `\"key\"`, `'key'`).
_QUOTE = r"\\?[\"']"


@record(frozen=True)
class Rule:
    """One secret shape: `pattern` matches it, `keep` is the replacement (groups kept)."""

    name: str
    pattern: re.Pattern[str]
    keep: str
    example: str  # text holding a secret...
    secret: str  # ...whose secret part must not survive redaction


RULES: tuple[Rule, ...] = (
    Rule(
        "private key block",
        lazy(
            r"-----BEGIN [A-Z ]{0,40}PRIVATE KEY-----.*?"
            r"(?:-----END [A-Z ]{0,40}PRIVATE KEY-----|\Z)",
            re.S,
        ),
        REDACTED,
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA1x2\n-----END RSA PRIVATE KEY-----",
        "MIIEpAIBAAKCAQEA1x2",
    ),
    Rule(
        "provider api key",
        lazy(r"\b(?:sk|rk|pk)-(?:ant-|proj-|live-|test-)?[A-Za-z0-9_\-]{16,}"),
        REDACTED,
        "key sk-ant-abcdefghijklmnop0123456789",
        "abcdefghijklmnop0123456789",
    ),
    Rule(
        "github token",
        lazy(r"\bgh[pousr]_[A-Za-z0-9]{6,}"),
        REDACTED,
        "token ghp_abcdefghijklmnopqrstuvwxyz0123456789AB",
        "ghp_abcdefghijklmnopqrstuvwxyz0123456789AB",
    ),
    Rule(
        "github fine-grained token",
        lazy(r"\bgithub_pat_[A-Za-z0-9_]{6,}"),
        REDACTED,
        "github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
        "11ABCDEFG0123456789_abcdefghijklmnop",
    ),
    Rule(
        "slack token",
        lazy(r"\bxox[abposr]-[A-Za-z0-9-]{10,}\b"),
        REDACTED,
        "xoxb-1234567890-abcdefghij",
        "1234567890-abcdefghij",
    ),
    Rule(
        "aws access key id",
        lazy(r"\b(?:AKIA|ASIA)[0-9A-Z]{12,16}"),
        REDACTED,
        "id AKIAABCDEFGHIJKLMNOP here",
        "AKIAABCDEFGHIJKLMNOP",
    ),
    Rule(
        "google api key",
        lazy(r"\bAIza[0-9A-Za-z_\-]{35}\b"),
        REDACTED,
        "AIzaSyA-abcdefghijklmnopqrstuvwxyz01234",
        "SyA-abcdefghijklmnopqrstuvwxyz01234",
    ),
    Rule(
        "jwt",
        lazy(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\b"),
        REDACTED,
        "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.abcdefghijk",
        "eyJzdWIiOiIxMjM0In0",
    ),
    Rule(
        "authorization header",
        lazy(
            r"(?i)(\bauthorization[\"']?\s{0,8}[:=]\s{0,8}[\"']?(?:basic|bearer|token|digest)?\s{0,8})"
            r"[^\s\"',;]{1,4096}"
        ),
        r"\1" + REDACTED,
        "curl -H 'Authorization: Basic ZGV2OnMzY3JldA==' http://x",
        "ZGV2OnMzY3JldA==",
    ),
    Rule(
        "basic credentials",
        lazy(r"(?i)(\bbasic\s{1,8})(?=[A-Za-z0-9+/]{0,4096}[0-9+/=])[A-Za-z0-9+/]{8,}={0,2}"),
        r"\1" + REDACTED,
        "sent Basic dXNlcjpodW50ZXIy to the proxy",
        "dXNlcjpodW50ZXIy",
    ),
    Rule(
        "bearer token",
        lazy(r"(?i)\b(bearer|token)\s{1,8}[A-Za-z0-9._~+/=\-]{16,}"),
        r"\1 " + REDACTED,
        "Bearer abcdefghijklmnop0123",
        "abcdefghijklmnop0123",
    ),
    Rule(
        "url credentials",
        lazy(r"(?i)(\b[a-z][a-z0-9+.\-]{0,30}://[^\s:/@]{1,256}:)[^\s@/]{1,4096}@"),
        r"\1" + REDACTED + "@",
        "git push https://dev:s3cr3tT0ken@example.com/o/r main",
        "s3cr3tT0ken",
    ),
    Rule(
        "cli secret flag",
        lazy(
            r"(?i)(--?(?:password|passwd|pass|pwd|secret|token|api-?key|access-?key|auth-?token"
            r"|client-?secret)(?:=|\s{1,8}))" + _VALUE
        ),
        r"\1" + REDACTED,
        "mysql --password hunter2x --user app",
        "hunter2x",
    ),
    Rule(
        "json secret key",
        lazy(
            r"(?i)(" + _QUOTE + r"(?:" + _SECRET_NAME + r")" + _QUOTE + r"\s{0,8}:\s{0,8})" + _VALUE
        ),
        r"\1" + REDACTED,
        '{"user": "app", "password": "hunter2x"}',
        "hunter2x",
    ),
    Rule(
        "secret assignment",
        lazy(r"(?i)(\b(?:" + _SECRET_NAME + r")\s{0,8}[:=]\s{0,8})" + _VALUE),
        r"\1" + REDACTED,
        "DB_PASS=hunter2x python app.py",
        "hunter2x",
    ),
    Rule(
        "secret in prose",
        lazy(
            r"(?i)(\b(?:password|passwd|passphrase|pwd|secret|token|api[ _-]?key)\s{1,8}"
            r"(?:(?:is|was)\s{1,8}(?:set\s{1,8}to\s{1,8})?)?)(?!\[REDACTED\])"
            r"(?=[^\s,;\"']{0,200}[\d_/+=!@#$%^&*-])([^\s,;\"']{4,200})"
        ),
        r"\1" + REDACTED,
        "log in with db password hunter2 and retry",
        "hunter2",
    ),
)

# Extra shapes the table's tests also cover: (rule name, text, secret).
EXAMPLES: tuple[tuple[str, str, str], ...] = (
    ("cli secret flag", "deploy --token=abc123xyz --force", "abc123xyz"),
    ("cli secret flag", "login --api-key 'k3y value'", "k3y value"),
    ("json secret key", "{'api_key': 'Zx9-abc'}", "Zx9-abc"),
    ("json secret key", '{"client_secret":"cs-42"}', "cs-42"),
    ("secret assignment", "export GITHUB_TOKEN=gt_1234", "gt_1234"),
    ("secret assignment", "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI", "wJalrXUtnFEMI"),
    ("secret assignment", "STRIPE_KEY=rk_live_abc", "rk_live_abc"),
    ("secret assignment", "SMTP_PASSWORD='p w d'", "p w d"),
    ("secret assignment", "password: hunter2x", "hunter2x"),
    ("authorization header", "Authorization: Bearer abc.def", "abc.def"),
    ("authorization header", '"authorization": "Basic dTpw"', "dTpw"),
    ("url credentials", "https://x-access-token:ghs_abc@github.com/o/r", "ghs_abc"),
    ("json secret key", '{\\"api_key\\": \\"Zx9-escaped\\"}', "Zx9-escaped"),
    ("json secret key", '{"password": "cut-short-befo', "cut-short-befo"),
    ("secret assignment", "aws_secret_access_key = wJalrXUtnFEMIK7MDENG", "wJalrXUtnFEMIK7MDENG"),
    ("secret in prose", "the staging token is tk-81ff2 for now", "tk-81ff2"),
    ("secret in prose", "my API key is 4f9a2c", "4f9a2c"),
    ("secret in prose", "the api key 9f8e7d6c", "9f8e7d6c"),
    ("github token", "cut ghp_abcdefgh", "ghp_abcdefgh"),
)


def redact(text: str) -> str:
    """`text` with every secret-shaped span replaced by [REDACTED]."""
    known = _redacted_short.get(text)
    if known is not None:
        return known
    found = text
    if _may_hold_secret(text):  # else no rule matches: each substitution would keep it
        for rule in RULES:
            found = rule.pattern.sub(rule.keep, found)
    if len(text) <= _SHORT:
        if len(_redacted_short) >= _MAX_REMEMBERED:
            _redacted_short.clear()
        _redacted_short[text] = found
    return found


# Short strings this process has redacted, and what each became: a verdict and its record
# repeat the same keys, statuses and evidence lines (a stop redacts about 320 strings,
# 140 of them distinct), and each look-up spares a search of every rule.
_SHORT = 512
_MAX_REMEMBERED = 4096
_redacted_short: dict[str, str] = {}


_any_rule: re.Pattern[str] | None = None
_GLOBAL_FLAGS = lazy(r"\A\(\?([aiLmsux]+)\)")
_FLAG_LETTERS = ((re.IGNORECASE, "i"), (re.DOTALL, "s"), (re.MULTILINE, "m"), (re.VERBOSE, "x"))


def _may_hold_secret(text: str) -> bool:
    """Whether any rule matches `text`, in one search: every rule's pattern as one
    alternation, each under its own flags. Most strings a verdict or record holds match
    none, and skip the rules' substitutions one by one."""
    global _any_rule
    if _any_rule is None:
        _any_rule = lazyre.compile("|".join(_scoped(rule.pattern) for rule in RULES))
    return _any_rule.search(text) is not None


def _scoped(pattern: re.Pattern[str]) -> str:
    """`pattern` as a group that carries its own flags, to join an alternation (read
    from its source: the rules are not compiled one by one for this)."""
    source, flags = lazyre.source_and_flags(pattern)
    letters = "".join(letter for flag, letter in _FLAG_LETTERS if flags & flag)
    leading = _GLOBAL_FLAGS.match(source)  # `(?i)` at the start: into the group's letters
    if leading:
        letters, source = letters + leading.group(1), source[leading.end() :]
    return f"(?{letters}:{source})" if letters else f"(?:{source})"


def secret_values(text: str) -> list[str]:
    """The secret part of every span `redact` would replace (the value, not the name
    or scheme kept around it), so a detector can tell a real value from a placeholder."""
    values = []
    for rule in RULES:
        kept = [int(group) for group in re.findall(r"\\(\d)", rule.keep)]
        for match in rule.pattern.finditer(text):
            start = match.end(max(kept)) if kept else match.start()
            values.append(text[start : match.end()].strip().strip("\"'@"))
    return values


def redact_argv(argv: list[str] | tuple[str, ...]) -> list[str]:
    """`argv` with secrets redacted, including a value that is its own argument after a
    secret-named flag (`--password VALUE`), which no single argument shows."""
    joined = " ".join(argv)
    hidden = {value for value in secret_values(joined) if value}
    return [
        "[REDACTED]" if arg in hidden or arg.strip("\"'") in hidden else redact(arg) for arg in argv
    ]


def redact_obj(value: Any) -> Any:
    """A deep copy of JSON-like `value` with every string redacted, keys included."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {
            (redact(key) if isinstance(key, str) else key): redact_obj(item)
            for key, item in value.items()
        }
    if isinstance(value, (list, tuple)):
        return [redact_obj(item) for item in value]
    return value
