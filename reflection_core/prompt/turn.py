"""What kind of turn a prompt is, read from the prompt and the agent's previous message.

Only a *new task* is scored. A reply to the agent (an answer, an approval, a
choice, the information it asked for), a question to the agent and chat are
not: asking a user to clarify their own "yes" is the false alarm that makes
people switch a prompt hook off. The reader works in any language from phrase
tables (`phrases`), punctuation and the shape of the previous message; where it
cannot tell, it leans towards "not a new task", because staying quiet costs less
than a needless question.
"""

from __future__ import annotations

import re

from reflection_core.lazyre import lazy
from reflection_core.prompt import continuation, phrases
from reflection_core.prompt.signals import JOINED_WORD_RE, LazyPattern, joined_words, per_text
from reflection_core.records import NamedTuple

# Text the host adds around the user's words (IDE context, reminders): not the user's request.
_HOST_BLOCK = LazyPattern(
    r"<(ide_opened_file|ide_selection|system-reminder|command-[\w-]+|local-command-[\w-]+)>"
    r".*?</\1>",
    re.DOTALL,
)
_TRANSCRIPT_LABEL = LazyPattern(r"^\s*(?:Human|Assistant):\s*", re.MULTILINE)
_ATTACHMENT = LazyPattern(r"\[(?:image|pasted text|file)\b[^\]]*\]|(?<![\w@])@[\w./\\~\"-]+", re.I)
_LETTER_OR_DIGIT = LazyPattern(r"[^\W_]")
_LATIN_WORD = LazyPattern(r"[A-Za-z][A-Za-z'’-]*")
_NO_SPACE_SCRIPT = LazyPattern(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
_ASKS_BACK = LazyPattern(
    r"\?|？|\b(?:want me to|would you like|shall i|should i|let me know|tell me|do you want"
    r"|y/n|please confirm|choose|pick one|soll ich|möchtest du|willst du|voulez-vous|veux-tu"
    r"|tu veux|quieres|prefieres"
    r"|deseja|quer que)\b|要我|需要我|是否|원하시면|할까요|しますか",
    re.IGNORECASE,
    # ASCII text holds one of these (the other phrases are in other scripts); "?" is read first
    needs=(
        *("?", "want me to", "would you like", "shall i", "should i", "let me know", "tell me"),
        *("do you want", "y/n", "please confirm", "choose", "pick one", "soll ich", "willst du"),
        *("voulez-vous", "veux-tu", "tu veux", "quieres", "prefieres", "deseja", "quer que"),
    ),
)
_HERE_IS_MY_FILE = LazyPattern(
    r"\bhere(?:'s| is| are)\s+(?:my|the|a|an|our)\b[^\n.?!]{0,40}?"
    r"\b(?:file|files|doc|document|config|log|logs|screenshot|image|spec|list)\b",
    re.IGNORECASE,
    needs=("here",),
)
# "the mockup I sent", "the log I just pasted": something the user believes came along.
_SENT_BY_USER = LazyPattern(
    r"\b(?:the|my)\s+(?:[\w-]+\s+){0,2}?(?:file|image|screenshot|picture|photo|log|logs|mockup"
    r"|pdf|doc|document|design|spec|diagram|video|recording|diff|pr|trace|error|output|link"
    r"|snippet|code|function|method|class|query|script|message|email|table)s?\s+i(?:'ve|\s+have)?\s+"
    r"(?:just\s+)?(?:sent|pasted|attached|shared|uploaded|dropped|linked)\b",
    re.IGNORECASE,
    needs=("sent", "pasted", "attached", "shared", "uploaded", "dropped", "linked"),
)
# English requests phrased as questions ("can you add X?") are tasks, not questions.
_REQUEST_QUESTION = LazyPattern(
    r"\b(?:can|could|would|will)\s+you\s+"
    r"(?:please\s+)?(?:add|fix|make|implement|write|create|remove|delete|update|change|improve"
    r"|refactor|build|set\s+up|setup|move|rename|migrate|convert|optimi[sz]e|clean|support|handle"
    r"|deploy|install|configure|replace|switch|speed|port|rewrite|redo|review)\b",
    re.IGNORECASE,
)

_FILLER = LazyPattern(
    r"^(?:(?:please|pls|can you|could you|would you|just|now|ok|okay|so)\b[\s,]*)+"
)

_LOCAL_PATH_ONLY = LazyPattern(
    r"""^["'`]?(?:[a-zA-Z]:)?(?:~|\.{1,2})?[\\/][^\s"'`]*["'`]?$|^["'`]?[a-zA-Z]:[\\/][^\s"'`]*["'`]?$"""
)
_COMMAND_WORDS = frozenset(phrases.COMMAND_WORDS)
_SHELL_PROGRAMS = frozenset(phrases.SHELL_PROGRAMS)
_IRREVERSIBLE = LazyPattern(
    r"(?<![a-z])drop[_ ](?:\w+[_ ])?(?:tables?|database|columns?|schema)\b|\btruncate\b"
    r"|\bdelete from\b|\brm -rf\b|\bforce[- ]push|\bpush (?:-f|--force)\b|\breset --hard\b"
    r"|\bdropdb\b",
    re.IGNORECASE,
    needs=("drop", "truncate", "delete from", "rm -rf", "force", "push ", "reset --hard"),
)
_REFUSAL = LazyPattern(
    r"\b(?:no|not|don'?t|nope|non|nein|нет|never|wait|stop)\b|不|别|別|아니|いいえ|待って"
)
_PRODUCTION = LazyPattern(r"\bprod(?:uction)?\b|生产|生產|本番|운영", re.IGNORECASE)

# A pasted path: quoted, or with its spaces escaped ("Screenshot\\ 1.png").
# A file named any way: `a/b`, `C:\\x`, `report.pdf`, `.env.example` (an extension holds a
# letter: "3.12" is a version).
_FILE_NAME = LazyPattern(
    r"[\w.~-][\\/][\w.-]|(?<![\w.-])\.?[\w-]+\.(?=[a-z0-9]{0,5}[a-z])[a-z0-9]{1,6}\b"
    r"|(?<![\w/])\.[a-z][\w.-]+|\b(?:license|readme|changelog|codeowners|[a-z]+file)\b",
    re.IGNORECASE,
)
# Code named in a prompt: snake_case, camelCase with a lower-case run first (not iPhone,
# macOS), PascalCase ending in a kind of code (UserCard, TypeError; not PowerPoint or
# GitHub), a capitalised name before a kind of code ("the Orders table"), or a call.
_CODE_NAME = LazyPattern(
    r"\b[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]*[A-Za-z0-9]\b|\b[a-z]{2,}[A-Z][a-z]\w*|\b\w+\(\)"
    rf"|\b[A-Z][A-Za-z0-9]*(?:{'|'.join(phrases.CODE_SUFFIXES)})s?\b"
    rf"|(?<=\w )[A-Z][A-Za-z0-9]* (?:{'|'.join(phrases.CODE_KINDS)})\b"
)
_PATH_TOKEN = LazyPattern(r"'[^'\n]+'|\"[^\"\n]+\"|(?:\\ |[^\s'\"])+")
_PICTURE_NAME_TAIL = LazyPattern(
    r" [^\n/'\"]{0,60}?\.(?:png|jpe?g|gif|heic|tiff?|webp|mov|mp4)\b", re.IGNORECASE
)
_VANISHED_MAX_WORDS = 20  # beyond this the user's words carry the message, not the picture
_PASTED_MIN_WORDS = 12  # content beside "this document" that may be the document itself
_POINTER_MAX_WORDS = 30  # "fix this file" is short; a long task describes what it means
REPLY_KINDS = ("continuation", "reply")
QUIET_KINDS = ("continuation", "reply", "question", "chat", "command", "output")
_SHORT_REPLY_WORDS = 6  # a short message after an offer answers it, in any language
_NEW_TARGET = lazy(
    r"https?://|`|(?<![\w-])[\w-]+\.[a-z]{1,5}\b|[\\/]\w|\b[a-z]+_[a-z_]+\b|\b[a-z]+[A-Z]\w*\b"
)
# Lines of logs, traces, JSON and compiler or test-runner output: a timestamp, a frame, a
# level, a brace, a prompt; `file:12:` locations, rustc's `-->` and `|` gutter, `error[E..]:`,
# pytest's `E   ` and `===`/`___` rules, go's `--- FAIL:` and `FAIL`/`ok` package lines.
_OUTPUT_LINE = lazy(
    r"^\s*(?:\d{1,4}[-/:.]\d{1,2}[-/:.]\d{1,4}|\[\d|at\s+\S+\s*\(|File \"|Traceback"
    r"|[\w.]*(?:Error|Exception)\b|(?:ERROR|WARN(?:ING)?|INFO|DEBUG)\b|[{}\[\]]|\"[\w-]+\":"
    r"|\$ |> |\+\s|-\s{2}|npm (?:ERR|WARN)"
    r"|[\w./-]+:\d+:|-->\s|(?:\d+\s*)?\|(?:\s|$)|(?:error|warning)(?:\[\w+\])?:|E\s{2,}"
    r"|={3,}|_{3,}|--- (?:FAIL|PASS|SKIP)|(?:FAIL|PASS|ok)(?:\s|$))"
)


class Turn(NamedTuple):
    """The reader's verdict: `kind` is one of continuation, reply, question, chat, empty, task."""

    kind: str  # also "command" (a shell command line) and "output" (pasted logs, JSON)
    text: str  # the user's own words: host blocks and transcript labels removed
    attached: bool = False  # an image, a file mention or an IDE file came with the prompt
    live: bool = False  # the agent's previous message is known

    @property
    def quiet(self) -> bool:
        return self.kind in QUIET_KINDS


def user_words(prompt: str) -> tuple[str, bool]:
    """The user's words without host blocks, and whether a file or image came along."""
    attached = False
    text = prompt
    if "<" in text:
        stripped = _HOST_BLOCK.sub(" ", text)
        attached = stripped != text  # an opened file or listed references came along
        text = stripped
    if "Human:" in text or "Assistant:" in text:
        text = _TRANSCRIPT_LABEL.sub("", text)
        lines = list(dict.fromkeys(line for line in text.splitlines() if line.strip()))
        text = "\n".join(lines)
    if "[" in text or "@" in text:
        attached = attached or _ATTACHMENT.search(text) is not None
    return text.strip(), attached


@per_text
def _normalized(text: str) -> str:
    return " ".join(text.lower().split()).strip(" .!。！~,，")


_FILLER_OPENERS = ("please", "pls", "can you", "could you", "would you", "just", "now", "ok", "so")


@per_text
def _without_filler(text: str) -> str:
    """Normalised text without the politeness before the request ("please", "can you")."""
    low = _normalized(text)
    return _FILLER.sub("", low) if low.startswith(_FILLER_OPENERS) else low


_words = joined_words


def opens_with(text: str, table: tuple[str, ...]) -> bool:
    """Does lower-cased `text` open with a phrase of `table` (a whole word, or a CJK prefix)?"""
    if not text.startswith(table):  # one scan of the table in C; most texts open otherwise
        return False
    for phrase in table:
        if text.startswith(phrase):
            rest = text[len(phrase) :]
            if not rest or not rest[0].isalnum() or _NO_SPACE_SCRIPT.match(phrase[-1]):
                return True
    return False


# The tables' phrases an ASCII text can hold: a phrase in another script is never in one.
_ASCII_REFERENTS = tuple(phrase for phrase in phrases.MISSING_REFERENT if phrase.isascii())
_ASCII_INVITATIONS = tuple(phrase for phrase in phrases.INVITED_QUESTIONS if phrase.isascii())
# A word each ASCII phrase above holds (a test checks every phrase): a text holding none of
# them skips the table.
_REFERENT_WORDS = (
    *("fil", "doc", "pdf", "screenshot", "image", "attach", "link above", "fichier", "archivo"),
    *("arquivo", "datei", "fichero", "code", "snippet", "func", "script", "dosya", "plik"),
    *("bestand", "dokument", "bild", "capture", "erro", "text", "paragraph", "log", "output"),
    *("email", "query", "codigo", "fonction", "funktio", "fehler", "codice", "testo", "kod"),
    *("fonksiyon", "hata", "functie", "fout", "captura", "funzione", "funkcja", "erreur"),
    *("fungsi", "bug", "line", "test", "above", "below", "soubor", "funkce", "funkci", "mand"),
    *("joint", "regex", "component", "endpoint", "command", "cell", "trace", "warning"),
    *("exception", "diff", "funksjonen", "tiedosto"),
)
_INVITATION_WORDS = (
    *("ask", "interview", "question", "pregunta", "duda", "fragen", "unklar", "domande"),
    *("dubbi", "pytania"),
)


def _contains(text: str, table: tuple[str, ...]) -> bool:
    return _first_in(text, table) is not None


def _first_in(text: str, table: tuple[str, ...]) -> str | None:
    """The first phrase of `table` that `text` holds (a loop: no generator per call)."""
    for phrase in table:
        if phrase in text:
            return phrase
    return None


def is_question(text: str) -> bool:
    """A question to the agent, in any language; "can you add X?" is a request, not one."""
    low = _normalized(text)
    if not low:
        return False
    tail = text.rstrip().rstrip(" )\"'”」』*_~")
    if tail.endswith(("?", "？")):
        return _REQUEST_QUESTION.search(low) is None
    if opens_with(low, phrases.QUESTION_OPENERS) and len(low.split()) <= 25:
        return True
    if low.isascii():  # the markers are of scripts written without spaces
        return False
    return bool(_NO_SPACE_SCRIPT.search(low)) and _contains(low, phrases.QUESTION_MARKERS)


def asks_for_information(text: str) -> bool:
    """Explain, compare, tell me: the answer is text, nothing in the project changes."""
    return opens_with(_without_filler(text), phrases.INFORMATION_REQUESTS)


def is_chat(text: str) -> bool:
    low = _normalized(text)
    return opens_with(low, phrases.CHAT) and 0 < len(_words(low)) <= 4  # cheap test first


def asks_back(prev_assistant: str) -> bool:
    """Does the end of the agent's message ask the user something or offer to do something?"""
    tail = prev_assistant[-600:]
    return "?" in tail or "？" in tail or _ASKS_BACK.search(tail) is not None  # marks: no scan


def is_answer(text: str) -> bool:
    """Opens like an answer: yes, no, ok, "fais les 3", "ja", "好的", "option 2"."""
    low = _normalized(text)
    if opens_with(low, phrases.ANSWER_OPENERS):
        return True
    first = low.split(maxsplit=1)[0] if low else ""
    return first.rstrip(").:,").isdigit() or first in ("option", "opción", "option:")


@per_text
def word_count(text: str) -> int:
    """Words, counting two characters of a script written without spaces as one word."""
    cjk = 0 if text.isascii() else len(_NO_SPACE_SCRIPT.findall(text))
    spaced = JOINED_WORD_RE.findall(_NO_SPACE_SCRIPT.sub(" ", text)) if cjk else _words(text)
    return len(spaced) + (cjk + 1) // 2


@per_text
def latin_share(text: str) -> float:
    """Share of the words written in Latin letters: how far English phrase rules can read it."""
    words = _words(text)
    if not words:
        return 0.0
    if text.isascii():  # every word is ASCII: all Latin if one is (latin / latin), else none
        return 1.0 if _LATIN_WORD.search(text) else 0.0
    cjk = len(_NO_SPACE_SCRIPT.findall(text))
    latin = len(_LATIN_WORD.findall(text))
    return latin / max(1, latin + cjk // 2 + sum(1 for w in words if not w.isascii()))


def missing_referent(text: str, attached: bool, prev_assistant: str | None) -> str | None:
    """The phrase pointing at something neither the prompt nor the conversation supplies.

    Only on a cold start: in a conversation the agent has been reading and editing files
    the hook never sees (its tool calls, the IDE), and "this file" is the one at hand."""
    if attached or (prev_assistant and prev_assistant.strip()):
        return None
    if "```" in text or len(text) > 1500:
        return None
    return _unsupplied_pointer(text)


def _unsupplied_pointer(text: str) -> str | None:
    """The words of the prompt pointing at a file it neither names nor carries."""
    low = text.lower()
    if not low.isascii():
        found = _first_at_word(low, phrases.MISSING_REFERENT, text)
    elif _contains(low, _REFERENT_WORDS):
        found = _first_at_word(low, _ASCII_REFERENTS, text)
    else:
        found = None
    if found is not None:
        phrase, start = found
        if word_count(text) > _POINTER_MAX_WORDS or _generic(low):
            return None  # a description says what it means, or means any such file
        if names_a_file(text) or names_code(text) or "http" in low:
            return None  # the prompt names what it means, or where the code search finds it
        if _pasted_beside(text, start, start + len(phrase)):
            return None
        shown = text if len(text) == len(low) else low
        return _whole_noun_phrase(shown, start, start + len(phrase))
    sent = _SENT_BY_USER.search(text)
    if sent is not None and "\n" not in text.strip() and not names_a_file(text):
        return sent.group(0)  # "the mockup I sent", "the log I just pasted": none came
    here = _HERE_IS_MY_FILE.search(text)
    if here is None or "\n" in text.strip() or len(text) > 400:
        return None  # nothing pointed at, or the file's content follows
    if word_count(text[here.end() :].partition(":")[2]) >= 2:
        return None  # "here's the list: a, b, c, ...": the content follows on the line
    return here.group(0)


def _whole_noun_phrase(text: str, start: int, end: int) -> str:
    """The pointer as the user reads it: with the noun after "the attached" ("the attached
    image") or before a relative clause ("скриншот, который я прикрепил")."""
    phrase = text[start:end]
    if phrase.lower().endswith("attached"):
        after = _NEXT_WORD.match(text, end)
        return phrase + after.group(0) if after else phrase
    if phrase.split(" ", 1)[0].lower() in _RELATIVE_OPENERS:
        before = _PREVIOUS_WORD.search(text[:start])
        return text[before.start() : end] if before else phrase
    return phrase


_NEXT_WORD = lazy(r" [^\W\d_]+")
_PREVIOUS_WORD = lazy(r"[^\W\d_]+[,\s]+$")
_RELATIVE_OPENERS = frozenset({"que", "который", "которую", "den", "die", "das"})


def _first_at_word(low: str, table: tuple[str, ...], cased: str = "") -> tuple[str, int] | None:
    """The first phrase of `table` in `low` standing as words, and where: "this doc" is not
    in "this docker", nor Korean "이 파일" in "설정이 파일에" (the 이 there ends a word), nor
    one in quotes. Scripts written without spaces have no word edges to check."""
    for phrase in table:
        start = low.find(phrase)
        while start >= 0:
            end = start + len(phrase)
            before = low[start - 1] if start else " "
            after = low[end] if end < len(low) else " "
            spaced = _NO_SPACE_SCRIPT.match(phrase) is None or "\uac00" <= phrase[0] <= "\ud7af"
            inside_word = before.isalnum() or (
                phrase[-1].isascii() and (after.isalnum() or after == "_")
            )
            if not ((spaced and inside_word) or _not_pointing(low, phrase, start, cased)):
                return phrase, start
            start = low.find(phrase, start + 1)
    return None


def _not_pointing(low: str, phrase: str, start: int, cased: str) -> bool:
    """Is this pointer phrase text the prompt quotes, part of a longer noun, "above" with
    an object of its own, "the attached" before a thing that is no document, a condition
    of a feature, a thing the prompt itself makes first, or a container image, rather
    than something the user points at?"""
    end = start + len(phrase)
    return (
        _quoted(low, start)
        or _compound(low, end)
        or _mentioned(low, start, end, cased)
        or _positional(low, phrase, end)
        or _attached_thing(low, phrase, end)
        or _conditional(low, start, end)
        or _made_earlier(low, start)
        or ("image" in phrase and _contains(low, phrases.CONTAINER_WORDS))
    )


def _attached_thing(low: str, phrase: str, end: int) -> bool:
    """ "the attached device", "the attached IAM policy": attached to something in the
    system. Only a document-like noun ("the attached file", "the attached screenshot") or
    none at all is a file the user meant to send."""
    if phrase != "the attached":
        return False
    following = low[end : end + 30].split(maxsplit=1)
    word = following[0].strip(".,:;!?") if following else ""
    if word in phrases.DOCUMENT_NOUNS:  # "the attached screenshot feature": a longer noun
        return _compound(low, low.find(word, end) + len(word))
    return bool(word) and word[:1].isalpha()


def _conditional(low: str, start: int, end: int) -> bool:
    """ "if this file exceeds 10 MB", このファイルが…たら: a condition a feature tests, not a
    file the user forgot to give. The condition opens right before the pointer, or ends
    soon after it in a language that marks it there."""
    before = low[max(0, start - 20) : start].rstrip(" ,")
    if _ends_with_word(before, phrases.CONDITION_OPENERS):
        return True
    after = low[end : end + 25]
    return any(marker in after for marker in phrases.CONDITION_CLOSERS)


def _made_earlier(low: str, start: int) -> bool:
    """ "generate the monthly report and email this file to finance": the prompt makes the
    thing first (a `MAKING_VERBS` word), then, past a clause link, points back at it."""
    before = low[:start]
    made = _word_start(before, phrases.MAKING_VERBS)
    if made < 0:
        return False
    rest = f" {before[made:]} "
    return any(
        (f" {link} " if link.isalpha() and link.isascii() else link) in rest
        for link in phrases.CLAUSE_LINKS
    )


def _word_start(text: str, table: tuple[str, ...]) -> int:
    """Where the first phrase of `table` starts a word of `text` (a stem: "erstell" in
    "erstelle"; any place in a script written without spaces), or -1."""
    for phrase in table:
        at = text.find(phrase)
        while at >= 0:
            if (not phrase.isascii() and _NO_SPACE_SCRIPT.match(phrase)) or (
                at == 0 or not text[at - 1].isalnum()
            ):
                return at
            at = text.find(phrase, at + 1)
    return -1


def _mentioned(low: str, start: int, end: int, cased: str) -> bool:
    """Is the phrase quoted without quote marks: right after a word that introduces text
    ("a comment saying this file is generated"), after such a word and one capitalised
    word (a label: "the tooltip says Drop this file here"), or before a quotative
    (このファイルは自動生成です という)?"""
    before = low[max(0, start - 60) : start].rstrip(" :：,，")
    if _ends_with_word(before, phrases.MENTION_WORDS):
        return True
    words = before.split()
    label = cased[max(0, start - 60) : start].split()[-1:] if len(cased) == len(low) else []
    labelled = len(words) >= 2 and bool(label) and label[0][:1].isupper()
    ahead_of_label = before[: before.rfind(words[-1])].rstrip() if labelled else ""
    if labelled and _ends_with_word(ahead_of_label, phrases.MENTION_WORDS):
        return True
    return _contains(low[end : end + 30], phrases.QUOTATIVE_WORDS)


def _ends_with_word(text: str, table: tuple[str, ...]) -> bool:
    """Does `text` end with a phrase of `table` (a whole word, or one of a script written
    without spaces)?"""
    for phrase in table:
        if text.endswith(phrase):
            edge = len(text) - len(phrase) - 1
            if not phrase.isascii() or edge < 0 or not text[edge].isalnum():
                return True
    return False


def _positional(low: str, phrase: str, end: int) -> bool:
    """Does "the file above" have an object of its own ("the link above the footer",
    "the file above 2 GB")? Then "above" places or compares it; nothing is pointed at."""
    if not phrase.endswith(("above", "below")):
        return False
    following = low[end : end + 30].split(maxsplit=1)
    word = following[0] if following else ""
    return word in phrases.POSITION_OBJECTS or word[:1].isdigit()


def _quoted(low: str, start: int) -> bool:
    """Is `start` inside quotes or inline code on its line: a label or a string mentioned
    ("the button 'Upload this file'", « Télécharger ce fichier »), not a thing pointed at?"""
    line = low[low.rfind("\n", 0, start) + 1 : start]
    if line.count('"') % 2 or line.count("`") % 2:
        return True
    for opener, closer in ("“”", "„“", "«»", "「」", "『』", "‘’"):
        if line.rfind(opener) > line.rfind(closer):
            return True
    opening = [i for i, c in enumerate(line) if c == "'" and (i == 0 or not line[i - 1].isalnum())]
    return bool(opening) and "'" not in line[opening[-1] + 1 :]


def _generic(low: str) -> bool:
    """Does the request speak of files in general ("for each attachment", "if a file")?"""
    for phrase in phrases.GENERIC_FILE_CONTEXT:
        at = low.find(phrase)
        if at >= 0 and not (phrase.isascii() and at and low[at - 1].isalnum()):
            end = at + len(phrase)
            if not phrase.isascii() or end == len(low) or not low[end].isalnum():
                return True
    return False


def _compound(low: str, end: int) -> bool:
    """Does the phrase run on into a longer noun ("this file system", "this file format",
    "the attached event listeners", 这个文件夹)? Then it names a kind of thing, not a file."""
    rest = low[end : end + 40]
    if rest[:1] in phrases.REFERENT_RUN_ON_CHARS:
        return True
    word = rest.split(maxsplit=1)[0].strip(".,:;!?") if rest.strip() else ""
    if not rest[:1].isspace():
        return False
    # A Korean particle joins the noun it follows (형식을, 형식(HEIC)을): match its start.
    return word in phrases.REFERENT_RUN_ON_WORDS or (
        not word.isascii() and word.startswith(_SPACED_RUN_ON_WORDS)
    )


_SPACED_RUN_ON_WORDS = tuple(w for w in sorted(phrases.REFERENT_RUN_ON_WORDS) if not w.isascii())


def names_code(text: str) -> bool:
    """Does `text` name code by an identifier (`parse_date`, `parseDate`, `render()`)? A
    search of the repository then finds what "this file" means."""
    return _CODE_NAME.search(text) is not None


def names_a_file(text: str) -> bool:
    """Does `text` name a file in any form: a path, a name with an extension, a dotfile,
    a Windows path? Wider than the scorer's paths: it only keeps a question back."""
    from reflection_core.prompt.signals import find_paths

    return bool(find_paths(text) or _FILE_NAME.search(text))


def _pasted_beside(text: str, start: int, end: int) -> bool:
    """Does the prompt carry what it points at (the phrase at `start:end`): code or a quote
    anywhere ("what does this function do? `const once = ...`"), an error code right after
    the phrase ("this error ECONNREFUSED", "este error 403"), what follows on its line
    (after a colon, or described after a dash, a bracket or the sentence's end: "this
    error - maximum update depth exceeded"), lines under it, or enough words around it?"""
    if _INLINE_CONTENT.search(text):
        return True
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", start)
    line = text[line_start : len(text) if line_end < 0 else line_end]
    after = line[end - line_start :].replace("\uff1a", ":")
    if _CODE_TOKEN.match(after.lstrip()) or _said_after(after):
        return True
    below = text[line_end:] if line_end >= 0 else ""
    rest = text[:line_start] + below
    return word_count(rest) >= _PASTED_MIN_WORDS or _block_below(line, below)


# A code that names an error by itself: ECONNREFUSED, SIGSEGV, TS2322, E11000, OOMKilled,
# ImagePullBackOff, an exit or HTTP status (137, 404); not an acronym of a kind of thing
# ("this file API", "the attached PDF").
_CODE_TOKEN = lazy(
    r"[`'\"(]?(\d{3,}|[A-Z]+\d[A-Z0-9]*|[A-Z][A-Z_]{4,}|[A-Z][a-z]+[A-Z]\w*|[A-Z]{2,}[a-z]\w*)"
    r"(?![\w-])"
)
# Where a line goes on to say what it points at: after a colon anything, after a dash, a
# bracket or the end of the sentence a description of a few words.
_AFTER_COLON = lazy(r":\s*\S")
_DESCRIBED_AFTER = lazy(r"(\s[-\u2013\u2014]\s|\(|[.!?\uff1f]\s)")
_DESCRIPTION_MIN_WORDS = 4


def _said_after(after: str) -> bool:
    if _AFTER_COLON.search(after):
        return True
    mark = _DESCRIBED_AFTER.search(after)
    return mark is not None and word_count(after[mark.end() :]) >= _DESCRIPTION_MIN_WORDS


# Content given inline: a code span, or quoted text of two characters or more.
_INLINE_CONTENT = lazy(
    r"`[^`\n]{2,}`|\"[^\"\n]{2,}\"|\u201c[^\u201d\n]{2,}\u201d|\u00ab[^\u00bb\n]{2,}\u00bb"
)


def _block_below(line: str, below: str) -> bool:
    """Lines under the pointing line that are its content, however few their words
    ("explain this error" over "Killed"), unless all that follows is a courtesy
    ("Make slides from this document." over "Thanks!")."""
    lines = [item.strip() for item in below.splitlines() if item.strip()]
    if len(lines) == 1 and _COURTESY.fullmatch(lines[0]):
        return False
    return bool(lines)


_COURTESY = lazy(
    r"(thanks|thank you|thx|ty|please|pls|cheers|merci|danke|gracias|obrigad[oa]|grazie|"
    r"спасибо|дякую|谢谢|謝謝|ありがとう\w*|감사합니다|고마워)[\s!.,]*",
    re.I,
)


def vanished_screenshot(text: str, attached: bool) -> str | None:
    """The name of a dropped screenshot the OS deletes within moments, when it carries the message.

    Dragging macOS's floating screenshot thumbnail into a terminal pastes a path in a
    staging folder that is emptied before the agent reads it: with only a few words
    beside it, what the user meant to show is lost. An attached image came through.
    """
    low = text.lower()
    if attached or not _contains(low, phrases.VANISHING_FILE_PLACES):
        return None
    for token in _PATH_TOKEN.findall(text):
        if _contains(token.lower(), phrases.VANISHING_FILE_PLACES):
            path = token.strip("'\"").replace("\\ ", " ")
            if path.lower().endswith(phrases.VANISHING_FILE_PLACES):
                return None  # the staging folder's name as a pattern, no file in it
            if _follows_example_marker(text, token):
                return None  # an example the task is about, not a dropped picture
            # A dragged name whose spaces nobody escaped runs on past the token:
            # "…/Screenshot 2026-03-01 at 09.15.22.png" is one file.
            at = text.find(token) + len(token)
            tail = _PICTURE_NAME_TAIL.match(text[at:]) if "." not in path[-6:] else None
            taken = token + tail.group(0) if tail else token
            if word_count(text.replace(taken, " ")) > _VANISHED_MAX_WORDS:
                return None  # the words say what the picture showed
            return path.rsplit("/", 1)[-1] + (tail.group(0) if tail else "")
    return None


def _follows_example_marker(text: str, token: str) -> bool:
    """Is `token` given as an example ("paths like …", "a prompt that contains …")?"""
    before = text[: text.find(token)].lower().rstrip(" :")
    return _ends_with_word(before, phrases.EXAMPLE_MARKERS)


def bare_request(read: Turn, names_something: bool, names_action: bool) -> str | None:
    """Nothing to act on: "empty" (no words) or "fragment".

    A fragment is one or two words that name nothing concrete and no action or
    command ("login", "Observability"); a reply to a question is never one.
    """
    if read.kind == "empty":
        return "empty"
    if read.kind != "task" or read.attached:
        return None
    text = read.text.strip()
    if _LOCAL_PATH_ONLY.match(text) or latin_share(text) < 0.6:
        return None  # a path alone is something to open; a script no table reads, unread
    if word_count(text) > 2 or names_something or names_action or is_command(text):
        return None
    if is_analysis(text):
        return None
    return "fragment"


def is_command(text: str) -> bool:
    """One or two words holding a command word: "push it", "flow status", "init"."""
    if word_count(text) > 2:
        return False
    return any(w.lower() in _COMMAND_WORDS for w in _words(text))


def is_shell_command(text: str) -> bool:
    """One line opening with a program's name: "git status", "claude doctor", "npm test"."""
    line = text.strip()
    words = line.split(maxsplit=12)  # a 13th item means more than twelve words
    if not words or "\n" in line or len(words) > 12:
        return False
    return words[0].lower() in _SHELL_PROGRAMS


def is_pasted_output(text: str) -> bool:
    """Logs, a traceback or JSON pasted alone: evidence to read, not a task to question."""
    lines = [line for line in text.strip().splitlines() if line.strip()]
    if len(lines) < 3:
        return False
    output = sum(1 for line in lines if _OUTPUT_LINE.match(line))
    return output * 3 >= len(lines) * 2


def proposes(prev_assistant: str) -> bool:
    """Did the agent's message end by proposing, offering, listing options or asking?"""
    tail = prev_assistant[-1200:]
    return (
        asks_back(prev_assistant)
        or continuation.proposes(tail)
        or len(continuation.offered_list(tail)) >= 2
    )


def names_new_target(text: str) -> bool:
    """A path, a file name, an identifier, a URL or code: the message brings its own object."""
    return _NEW_TARGET.search(text) is not None


def is_short_reply(text: str, prev_assistant: str | None) -> bool:
    """A few words right after an offer or a question answer it, whatever the language.

    A short message in a script the phrase tables do not read is never taken for a
    task either: it cannot be read well enough to question it.
    """
    if word_count(text) > _SHORT_REPLY_WORDS or names_new_target(text):
        return False
    if prev_assistant and proposes(prev_assistant):
        return True
    return bool(prev_assistant) and latin_share(text) < 0.6


def is_interjection(text: str) -> bool:
    """One word in capitals ("LISTEN", "STOP"): the user raising their voice, not a task.
    An acronym inside text of a script written without spaces (このファイルのCSSを直して) is
    one Latin word among many."""
    words = _words(text)
    return (
        len(words) == 1
        and len(words[0]) > 2
        and words[0].isupper()
        and words[0].isalpha()
        and word_count(text) == 1
    )


def invites_questions(text: str) -> bool:
    """The user asks to be asked: "ask clarifying questions if needed", not "don't ask me"."""
    low = _normalized(text)
    if low.isascii():
        table = _ASCII_INVITATIONS if _contains(low, _INVITATION_WORDS) else ()
    else:
        table = phrases.INVITED_QUESTIONS
    for phrase in table:
        at = low.find(phrase)
        if at >= 0 and _stands_alone(low, at, phrase) and not _turned_down(low[:at]):
            return True
    return False


def _stands_alone(text: str, at: int, phrase: str) -> bool:
    """Is `phrase` at `at` whole words ("interview me", not "interview meetings")?

    Phrases of scripts written without spaces match anywhere.
    """
    end = at + len(phrase)
    starts = at == 0 or not text[at - 1].isalnum() or _NO_SPACE_SCRIPT.match(phrase[0])
    ends = end == len(text) or not text[end].isalnum() or _NO_SPACE_SCRIPT.match(phrase[-1])
    return bool(starts and ends)


def _turned_down(before: str) -> bool:
    """Does the text right before an invitation negate it ("do not ask me questions")?"""
    tail = " " + before.rstrip(" ,;:")
    return tail.endswith(tuple(" " + word for word in phrases.INVITATION_NEGATIONS))


def is_analysis(text: str) -> bool:
    """Scan, review, read, explain: the repository supplies what is looked at."""
    return opens_with(_without_filler(text), phrases.ANALYSIS_OPENERS)


def is_go_ahead(text: str) -> bool:
    """A short affirmative answer: "yes", "do all of it", "你来全部执行" (no refusal in it)."""
    low = _normalized(text)
    return (
        word_count(low) <= 8
        and opens_with(low, phrases.ANSWER_OPENERS)
        and _REFUSAL.search(low) is None
    )


def irreversible_go_ahead(prev_assistant: str | None) -> str | None:
    """The irreversible production step a go-ahead would run, if the agent's plan has one."""
    if not prev_assistant:
        return None
    found = _IRREVERSIBLE.search(prev_assistant)
    if found is None or _PRODUCTION.search(prev_assistant) is None:
        return None
    return found.group(0)


def read(prompt: str, prev_assistant: str | None) -> Turn:
    """Pure: the kind of turn `prompt` is."""
    text, attached = user_words(prompt)
    live = bool(prev_assistant and prev_assistant.strip())
    turn = Turn("task", text, attached, live)
    if not _LETTER_OR_DIGIT.search(text):
        emoji = any(ord(char) >= 0x2190 for char in text)  # 👍, ✅, arrows: an answer
        return turn._replace(kind="reply" if (attached or live or emoji) else "empty")
    if live and opens_with(_normalized(text), phrases.RESUME):
        return turn._replace(kind="continuation")
    if is_shell_command(text):
        return turn._replace(kind="command")
    if is_pasted_output(text):
        return turn._replace(kind="output")
    if is_question(text) or asks_for_information(text):
        return turn._replace(kind="question")
    if is_chat(text):
        return turn._replace(kind="chat")
    if live and (is_answer(text) or asks_back(prev_assistant or "")):
        return turn._replace(kind="reply")
    if is_interjection(text):
        return turn._replace(kind="chat")
    if is_short_reply(text, prev_assistant):
        return turn._replace(kind="reply")
    return turn
