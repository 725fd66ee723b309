"""Secret redaction for everything that leaves the process.

Verdicts, records, the test-run ledger, notifications and the prompt history
all pass through `redact` / `redact_obj` at the point where they are written.
The rules are a table (`RULES`): each has a name, a pattern, the literals any of
its matches holds (`hints`, for detectors that skip text cheaply), what it keeps,
an example that the tests check one by one, and a near miss they must leave alone
(an identifier of the same shape). Every pattern is linear-time on
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
# The literals any of those names holds, lower-cased; then those of a secret flag (`--token`)
# and of a secret in prose (`the api key is ...`).
_SECRET_NAME_HINTS = (
    *("password", "passwd", "pwd", "secret", "token", "auth", "credential"),
    *("apikey", "api_key", "api-key", "accesskey", "access_key", "access-key"),
    *("privatekey", "private_key", "private-key", "_pass", "_key", "_pat"),
)
_FLAG_HINTS = (
    *("-pass", "-pwd", "-secret", "-token", "-apikey", "-api-key", "-accesskey"),
    *("-access-key", "-authtoken", "-auth-token", "-clientsecret", "-client-secret"),
)
_PROSE_HINTS = (
    *("password", "passwd", "passphrase", "pwd", "secret", "token"),
    *("apikey", "api key", "api_key", "api-key"),
)
_GITLAB_KINDS = ("pat", "dt", "rt", "ptt", "ft", "soat", "cbt", "imt", "agent", "oas")
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
    """One secret shape: `pattern` matches it, `keep` is the replacement (groups kept).
    Every match holds one of `hints` (lower-cased), so a detector can skip, with a plain
    substring scan, text that no rule could match."""

    name: str
    pattern: re.Pattern[str]
    hints: tuple[str, ...]
    keep: str
    example: str  # text holding a secret...
    secret: str  # ...whose secret part must not survive redaction
    near_miss: str  # text of a similar shape that is no secret: left exactly as it is


RULES: tuple[Rule, ...] = (
    Rule(
        "private key block",
        lazy(
            r"-----BEGIN [A-Z ]{0,40}PRIVATE KEY-----.*?"
            r"(?:-----END [A-Z ]{0,40}PRIVATE KEY-----|\Z)",
            re.S,
        ),
        ("private key",),
        REDACTED,
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA1x2\n-----END RSA PRIVATE KEY-----",
        "MIIEpAIBAAKCAQEA1x2",
        "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0B\n-----END PUBLIC KEY-----",
    ),
    Rule(  # Anthropic sk-ant-, OpenAI sk-proj- / sk-, and the other dash-prefixed keys
        "provider api key",
        lazy(r"\b(?:sk|rk|pk)-(?:ant-|proj-)?[A-Za-z0-9_\-]{16,}"),
        ("sk-", "rk-", "pk-"),
        REDACTED,
        "key sk-ant-abcdefghijklmnop0123456789",
        "abcdefghijklmnop0123456789",
        "pip install sk-learn; see risk-assessment-framework-notes",
    ),
    Rule(
        "stripe secret key",
        lazy(r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"),
        ("sk_live_", "sk_test_", "rk_live_", "rk_test_"),
        REDACTED,
        "configured sk_live_51HqLyjWDarjtT1zdp7dcXYZabc",
        "51HqLyjWDarjtT1zdp7dcXYZabc",
        "risk_level=high; skeleton_test_helpers; sk_live_mode; rk_test_fixture_names",
    ),
    Rule(
        "stripe webhook secret",
        lazy(r"\bwhsec_[A-Za-z0-9+/=]{24,}"),
        ("whsec_",),
        REDACTED,
        "STRIPE_WEBHOOK whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
        "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
        "the whsec_ prefix marks webhook_signing_secret values",
    ),
    Rule(
        "github token",
        lazy(r"\bgh[pousr]_[A-Za-z0-9]{6,}"),
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
        REDACTED,
        "token ghp_abcdefghijklmnopqrstuvwxyz0123456789AB",
        "ghp_abcdefghijklmnopqrstuvwxyz0123456789AB",
        "prefixes ghp_ and gho_abc; the ghs_app_token helper",
    ),
    Rule(
        "github fine-grained token",
        lazy(r"\bgithub_pat_[A-Za-z0-9_]{6,}"),
        ("github_pat_",),
        REDACTED,
        "github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
        "11ABCDEFG0123456789_abcdefghijklmnop",
        "a github_pat_ prefix, see github_pat.md",
    ),
    Rule(
        "gitlab token",
        lazy(r"\bgl(?:" + "|".join(_GITLAB_KINDS) + r")-[A-Za-z0-9_\-]{20,}"),
        tuple(f"gl{kind}-" for kind in _GITLAB_KINDS),
        REDACTED,
        "CI_TOKEN glpat-Xy9Wv8Ut7Sr6Qp5On4Ml",
        "Xy9Wv8Ut7Sr6Qp5On4Ml",
        "create a glpat-example token; glrt- prefixed runner",
    ),
    Rule(
        "npm token",
        lazy(r"\bnpm_[A-Za-z0-9]{36,}"),
        ("npm_",),
        REDACTED,
        "//registry.npmjs.org/:_authToken npm_Qw3Er4Ty5Ui6Op7As8Df9Gh0Jk1Lz2Xc3Vb4N",
        "Qw3Er4Ty5Ui6Op7As8Df9Gh0Jk1Lz2Xc3Vb4N",
        "npm_config_cache=/tmp/npm-cache npm_package_version npm_lifecycle_event",
    ),
    Rule(
        "hugging face token",
        lazy(r"\bhf_[A-Za-z0-9]{30,}"),
        ("hf_",),
        REDACTED,
        "login with hf_MnBvCxZaSdFgHjKlPoIuYtReWq12345678",
        "MnBvCxZaSdFgHjKlPoIuYtReWq12345678",
        "call hf_hub_download(); pip install hf_transfer",
    ),
    Rule(
        "pypi token",
        lazy(r"\bpypi-AgE[A-Za-z0-9_\-]{32,}"),
        ("pypi-age",),
        REDACTED,
        "twine upload -u __token__ pypi-AgEIcHlwaS5vcmcCJGFiY2RlZmdoLWlqa2wtbW5vcC1xcnN0",
        "AgEIcHlwaS5vcmcCJGFiY2RlZmdoLWlqa2wtbW5vcC1xcnN0",
        "the pypi-simple index and pypi-AgE prefixes",
    ),
    Rule(
        "slack token",
        lazy(r"\b(?:xox[abposr]|xapp)-[A-Za-z0-9-]{10,}\b"),
        ("xox", "xapp-"),
        REDACTED,
        "xoxb-1234567890-abcdefghij",
        "1234567890-abcdefghij",
        "xoxb-short and the xapp-config file",
    ),
    Rule(
        "sendgrid api key",
        lazy(r"\bSG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}\b"),
        ("sg.",),
        REDACTED,
        "key 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",
        "TwL2iGABf9DHoTf-09kqeF8tAmbihYzrnopKc-1s5cr",
        "SG.enabled = true; SG.group.members",
    ),
    Rule(
        "digitalocean token",
        lazy(r"\bdo[por]_v1_[a-f0-9]{64}\b"),
        ("dop_v1_", "doo_v1_", "dor_v1_"),
        REDACTED,
        "doctl auth init -t dop_v1_" + "0f3a9c" * 10 + "beef",
        "0f3a9c" * 10 + "beef",
        "the dop_v1_ prefix; dor_v1_tokens.md",
    ),
    Rule(
        "aws access key id",
        lazy(r"\b(?:AKIA|ASIA)[0-9A-Z]{12,16}"),
        ("akia", "asia"),
        REDACTED,
        "id AKIAABCDEFGHIJKLMNOP here",
        "AKIAABCDEFGHIJKLMNOP",
        "ids start with AKIA or ASIA; AKIAEXAMPLE",
    ),
    Rule(
        "google api key",
        lazy(r"\bAIza[0-9A-Za-z_\-]{35}\b"),
        ("aiza",),
        REDACTED,
        "AIzaSyA-abcdefghijklmnopqrstuvwxyz01234",
        "SyA-abcdefghijklmnopqrstuvwxyz01234",
        "keys look like AIzaSy...; AIzaShortValue",
    ),
    Rule(
        "google oauth token",
        lazy(r"\bya29\.[A-Za-z0-9_\-]{20,}"),
        ("ya29.",),
        REDACTED,
        "access ya29.a0AfH6SMBx7kQ2v9ZpLmN3oRtYuW1",
        "a0AfH6SMBx7kQ2v9ZpLmN3oRtYuW1",
        "tokens begin ya29.; see ya29.md",
    ),
    Rule(
        "jwt",
        lazy(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\b"),
        ("eyj",),
        REDACTED,
        "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.abcdefghijk",
        "eyJzdWIiOiIxMjM0In0",
        "a header alone: eyJhbGciOiJIUzI1NiJ9",
    ),
    Rule(
        "authorization header",
        lazy(
            r"(?i)(\bauthorization[\"']?\s{0,8}[:=]\s{0,8}[\"']?(?:basic|bearer|token|digest)?\s{0,8})"
            r"[^\s\"',;]{1,4096}"
        ),
        ("authorization",),
        r"\1" + REDACTED,
        "curl -H 'Authorization: Basic ZGV2OnMzY3JldA==' http://x",
        "ZGV2OnMzY3JldA==",
        "the authorization middleware checks roles",
    ),
    Rule(
        "basic credentials",
        lazy(r"(?i)(\bbasic\s{1,8})(?=[A-Za-z0-9+/]{0,4096}[0-9+/=])[A-Za-z0-9+/]{8,}={0,2}"),
        ("basic",),
        r"\1" + REDACTED,
        "sent Basic dXNlcjpodW50ZXIy to the proxy",
        "dXNlcjpodW50ZXIy",
        "basic functionality works for the token bucket",
    ),
    Rule(
        "bearer token",
        lazy(r"(?i)\b(bearer|token)\s{1,8}[A-Za-z0-9._~+/=\-]{16,}"),
        ("bearer", "token"),
        r"\1 " + REDACTED,
        "Bearer abcdefghijklmnop0123",
        "abcdefghijklmnop0123",
        "the bearer token expires after an hour",
    ),
    Rule(  # the user may be empty: `redis://:PASSWORD@host`
        "url credentials",
        lazy(r"(?i)(\b[a-z][a-z0-9+.\-]{0,30}://[^\s:/@]{0,256}:)[^\s@/]{1,4096}@"),
        ("://",),
        r"\1" + REDACTED + "@",
        "git push https://dev:s3cr3tT0ken@example.com/o/r main",
        "s3cr3tT0ken",
        "http://[::1]:8080/health, https://example.com/a:b@c and ssh://git@host:22/r",
    ),
    Rule(
        "cli secret flag",
        lazy(
            r"(?i)(--?(?:password|passwd|pass|pwd|secret|token|api-?key|access-?key|auth-?token"
            r"|client-?secret)(?:=|\s{1,8}))" + _VALUE
        ),
        _FLAG_HINTS,
        r"\1" + REDACTED,
        "mysql --password hunter2x --user app",
        "hunter2x",
        "mysql --password-file /run/db.cnf --user app",
    ),
    Rule(
        "json secret key",
        lazy(
            r"(?i)(" + _QUOTE + r"(?:" + _SECRET_NAME + r")" + _QUOTE + r"\s{0,8}:\s{0,8})" + _VALUE
        ),
        _SECRET_NAME_HINTS,
        r"\1" + REDACTED,
        '{"user": "app", "password": "hunter2x"}',
        "hunter2x",
        '{"user": "app", "field": "password"}',
    ),
    Rule(
        "secret assignment",
        lazy(r"(?i)(\b(?:" + _SECRET_NAME + r")\s{0,8}[:=]\s{0,8})" + _VALUE),
        _SECRET_NAME_HINTS,
        r"\1" + REDACTED,
        "DB_PASS=hunter2x python app.py",
        "hunter2x",
        "risk_level=high DB_HOST=db.local npm_config_cache=/tmp/npm",
    ),
    Rule(
        "secret in prose",
        lazy(
            r"(?i)(\b(?:password|passwd|passphrase|pwd|secret|token|api[ _-]?key)\s{1,8}"
            r"(?:(?:is|was)\s{1,8}(?:set\s{1,8}to\s{1,8})?)?)(?!\[REDACTED\])"
            r"(?=[^\s,;\"']{0,200}[\d_/+=!@#$%^&*-])([^\s,;\"']{4,200})"
        ),
        _PROSE_HINTS,
        r"\1" + REDACTED,
        "log in with db password hunter2 and retry",
        "hunter2",
        "the password reset flow sends a token by mail",
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
    ("github token", "gho_16C7e42F292c6912E7710c838347Ae178B4a", "16C7e42F292c6912E7710c8"),
    ("github token", "ghu_16C7e42F292c6912E7710c838347Ae178B4a", "16C7e42F292c6912E7710c8"),
    ("github token", "ghs_16C7e42F292c6912E7710c838347Ae178B4a", "16C7e42F292c6912E7710c8"),
    ("github token", "ghr_16C7e42F292c6912E7710c838347Ae178B4a", "16C7e42F292c6912E7710c8"),
    ("provider api key", "OPENAI sk-proj-Ab3dEf6hIj9kLm2nOp5q_Rs8tUv", "Ab3dEf6hIj9kLm2nOp5q"),
    ("provider api key", "sk-Ab3dEf6hIj9kLm2nOp5qRs8tUvWx", "Ab3dEf6hIj9kLm2nOp5q"),
    ("provider api key", "sk-ant-api03-Zq81AbCdEfGhIjKlMnOp-xyz", "Zq81AbCdEfGhIjKlMnOp"),
    ("stripe secret key", "sk_test_4eC39HqLyjWDarjtT1zdp7dc", "4eC39HqLyjWDarjtT1zdp7dc"),
    ("stripe secret key", "rk_live_51HqLyjWDarjtT1zdp7dcXYZ", "51HqLyjWDarjtT1zdp7dcXYZ"),
    ("url credentials", "redis://:p4ssw0rdZZ@cache:6379/0", "p4ssw0rdZZ"),
    ("url credentials", "postgres://:pw@h/db", "pw@"),
    ("url credentials", "mongodb+srv://:s3cr3t@cluster0.example.net", "s3cr3t"),
    ("gitlab token", "gldt-Ab3dEf6hIj9kLm2nOp5qRs", "Ab3dEf6hIj9kLm2nOp5qRs"),
    ("slack token", "xoxp-1234567890-0987654321-abcdefabcdef", "0987654321-abcdef"),
    ("slack token", "xapp-1-A0123ABCD-1234567890-abcdef0123456789", "abcdef0123456789"),
    ("aws access key id", "ASIAIOSFODNN7EXAMPLE", "ASIAIOSFODNN7EXAMPLE"),
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
    none, and skip the rules' substitutions one by one. A text holding none of the rules'
    hints is answered without it: the substring scans take a tenth of its search, and a
    process that redacts only a command line and a few notes, as a test run's recorder
    does, never pays its compilation (about 5 ms)."""
    if not _holds_a_hint(text):
        return False
    global _any_rule
    if _any_rule is None:
        _any_rule = lazyre.compile(_any_rule_source(RULES))
    return _any_rule.search(text) is not None


