"""Speak a short, cleaned message through a configured command (`say`, `espeak-ng`, ...).

The command comes from the user's own config (`notify.speak`), is split with
shlex and run as an argv list with the text as its last argument: the spoken
text never passes through a shell.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess

from reflection_core.lazyre import lazy

_FENCED_CODE = lazy(r"```.*?(?:```|\Z)|~~~.*?(?:~~~|\Z)", re.S)
_INLINE_CODE = lazy(r"`[^`\n]*`")
_IMAGE = lazy(r"!\[([^\]\n]*)\]\([^)\n]*\)")
_LINK = lazy(r"\[([^\]\n]*)\]\([^)\n]*\)")
_URL = lazy(r"\bhttps?://\S+")
_HEADING = lazy(r"^\s{0,3}#{1,6}\s*", re.M)
_LIST_MARK = lazy(r"^\s*(?:[-*+]|\d+[.)])\s+", re.M)
_QUOTE = lazy(r"^\s*>\s?", re.M)
_TABLE_RULE = lazy(r"^\s*\|?\s*:?-{3,}.*$", re.M)
_EMPHASIS = lazy(r"(\*\*|__|\*|_|~~)(?=\S)(.+?)(?<=\S)\1")
_LEFTOVER = lazy(r"[*_#|<>`~]+")
_SPACE = lazy(r"\s+")
_SENTENCE_END = lazy(r"[.!?](?=\s)")


class SpeechError(RuntimeError):
    """The speech command is missing, failed or timed out."""


def clean_for_speech(text: str, max_chars: int) -> str:
    """Plain sentences from a markdown message: no code, links, markup; at most `max_chars`."""
    text = _FENCED_CODE.sub(" ", text)
    text = _INLINE_CODE.sub(" ", text)
    text = _IMAGE.sub(r"\1", text)
    text = _LINK.sub(r"\1", text)
    text = _URL.sub(" ", text)
    text = _TABLE_RULE.sub(" ", text)
    text = _HEADING.sub("", text)
    text = _LIST_MARK.sub("", text)
    text = _QUOTE.sub("", text)
    text = _EMPHASIS.sub(r"\2", text)
    text = _LEFTOVER.sub(" ", text)
    text = _SPACE.sub(" ", text).strip()
    return _cap(text, max_chars)


def _cap(text: str, max_chars: int) -> str:
    """Cut at the last sentence end that fits, else at a word boundary."""
    if len(text) <= max_chars:
        return text
    window = text[: max_chars + 1]
    ends = [m.end() for m in _SENTENCE_END.finditer(window)]
    if ends and ends[-1] >= max_chars // 2:
        return window[: ends[-1]].strip()
    cut = window[:max_chars].rsplit(" ", 1)[0].rstrip(",;:")
    return cut + "…" if cut else text[:max_chars]


# Speakers known to parse options with getopt: `--` ends their options.
_GETOPT_SPEAKERS = frozenset({"espeak", "espeak-ng", "say", "spd-say", "festival"})


def speech_argv(command: str, text: str) -> list[str]:
    """The argv for `command` speaking `text` (the text is one argument, never an option).

    An agent's final message is hostile input: `-w /path` as the text would make
    espeak-ng write a file. Leading dashes are dropped (they are never spoken) and
    known speakers get `--` before the text.
    """
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise SpeechError(f"notify.speak {command!r} cannot be parsed: {exc}") from None
    if not argv:
        raise SpeechError("notify.speak is empty")
    spoken = text.lstrip("-\u2010\u2011\u2012\u2013\u2014\u2212 \t\r\n") or "."
    if os.path.basename(argv[0]) in _GETOPT_SPEAKERS:
        return [*argv, "--", spoken]
    return [*argv, spoken]


def speak(command: str, text: str, *, timeout: float) -> None:
    """Run the speech command; raise SpeechError with the reason when it does not work."""
    if not text:
        return
    argv = speech_argv(command, text)
    try:
        proc = subprocess.run(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            timeout=timeout,
            check=False,
        )
    except FileNotFoundError:
        raise SpeechError(f"speech command {argv[0]!r} not found on PATH") from None
    except subprocess.TimeoutExpired:
        raise SpeechError(f"speech command {argv[0]!r} took longer than {timeout:g}s") from None
    except OSError as exc:
        raise SpeechError(f"speech command {argv[0]!r} failed to start: {exc}") from None
    if proc.returncode != 0:
        detail = proc.stderr.decode("utf-8", "replace").strip()[:200]
        raise SpeechError(f"speech command {argv[0]!r} exited {proc.returncode}: {detail}")
