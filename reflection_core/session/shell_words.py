"""Shell words: a command line split into words, operators and heredoc bodies, then into
simple commands. The classifier (commands.py) reads what these say.

Our own tokenizer rather than `shlex`: `shlex` forgets whether an operator was
quoted (`grep ">" f` would look like a redirection), splits `FOO="a b"` wrongly in
non-POSIX mode and raises on unbalanced quotes. Ours keeps operators and words
apart, drops heredoc bodies out of the word stream, and never raises: an
unbalanced quote simply runs to the end of the line. Pure.
"""

from __future__ import annotations

import re

from reflection_core.records import field, record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal

if TYPE_CHECKING:
    TokenKind = Literal["word", "op", "heredoc"]
else:
    TokenKind = str  # the kinds are checked statically; a hook does not import typing

_OPERATORS = (
    "&>>",
    "<<<",
    "<<-",
    "&&",
    "||",
    ";;",
    "|&",
    ">>",
    "&>",
    ">&",
    "<&",
    ">|",
    "<<",
    ";",
    "|",
    "&",
    "(",
    ")",
    "<",
    ">",
)
_OPERATOR_CHARS = frozenset(";&|<>()")
_SEPARATORS = frozenset({";", "&&", "||", "|", "|&", "&", "(", ")", ";;"})
_WRITE_REDIRECTS = frozenset({">", ">>", ">|", "&>", "&>>", ">&"})
# Where output goes to be dropped or shown: Unix devices, and Windows' `nul` (cmd) and
# `$null` (PowerShell), which agents on Windows write to.
_HARMLESS_TARGETS = frozenset(
    {"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "-", "nul", "NUL", "$null"}
)


@record(frozen=True)
class Token:
    text: str
    kind: TokenKind = "word"


def tokenize(command: str) -> list[Token]:
    """Words, unquoted operators and heredoc bodies of a command line; never raises."""
    tokens: list[Token] = []
    word: list[str] = []
    in_word = False
    pending_heredocs: list[tuple[str, bool]] = []  # (delimiter, strip leading tabs)
    i, n = 0, len(command)

    def end_word() -> None:
        nonlocal in_word
        if in_word:
            tokens.append(Token("".join(word)))
            word.clear()
            in_word = False

    while i < n:
        ch = command[i]
        if ch == "\\" and i + 1 < n:
            if command[i + 1] == "\n":  # line continuation
                i += 2
                continue
            word.append(command[i + 1])
            in_word = True
            i += 2
        elif ch in _QUOTED_READERS and (ch != "$" or command.startswith("$(", i)):
            quoted, i = _QUOTED_READERS[ch](command, i)
            word.append(quoted)
            in_word = True
        elif ch == "#" and not in_word:
            newline = command.find("\n", i)
            i = n if newline < 0 else newline
        elif ch == "\n":
            end_word()
            i = _heredoc_bodies(command, i + 1, pending_heredocs, tokens)
            pending_heredocs.clear()
            tokens.append(Token(";", "op"))
        elif ch in " \t\r":
            end_word()
            i += 1
        elif ch in _OPERATOR_CHARS:
            if ch in "<>" and in_word and "".join(word).isdigit():
                word.clear()  # a file descriptor number: `2>/dev/null`
                in_word = False
            end_word()
            i = _operator(command, i, pending_heredocs, tokens)
        else:
            word.append(ch)
            in_word = True
            i += 1
    end_word()
    # heredocs never followed by a newline have no body to read
    tokens.extend(Token("", "heredoc") for _ in pending_heredocs)
    return tokens


def _single_quoted(command: str, i: int) -> tuple[str, int]:
    """`'...'` at `i`: its text taken literally, and where it ends (an unclosed one runs on)."""
    close = command.find("'", i + 1)
    close = len(command) if close < 0 else close
    return command[i + 1 : close], close + 1


def _double_quoted(command: str, i: int) -> tuple[str, int]:
    """`"..."` at `i`: its text, a backslash before `"`, `$`, a backquote or itself dropped;
    and where it ends."""
    text: list[str] = []
    i, n = i + 1, len(command)
    while i < n and command[i] != '"':
        if command[i] == "\\" and i + 1 < n and command[i + 1] in '"\\$`':
            i += 1
        text.append(command[i])
        i += 1
    return "".join(text), i + 1


def _command_substitution(command: str, i: int) -> tuple[str, int]:
    """`$(...)` at `i`, kept whole as part of the word, and where it ends."""
    close = _matching_paren(command, i + 1)
    return command[i : close + 1], close + 1


def _backquoted(command: str, i: int) -> tuple[str, int]:
    """`` `...` `` at `i`, kept whole as part of the word, and where it ends."""
    close = command.find("`", i + 1)
    close = len(command) if close < 0 else close
    return command[i : close + 1], close + 1


# The quoting that starts at a character: read as one piece of the current word.
_QUOTED_READERS = {
    "'": _single_quoted,
    '"': _double_quoted,
    "$": _command_substitution,  # only `$(`; a bare `$` is an ordinary character
    "`": _backquoted,
}


def _operator(
    command: str, i: int, pending_heredocs: list[tuple[str, bool]], tokens: list[Token]
) -> int:
    """The operator at `i` appended to `tokens`; a `<<` notes its heredoc. Where it ends."""
    op = next(o for o in _OPERATORS if command.startswith(o, i))
    tokens.append(Token(op, "op"))
    i += len(op)
    if op in ("<<", "<<-"):
        delimiter, i = _heredoc_delimiter(command, i)
        if delimiter:
            pending_heredocs.append((delimiter, op == "<<-"))
    return i


def _heredoc_bodies(
    command: str, i: int, pending_heredocs: list[tuple[str, bool]], tokens: list[Token]
) -> int:
    """The bodies of the heredocs a line opened, read from `i` into `tokens`; where they end."""
    for delimiter, strip_tabs in pending_heredocs:
        body, i = _read_heredoc(command, i, delimiter, strip_tabs)
        tokens.append(Token(body, "heredoc"))
    return i


def _matching_paren(text: str, open_at: int) -> int:
    depth = 0
    for j in range(open_at, len(text)):
        if text[j] == "(":
            depth += 1
        elif text[j] == ")":
            depth -= 1
            if depth == 0:
                return j
    return len(text) - 1


def _heredoc_delimiter(command: str, i: int) -> tuple[str, int]:
    match = re.compile(r"[ \t]*(['\"]?)([^\s'\";&|<>()]+)\1").match(command, i)
    if not match:
        return "", i
    return match.group(2), match.end()


def _read_heredoc(command: str, i: int, delimiter: str, strip_tabs: bool) -> tuple[str, int]:
    lines: list[str] = []
    while i < len(command):
        newline = command.find("\n", i)
        end = len(command) if newline < 0 else newline
        line = command[i:end]
        i = end + 1
        if (line.lstrip("\t") if strip_tabs else line).rstrip() == delimiter:
            return "\n".join(lines), i
        lines.append(line)
    return "\n".join(lines), len(command)


@record
class Segment:
    """One simple command: its words, write redirections, heredoc bodies, what follows it."""

    words: list[str] = field(default_factory=list)
    writes: list[str] = field(default_factory=list)
    heredoc: str = ""
    then: str | None = None  # the operator after it: "&&", "|", ";", ...


def segments(tokens: list[Token]) -> list[Segment]:
    segments: list[Segment] = [Segment()]
    expect_target: str | None = None
    for token in tokens:
        current = segments[-1]
        if token.kind == "heredoc":
            current.heredoc += token.text
        elif token.kind == "op" and token.text in _SEPARATORS:
            current.then = token.text
            segments.append(Segment())
            expect_target = None
        elif token.kind == "op":
            expect_target = token.text
        elif expect_target is not None:
            if expect_target in _WRITE_REDIRECTS and not _harmless_target(token.text):
                current.writes.append(token.text)
            expect_target = None
        else:
            current.words.append(token.text)
    return [s for s in segments if s.words or s.writes]


def _harmless_target(target: str) -> bool:
    return target in _HARMLESS_TARGETS or target.isdigit() or target.startswith("&")