_ALL_HINTS = tuple(sorted({hint for rule in RULES for hint in rule.hints}))


def _holds_a_hint(text: str) -> bool:
    """Whether `text` holds a literal every match of some rule holds (Rule.hints)."""
    lowered = text.lower()
    return any(hint in lowered for hint in _ALL_HINTS)


def _any_rule_source(rules: tuple[Rule, ...]) -> str:
    """The rules as one alternation. Those that start at a word boundary share one `\b`:
    after it each starts with a literal, which the engine rejects at a glance, where a
    leading `\b` per rule is tested rule by rule at every position (twice the time)."""
    bounded, other = [], []
    for rule in rules:
        letters, source = _scoped(rule.pattern)
        if source.startswith("\\b"):
            bounded.append(_group(letters, source[2:]))
        else:
            other.append(_group(letters, source))
    shared = [f"\\b(?:{'|'.join(bounded)})"] if bounded else []
    return "|".join(shared + other)


def _group(letters: str, source: str) -> str:
    return f"(?{letters}:{source})" if letters else f"(?:{source})"


def _scoped(pattern: re.Pattern[str]) -> tuple[str, str]:
    """`pattern`'s flag letters and source, to join an alternation as a group that
    carries its own flags (read from its source: the rules are not compiled one by one
    for this)."""
    source, flags = lazyre.source_and_flags(pattern)
    letters = "".join(letter for flag, letter in _FLAG_LETTERS if flags & flag)
    leading = _GLOBAL_FLAGS.match(source)  # `(?i)` at the start: into the group's letters
    if leading:
        letters, source = letters + leading.group(1), source[leading.end() :]
    return letters, source


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
    # Asked rule by rule only when one of them matches (most command lines hold none):
    # each rule's pattern is compiled when first used.
    found = secret_values(joined) if _may_hold_secret(joined) else []
    hidden = {value for value in found if value}
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
