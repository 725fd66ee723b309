"""Lexical signals in a prompt: anchors (paths, code, errors, numbers), verbs, criteria.

Every other prompt module judges meaning from these signals rather than from
per-prompt keywords. All patterns are linear-time (no nested unbounded
quantifiers over the same characters), so a 1 MB prompt scans in milliseconds.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

from reflection_core import lazyre
from reflection_core.records import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


# For pure functions of one string that several rules call on the same text of a prompt
# (its words, clauses, area): computed once per prompt. A few entries cover one prompt.
per_text = lru_cache(maxsize=16)
_IGNORECASE = int(re.IGNORECASE)


class LazyPattern:
    """A regex compiled on first use, so patterns of rare branches cost the hook nothing.

    Compiling is most of the prompt hook's import time; continuation and menu
    patterns are only needed for short prompts or when a previous message exists.
    `needs`, when given, holds substrings one of which every match contains: `search`,
    `finditer`, `findall` and `split` skip the scan of a text holding none of them (lower-case
    words for an IGNORECASE pattern, which is then gated on ASCII text only, where
    lower-casing and the engine's case folding agree). `gates` are patterns for the
    matches no substring names ("a capital letter before a digit"): every match holds one
    of `needs` or matches one of `gates`. A gate opens with a literal or a character class,
    so the engine finds its candidates with its fast first-character scan. `digit_gates`
    are gates whose every match opens with a digit: they are searched from the text's
    first digit (`first_digit`, read once per text), not from its start.
    """

    __slots__ = (
        *("_compiled", "_digit_gates", "_flags", "_folds", "_gated", "_gates", "_needs"),
        *("_source", "_words"),
    )

    def __init__(
        self,
        source: str,
        flags: int = 0,
        *,
        words: bool = False,
        needs: tuple[str, ...] = (),
        gates: tuple[str, ...] = (),
        digit_gates: tuple[str, ...] = (),
    ) -> None:
        self._source = source
        self._flags = flags
        self._words = words
        self._needs = needs
        self._gates = tuple(LazyPattern(gate) for gate in gates)
        self._digit_gates = tuple(LazyPattern(gate) for gate in digit_gates)
        self._gated = bool(needs or gates or digit_gates)
        # Read once here: `flags & re.IGNORECASE` is a slow enum operation per call.
        self._folds = bool(int(flags) & _IGNORECASE)
        self._compiled: re.Pattern[str] | None = None

    def _absent(self, text: str) -> bool:
        """No match is possible: the text holds none of `needs` (a loop: no generator)."""
        if self._folds:
            if not text.isascii():
                return False
            text = text.lower()
        for part in self._needs:
            if part in text:
                return False
        for gate in self._gates:
            if gate.search(text) is not None:
                return False
        if self._digit_gates and (at := first_digit(text)) >= 0:
            for gate in self._digit_gates:  # a loop: no generator per call
                if gate.pattern.search(text, at) is not None:
                    return False
        return True

    @property
    def pattern(self) -> re.Pattern[str]:
        if self._compiled is None:
            compile_ = compile_words if self._words else lazyre.compile
            self._compiled = compile_(self._source, self._flags)
        return self._compiled

    def search(self, text: str) -> re.Match[str] | None:
        if self._gated and self._absent(text):
            return None
        return (self._compiled or self.pattern).search(text)

    def match(self, text: str) -> re.Match[str] | None:
        return (self._compiled or self.pattern).match(text)

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        if self._gated and self._absent(text):
            return iter(())
        return (self._compiled or self.pattern).finditer(text)

    def findall(self, text: str) -> list[Any]:
        if self._gated and self._absent(text):
            return []
        return (self._compiled or self.pattern).findall(text)

    def split(self, text: str) -> list[str]:
        if self._gated and self._absent(text):
            return [text]
        return (self._compiled or self.pattern).split(text)

    def sub(self, replacement: str, text: str) -> str:
        return (self._compiled or self.pattern).sub(replacement, text)


def lazy_words(
    source: str,
    flags: int = 0,
    *,
    needs: tuple[str, ...] = (),
    gates: tuple[str, ...] = (),
    digit_gates: tuple[str, ...] = (),
) -> LazyPattern:
    """A LazyPattern compiled with `compile_words`."""
    return LazyPattern(source, flags, words=True, needs=needs, gates=gates, digit_gates=digit_gates)


def compile_words(source: str, flags: int = 0) -> re.Pattern[str]:
    """Compile alternatives that each start with `\\b` as one lookbehind-guarded group.

    `\\bfoo|\\bbar` defeats the regex engine's first-character scan, so every
    position tries every alternative; `(?<!\\w)(?:foo|bar)` matches the same
    words at word starts and runs about ten times faster on prose.
    """
    parts: list[str] = []
    depth = 0
    start = 0
    index = 0
    in_class = False
    while index < len(source):
        char = source[index]
        if char == "\\":
            index += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "|" and depth == 0:
            parts.append(source[start:index])
            start = index + 1
        index += 1
    parts.append(source[start:])
    words = [part[len(guard) :] for part in parts if (guard := _word_start_guard(part))]
    others = [part for part in parts if not _word_start_guard(part)]
    if not words:
        return lazyre.compile(source, flags)
    body = rf"(?<!\w)(?:{'|'.join(words)})"
    return lazyre.compile("|".join([body, *others]), flags)


def _word_start_guard(part: str) -> str:
    """The `\\b` or `(?<!\\w)` an alternative opens with, or "" (an alternative already
    guarded by the lookbehind joins the group too: one check per position, not two)."""
    for guard in (r"\b", r"(?<!\w)"):
        if part.startswith(guard):
            return guard
    return ""


_FILE_EXT = (
    "py|pyi|ts|tsx|js|jsx|mjs|cjs|go|rs|java|kt|kts|swift|rb|php|cs|c|h|cc|cpp|hpp|scala|sql|"
    "sh|bash|zsh|ps1|yml|yaml|json|toml|ini|cfg|conf|env|md|rst|txt|csv|tsv|html|css|scss|"
    "less|vue|svelte|tf|tfvars|hcl|proto|graphql|xml|gradle|lock|ipynb|lua|dart|ex|exs|"
    "erl|clj|example|log|db"
)
_PATH_RE = LazyPattern(r"(?<![\w@.~-])[\w.~-]*(?:/[\w.-]+)+/?")
# Path patterns run on lower-cased text: only their count matters.
# A file name ends in one of the extensions: the gate finds that ending from each ".".
_FILE_RE = LazyPattern(
    rf"(?<![\w/.-])[\w-]+(?:\.[\w-]+)*\.(?:{_FILE_EXT})\b", gates=(rf"\.(?:{_FILE_EXT})\b",)
)
_EXT_RE = LazyPattern(rf"\.(?:{_FILE_EXT})$")
_NAMED_FILE_WORDS = (
    "dockerfile",
    "makefile",
    "jenkinsfile",
    "procfile",
    "gemfile",
    "readme",
    "changelog",
    "contributing",
)
_NAMED_FILE_RE = LazyPattern(
    r"\b(?:dockerfile|makefile|jenkinsfile|procfile|gemfile|readme|changelog|contributing)\b",
    needs=_NAMED_FILE_WORDS,
)
_DIGIT_RE = LazyPattern(r"\d")
_METRIC_WORDS = frozenset({"explain", "index", "flame", "flamegraph", "benchmark"})
_CODE_SPAN_RE = LazyPattern(r"`[^`\n]{1,300}`")
_FENCE_RE = LazyPattern(r"^\s*```", re.MULTILINE)
_IDENT_RE = lazy_words(
    r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b"  # snake_case
    r"|\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+\b"  # CamelCase
    r"|\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b"  # ENV_VARS
    r"|\b\w+\(\)"  # call()
    r"|(?<!\w)--[a-z][\w-]*"  # --flag
    r"|\bv?\d+\.\d+\.(?:\d+|x)\b"  # versions 1.8.0, 1.34.x
    r"|\b(?:GET|POST|PUT|PATCH|DELETE)\s+/",  # HTTP route
    needs=("_", "()", "--", "GET", "POST", "PUT", "PATCH", "DELETE"),
    gates=(r"[A-Z][a-z0-9]+[A-Z]",),  # CamelCase
    digit_gates=(r"\d\.\d",),  # versions
)
_ERROR_RE = LazyPattern(
    r"\b\w*(?:Error|Exception|Warning)\b|\bTraceback\b|\bpanic:|\bsegfault\b|\bstack ?trace\b"
    r"|\bexit(?:s|ed)? (?:with )?(?:code|status) \d+|\bline \d+|\b[A-Z]{1,3}\d{3,4}\b"
    r"|\b(?:returns?|got|gives?|throws?) (?:a |an )?[45]\d\d\b|\b[45]\d\d(?:s| errors?)\b",
    needs=(
        *("Error", "Exception", "Warning", "Traceback", "panic:", "segfault", "stack", "exit"),
        *("return", "got ", "give", "throw"),
    ),
    # every other match holds "line 3", a digit after a capital (E0425) or "500s"/"404 error"
    gates=(r"line \d",),
    digit_gates=(r"\d(?<=[A-Z]\d)", r"[45]\d\d(?:s| error)"),
)
_METRIC_RE = lazy_words(
    r"\d(?:[\d,.]*\d)?\s?(?:ms|milliseconds?|s|secs?|seconds?|minutes?|mins?|hours?|%|percent"
    r"|kb|mb|gb|tb|x|rps|qps|req/s|fps)\b|\bp(?:50|75|90|95|99)\b|\bo\([^()\n]{1,20}\)"
    r"|\bindex scan\b|\bflame ?graph\b|\bbenchmark\b",  # lower-cased text; EXPLAIN apart
    needs=("p5", "p7", "p9", "o(", "index scan", "flame", "benchmark"),
    digit_gates=(r"\d\s?[%fghkmpqrstx]",),  # a number before a unit's first letter
)
# `(?<![\w.])\d+...` with the digit first and the look-behind after it (the same numbers):
# a pattern opening with a digit class lets the engine skip to digits instead of trying
# the look-behind at every position.
_NUMBER_RE = LazyPattern(r"\d(?<![\w.]\d)\d*(?:[.,]\d+)*\b")
# A hash holds a digit next to a letter a-f somewhere; the gate looks at each digit.
_HASH_RE = LazyPattern(
    r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b",
    digit_gates=(r"\d(?:(?<=[a-f]\d)|[a-f])",),
)
_QUOTED_RE = LazyPattern(r"\"[^\"\n]{2,200}\"|“[^”\n]{2,200}”")
_CRITERION_RE = lazy_words(
    r"\btests?\b|\bpytest\b|\bjest\b|\bspec\b|\bxfail\b|\bassert"
    r"|\b(?:must|should|will) (?:return|raise|pass|be|print|exit|show|stay|keep|render|fail|log)"
    r"|\bexpected\b|\bexpect\b|->|=>|\bso that\b|\buntil\b|\bgoal is\b|\bdone when\b"
    r"|\bidentical\b|\bunchanged\b|\bno behaviou?r change\b|\bstill pass|\bzero\b"
    r"|\b(?:under|below|at most|at least|less than) \d|\binstead of\b|\bexample\b|\bexit with\b"
    r"|\bfindings\b|\bfile:line\b|\branked by\b",
    0,  # run on lower-cased text
    needs=(
        *("test", "jest", "spec", "xfail", "assert", "must ", "should ", "will ", "expect"),
        *("->", "=>", "so that", "until", "goal is", "done when", "identical", "unchanged"),
        *("no behavio", "still pass", "zero", "under ", "below ", "at most ", "at least "),
        *("less than ", "instead of", "example", "exit with", "findings", "file:line", "ranked by"),
    ),
)
_RESTRICTION_RE = LazyPattern(
    r"\b(?:don'?t|do not|never|must not|mustn'?t|without|only|keep|leave|instead of|rather than"
    r"|not the|preserve|avoid|as a fallback|for now|one commit each|no (?:new|breaking|code|tag"
    r"|behaviou?r|changes?)|unchanged|use|using)\b",
    0,  # run on lower-cased text
    needs=(
        *("don", "do not", "never", "must not", "mustn", "without", "only", "keep", "leave"),
        *("instead of", "rather than", "not the", "preserve", "avoid", "as a fallback"),
        *("for now", "one commit each", "no ", "unchanged", "use", "using"),
    ),
)
# What a text must contain for the pattern to match at all: a substring test skips the scan.
_EXPECTED_ACTUAL_WORDS = ("expected", "instead", "actual", "but", "rather than", "->", "=>", "→")
_EXAMPLE_WORDS = (">>>", "e.g.", "for example", "for instance", "example:", "given", "such as")
_HEDGE_WORDS = (
    "maybe",
    "perhaps",
    "something",
    "not sure",
    "guess",
    "kind of",
    "sort of",
    "possibl",
    "whatever",
    "decided",
    "either",
    "whichever",
)

# "the settings page", "the Save button", "the events table": a specific thing named in prose.
_NAMED_OBJECT_NOUNS = (
    "page|button|table|column|field|endpoint|screen|form|modal|dialog|job|queue"
    "|topic|bucket|index|flag|setting|view|tab|menu|route|handler|webhook|header|cookie"
    "|template|component|hook|query|command|subcommand|function|method|class"
)
_NAMED_OBJECT_RE = LazyPattern(
    r"(?<![\w-])(?!(?:the|a|an|all|every|each|this|that|these|those|our|my|your|some|any|new|old|its)\b)"
    rf"[a-z][\w-]* (?:{_NAMED_OBJECT_NOUNS})\b",
    # every match ends in a noun after a space: the gate finds it from the text's spaces
    gates=(rf" (?:{_NAMED_OBJECT_NOUNS})\b",),
)
# Observed vs wanted behaviour: "returns 500 instead of 400", "expected X but got Y".
_EXPECTED_ACTUAL_RE = lazy_words(
    r"\bexpected\b[^.\n]{0,120}\b(?:but|got|instead|actual)|\binstead of\b|\bactual(?:ly)?:"
    r"|\bshould (?:be|return|show|print|raise)\b[^.\n]{0,120}\bbut\b|\bbut (?:it )?(?:gets?|got"
    r"|returns?|shows?|prints?|raises?)\b|\b(?:returns?|gives?|shows?|prints?) [^.\n]{1,60}"
    r"\b(?:instead|rather than)\b|->|=>|→",
    needs=_EXPECTED_ACTUAL_WORDS,
)
# Worked examples: doctests, "e.g.", "for example", given/when/then.
_EXAMPLE_RE = lazy_words(
    r"^\s*>>>|\be\.g\.|\bfor (?:example|instance)\b|\bexample:|\bgiven\b[^.\n]{1,80}\bwhen\b"
    r"|\bsuch as\b",
    re.MULTILINE,
    needs=_EXAMPLE_WORDS,
)
# Hedges and alternatives left open: the author has not decided.
_HEDGE_RE = lazy_words(
    r"\bmaybe\b|\bperhaps\b|\bor something\b|\bnot sure\b|\bi guess\b|\bsome kind of\b"
    r"|\bsomething like\b|\bkind of\b|\bsort of\b|\bpossibly\b|\bor maybe\b|\bif possible\b"
    r"|\bor whatever\b|\bi'?m not sure\b|\bnot decided\b|\beither\b[^.\n]{1,80}\bor\b"
    r"|\bwhichever\b",
    needs=_HEDGE_WORDS,
)
_WORD_RE = LazyPattern(r"[^\W_]+(?:['’][^\W_]+)?")
JOINED_WORD_RE = LazyPattern(r"[^\W_]+(?:['’-][^\W_]+)*")
_APOSTROPHE_PAIR_RE = LazyPattern(r"'[a-z0-9]+'")
# Verbs that open a unit of work; verification and constraint verbs are not here.
_CHANGE_VERBS_TEXT = """
    fix add implement create build remove delete drop upgrade bump update migrate rename
    refactor rewrite redesign optimize optimise improve speed make support investigate debug
    setup set wire deploy release convert port replace switch move write document clean tidy
    polish enhance modernize modernise simplify split extract pin disable enable revert handle
    integrate introduce install configure change sort group merge restructure correct validate
    unify dedupe cache paginate translate localize lower raise increase reduce"""
CHANGE_VERBS = frozenset(_CHANGE_VERBS_TEXT.split())


class Signals(NamedTuple):
    """What a prompt names concretely, and how it says what done looks like."""

    words: int
    paths: tuple[str, ...] = ()
    code_spans: int = 0
    fences: int = 0
    identifiers: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()
    metrics: tuple[str, ...] = ()
    numbers: int = 0
    hashes: int = 0
    quoted: int = 0
    criteria: tuple[str, ...] = ()
    restrictions: tuple[str, ...] = ()
    verbs: tuple[str, ...] = ()
    named_objects: int = 0
    expected_actual: bool = False
    examples: int = 0
    hedges: tuple[str, ...] = ()
    anchors: float = 0.0  # weighted count of concrete references a reader could look up

    @property
    def has_repro(self) -> bool:
        """Error text, a trace, or a concrete expected-vs-actual example."""
        return bool(self.errors or self.fences or self.quoted or self.expected_actual) or (
            self.numbers >= 2 and bool(self.criteria)
        )


@per_text
def first_digit(text: str) -> int:
    """Where `text`'s first digit is (-1: none): a scan for numbers starts there."""
    found = _DIGIT_RE.search(text)
    return found.start() if found is not None else -1


def words(text: str) -> list[str]:
    return _WORD_RE.findall(text)


@per_text
def joined_words(text: str) -> tuple[str, ...]:
    """Words with the apostrophes and hyphens inside them ("don't", "re-run") kept in one."""
    return tuple(JOINED_WORD_RE.findall(text))


def _lowered_words(text: str, low: str) -> list[str]:
    """`words(low)` for `low = text.lower()`, split from `joined_words(text)` (the turn
    reader has read them) when `text` is ASCII: the same words without another scan.

    `words` joins two letter runs across one apostrophe and never across a hyphen, so
    ASCII joined words split at their hyphens are its words, unless a piece holds two
    apostrophes ("rock'n'roll", which it pairs differently): then it scans.
    """
    if not text.isascii():
        return words(low)
    joined = "-".join(joined_words(text)).lower()
    if not joined:
        return []
    if "'" in joined and _APOSTROPHE_PAIR_RE.search(joined):
        return words(low)
    return joined.split("-")


def find_paths(text: str) -> list[str]:
    """File paths and file names (lower-cased); "and/or" needs an extension or depth to count."""
    text = text.lower()
    found: list[str] = []
    if "/" in text:
        for match in _PATH_RE.finditer(text):
            token = match.group(0)
            deep = token.count("/") >= 2 or token.endswith("/") or token.startswith("http")
            if deep or _EXT_RE.search(token):
                found.append(token)
    if "." in text:
        found.extend(name for name in _FILE_RE.findall(text) if "/" not in name)
    found.extend(_NAMED_FILE_RE.findall(text))
    return found


def extract(text: str) -> Signals:
    """All signals of `text`; cheap character checks skip patterns that cannot match.

    The patterns read with `findall` have no capturing groups: it returns whole matches.
    """
    low = text.lower()
    lowered = _lowered_words(text, low)
    digit_at = first_digit(text)
    has_digit = digit_at >= 0
    backtick = "`" in text
    found = Signals(
        words=len(lowered),
        paths=tuple(dict.fromkeys(find_paths(text))),
        code_spans=len(_CODE_SPAN_RE.findall(text)) if backtick else 0,
        fences=len(_FENCE_RE.findall(text)) // 2 if backtick else 0,
        identifiers=tuple(dict.fromkeys(_IDENT_RE.findall(text))),
        errors=tuple(_ERROR_RE.findall(text)),
        metrics=tuple(_METRIC_RE.findall(low)) + (("EXPLAIN",) if "EXPLAIN" in text else ())
        if has_digit or _METRIC_WORDS & set(lowered)
        else (),
        numbers=len(_NUMBER_RE.pattern.findall(text, digit_at)) if has_digit else 0,
        hashes=len(_HASH_RE.findall(text)) if has_digit else 0,
        quoted=len(_QUOTED_RE.findall(text)) if ('"' in text or "“" in text) else 0,
        criteria=tuple(_CRITERION_RE.findall(low)),
        restrictions=tuple(_RESTRICTION_RE.findall(low)),
        verbs=tuple(dict.fromkeys(filter(CHANGE_VERBS.__contains__, lowered))),
        named_objects=len(_NAMED_OBJECT_RE.findall(low)),
        expected_actual=_EXPECTED_ACTUAL_RE.search(low) is not None,
        examples=len(_EXAMPLE_RE.findall(low)),
        hedges=tuple(_HEDGE_RE.findall(low)),
    )
    return found._replace(anchors=anchor_weight(found))


def anchor_weight(sig: Signals) -> float:
    """Weighted count of concrete references a reader could look up."""
    return (
        1.5 * len(sig.paths)
        + 1.0 * min(sig.code_spans, 4)
        + 1.5 * min(sig.fences, 2)
        + 0.75 * min(len(sig.identifiers), 4)
        + 1.5 * min(len(sig.errors), 2)
        + 1.0 * min(sig.hashes, 2)
        + 0.5 * min(sig.quoted, 2)
        + 0.75 * min(sig.named_objects, 2)
    )


def has_anchor(text: str) -> bool:
    """Does this span name something concrete (path, code, identifier, error, hash)?"""
    return bool(
        _CODE_SPAN_RE.search(text)
        or find_paths(text)
        or _IDENT_RE.search(text)
        or _ERROR_RE.search(text)
        or _HASH_RE.search(text)
    )
