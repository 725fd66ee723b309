"""Task context: what kind of task this is, which gates apply, and what it changed.

Task type comes from the user's words AND the actions taken, because either alone
misleads: "Fix the Dockerfile build error" mentions a build file but is coding; a
question answered with edits to source files was coding after all. Actions win
when they are decisive (source files changed); words decide when nothing changed.
"""

from __future__ import annotations

import re
from functools import lru_cache

from reflection_core.globs import path_matches
from reflection_core.lazyre import lazy
from reflection_core.paths import sha256_hex
from reflection_core.records import field, record
from reflection_core.session.model import Session, ToolCall

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

DOC_GLOBS = ("*.md", "*.rst", "*.txt", "*.adoc", "docs/**", "doc/**", "LICENSE*", "CHANGELOG*")

_CODING_WORDS = lazy(
    r"\b(fix(es|ed|ing)?|bug|broken|crash(es|ing)?|error|exception|failing|fails?|implement\w*|"
    r"refactor\w*|add(ing)?|feature|function|method|class|endpoint|regex|validation|"
    r"tests?|unit test|compile|build|type ?error|lint|migrat\w+|optimi[sz]e|patch|"
    r"rename|support|handle|parser?|api|module|script|code)\b",
    re.I,
)
_FIX_VERBS = lazy(
    r"\b(fix(es|ed|ing)?|implement\w*|refactor\w*|add(ing)?|create|write (a|the|an|some)|"
    r"make (it|the|them|this)|resolve|patch|debug|change|rename|remove|delete|migrate|"
    r"upgrade|port|optimi[sz]e|speed up|support)\b",
    re.I,
)
_ERROR_NOUNS = lazy(r"\b(bug|broken|crash\w*|error|exception|failing|fails?|regression)\b", re.I)
_DOCS_WORDS = lazy(
    r"\b(readme|docs?|documentation|docstrings?|changelog|tutorial|guide|typo|wording|"
    r"comments?|release notes)\b",
    re.I,
)
_DOCS_VERBS = lazy(r"\b(document|write up|proofread|reword)\b", re.I)
_OPS_WORDS = lazy(
    r"\b(deploy\w*|restart\w*|rollback|roll back|provision\w*|kubectl|helm|terraform apply|"
    r"rotate|scale (up|down)|disk space|clean ?up (the )?(server|disk|logs)|cron|systemd|"
    r"on[- ]call|incident|outage|ssh into|server)\b",
    re.I,
)
_RESEARCH_WORDS = lazy(
    r"^\s*(what|why|how|where|which|who|when|is|are|does|do|can|could|should)\b|"
    r"\b(explain|investigate|look into|research|find out|summari[sz]e|compare|analy[sz]e|"
    r"understand|tell me|review)\b|\?\s*$",
    re.I,
)
_PLAN_ONLY = lazy(
    r"\b(just|only) (plan|outline|propose|describe|sketch)\b|"
    r"\b(do not|don't|dont|no need to) implement\b|"
    # "don't change the xml" limits what may change; "don't change anything" asks for none.
    r"\b(do not|don't|dont|no need to) (change|edit|write|touch|modify) (anything|any (code|"
    r"files?)|the code|code|files|yet)\b|"
    r"\b(make|write|give me|draft|propose) (a|the|an) (plan|proposal|design)\b|"
    r"\bplan (only|first, don't)\b|\bwithout (making|implementing) (any )?changes\b|"
    r"^\W*(please )?plan (how|out|the|a|an)\b|"  # "Plan how we'd add i18n"
    r"\b(review|approve|see) (it |them |this |that |the plan |the steps )?before (you|we) "
    r"(start|begin|implement|code|change anything)\b",
    re.I,
)
_CONTINUATION = lazy(
    r"^\s*(continue|carry on|go on|go ahead|keep going|proceed|resume|yes|ok(ay)?|do it|"
    r"next|please continue|continue please)\b[\s.!]*$",
    re.I,
)
_PR_REQUEST = lazy(r"\b(open|create|raise|submit|make|send)\b.{0,30}\b(pr|pull request)\b", re.I)
# The user opens the PR, or wants none: "push it, I'll open the PR", "review it before I
# open the PR", "don't open a PR".
_PR_NOT_ASKED = lazy(
    r"\b(i|i'll|i will|i'm going to|we'll|don't|do not|no need to)\s+(open|create|raise|submit|"
    r"make|send)\b.{0,30}\b(pr|pull request)\b",
    re.I,
)
# `git checkout -- F` / `git restore F` on its own: the working copy of F goes back to
# the index (not `--staged`, not from another `--source`).
_RESTORE = lazy(
    r"^\s*git\s+(checkout\s+(HEAD\s+)?--|restore)\s+(?![^;&|]*(--staged|--source|-s\b|-S\b))"
    r"[^;&|<>`$]+$"
)
# "Make sure the frontend build still works", "run the tests and the linter": a check
# the user asked for by kind (its gate becomes required for a coding task).
_CHECK_CUE = r"\b(make sure|ensure|check|verify|confirm|double-check|run|keep)\b[^.?!\n]{0,80}"
_BUILD_REQUEST = lazy(
    _CHECK_CUE + r"\bbuild(?!\s*(dir\w*|folders?|artifacts?|artefacts?|outputs?|cache|files?|"
    r"scripts?|steps?|config\w*|/))\b|\bbuild (still )?(works|passes|succeeds|is (clean|green))\b|"
    r"\bbuilds (cleanly|successfully)\b",
    re.I,
)
_LINT_REQUEST = lazy(
    _CHECK_CUE + r"\b(lint|linter|linting|lints)\b|\blint(er|ing)? (is |are )?(clean|pass\w*|"
    r"green)\b",
    re.I,
)
_TREE_CHANGE = lazy(
    r"\bgit\s+(revert|cherry-pick|merge|am|apply|pull|rebase)\b(?![^;&|]*\s--(abort|quit)\b)"
)
# A request that CI pass ("make CI green", "until the checks pass"), not a report of a past
# run ("it failed in CI yesterday and passed on retry").
_CI_REQUEST = lazy(r"\b(ci|checks|pipeline|actions)\b.{0,20}\b(green|pass|passes|passing)\b", re.I)
# The user tells the agent not to build or run the tests ("DON'T build, it takes 40
# minutes; CI builds every push"): an unchecked change is then what was asked for. One
# phrase a line, by language.
WAIVED_CHECKS: tuple[str, ...] = (
    r"\b(don'?t|do not|never|no need to|you don'?t need to) (re)?(build|compile|run (the |any )?"
    r"(build|tests?|test suite|specs?))\b",
    r"\b(skip|without) (the )?(build(ing)?|compil(e|ing)|running (the )?tests?|(the )?tests?)\b",
    # The user runs the checks: "don't run anything, I'll run the suite after", "I'll test
    # it in the editor tonight".
    r"\b(don't|do not) run anything\b|\bi('ll| will) (run|test|check|build)\b[^.\n]{0,40}"
    r"\b(myself|after|afterwards|later|tonight|tomorrow|in the editor)\b",
    r"\b(nicht (bauen|kompilieren)|keine tests (laufen lassen|ausführen)|tests nicht (laufen"
    r" lassen|ausführen))\b",  # de
    r"\b(ne (compile|lance|build)s? pas|pas besoin de (compiler|lancer les tests)|sans "
    r"compiler)\b",  # fr
    r"\b(no (compiles|ejecutes (los )?tests|hace falta compilar)|sin compilar)\b",  # es
    r"\b(não (compile|rode (os )?testes|precisa compilar)|sem compilar)\b",  # pt
    r"(不要|不用|别|無需|无需)(编译|編譯|构建|構建|跑测试|运行测试|執行測試)",  # zh
    r"(ビルド|テスト(の実行)?)(は|を)?(しないで|不要|実行しないで)",  # ja
    r"(빌드|테스트)(는|를)? ?(하지 ?마|돌리지 ?마|안 해도)",  # ko
    r"не (собирай|компилируй|запускай тесты)",  # ru
)
_WAIVED_CHECKS = lazy("|".join(f"(?:{p})" for p in WAIVED_CHECKS), re.I)


@record
class TaskContext:
    """What the stop decision needs to know about the task before judging it."""

    task_type: str
    plan_only: bool = False
    changed_paths: list[str] = field(default_factory=list)
    wants_pr: bool = False
    wants_ci: bool = False
    wants_build: bool = False  # the prompt asks that the build works
    wants_lint: bool = False  # the prompt asks that the linter runs clean
    waives_checks: bool = False  # the prompt says not to build or run the tests
    continuation: bool = False  # "Carry on.": earlier work belongs to this task too
    reasons: list[str] = field(default_factory=list)


def task_id(session: Session) -> str:
    """A stable id for the current task: the prompt and when it was given."""
    basis = f"{session.task_prompt}\0{session.task_started_at or ''}"
    return sha256_hex(basis.encode("utf-8", "surrogatepass"))[:16]


def relative_path(path: str, base: str | None) -> str:
    """`path` relative to `base` (the session cwd / repo root) with forward slashes."""
    posix = path.replace("\\", "/")
    if base:
        root = base.replace("\\", "/").rstrip("/") + "/"
        if posix.startswith(root):
            return posix[len(root) :]
    return posix.lstrip("./") if posix.startswith("./") else posix


def changed_paths(session: Session, base: str | None = None) -> list[str]:
    """Files the task changed and did not undo, in first-change order, relative to
    `base` (else the cwd)."""
    seen: dict[str, None] = {}
    for call in session.tool_calls:
        if not call.changes_files or failed_install(call):
            continue
        files = list(call.files)
        if call.command is not None:
            files.extend(call.command.modified_files)
        for path in files:
            seen.setdefault(_task_path(path, session, base), None)
    undone = reverted_paths(session, base)
    return [path for path in seen if path not in undone]


def _task_path(path: str, session: Session, base: str | None) -> str:
    relative = relative_path(path, base)
    if relative.startswith("/") and session.cwd:
        relative = relative_path(relative, session.cwd)
    return relative


def _edit_pairs(
    call: ToolCall, path: str, task_path: Callable[[str], str]
) -> list[tuple[str, str]] | None:
    """(old, new) of each replacement an edit makes to `path` (a task path, `task_path`
    maps an entry's own `file_path` to one), in the shape every host reader gives
    (session/edit_input.py); None for anything else. An entry without its own
    `file_path` is in the call's file."""
    data = call.input
    if call.kind != "edit" or "content" in data:
        return None
    if isinstance(data.get("edits"), list):
        pairs = [
            (str(e.get("old_string", "")), str(e.get("new_string", "")))
            for e in data["edits"]
            if isinstance(e, dict)
            and (not e.get("file_path") or task_path(str(e["file_path"])) == path)
        ]
        return pairs or None
    if "old_string" in data and "new_string" in data:
        return [(str(data["old_string"]), str(data["new_string"]))]
    return None


def reverted_paths(session: Session, base: str | None = None) -> set[str]:
    """Files whose changes in this task were all undone: each edit taken back by an
    exact inverse edit, or the file restored with `git checkout -- F` / `git restore F`
    before anything was committed. Such a file is back where it started."""
    pending: dict[str, list[tuple[str, str]]] = {}
    kept: set[str] = set()  # written whole, changed by a command, or committed
    for call in session.tool_calls:
        command = call.command
        if command is not None and "commit" in command.kinds and call.ok:
            kept.update(path for path, edits in pending.items() if edits)
            continue
        if not call.changes_files:
            continue
        restore = command is not None and _RESTORE.match(command.raw) is not None
        files = list(call.files) + (list(command.modified_files) if command else [])
        for path in {_task_path(p, session, base) for p in files}:
            edits = pending.setdefault(path, [])
            pairs = _edit_pairs(call, path, lambda p: _task_path(p, session, base))
            if restore:
                edits.clear()
            elif pairs is None:
                kept.add(path)
            else:
                for old, new in pairs:
                    if (new, old) in edits:
                        edits.remove((new, old))
                    else:
                        edits.append((old, new))
    return {path for path, edits in pending.items() if not edits and path not in kept}


# Package managers write their manifest only when the whole install worked: a failed
# `npm install x` (no network) changed nothing. One program a line, then the manifests.
ATOMIC_INSTALLERS = frozenset(
    {"npm", "pnpm", "yarn", "bun", "uv", "poetry", "pdm", "pixi", "bundle", "composer"}
    | {"cargo", "go"}
)
INSTALLED_MANIFESTS = frozenset(
    {"package.json", "pyproject.toml", "pixi.toml", "Gemfile", "composer.json", "Cargo.toml"}
    | {"go.mod"}
)


# Generators that write their one new file only once they succeed: a failed run (no
# database to compare the models with) leaves nothing. Program, subcommand; one a line.
ATOMIC_GENERATORS: frozenset[tuple[str, str]] = frozenset(
    {
        ("alembic", "revision"),  # --autogenerate connects to the database first
    }
)


def failed_install(call: ToolCall) -> bool:
    """A package manager's failed run whose only change would have been its manifest, or
    a generator's failed run (ATOMIC_GENERATORS): either changes nothing when it fails."""
    command = call.command
    if call.ok is not False or command is None or "modify" not in command.kinds:
        return False
    words = command.raw.split()
    if not command.modified_files and any(p in words and s in words for p, s in ATOMIC_GENERATORS):
        return True  # and no other part of the line names a file it changes
    names = [f.replace("\\", "/").rsplit("/", 1)[-1] for f in command.modified_files]
    return (
        bool(names)
        and all(n in INSTALLED_MANIFESTS for n in names)
        and bool(ATOMIC_INSTALLERS & set(command.programs))
    )


def is_dependency_manifest(path: str) -> bool:
    """`requirements.txt` and friends: a `.txt` file that changes what the code runs on."""
    name, parent = name_and_parent(path)
    name = name.lower()
    return name.endswith(".txt") and (
        name.startswith(("requirements", "constraints")) or parent == "requirements"
    )


@lru_cache(maxsize=4096)  # a long task asks about each path it edits again and again
def is_doc_path(path: str) -> bool:
    if is_dependency_manifest(path):
        return False
    name = name_and_parent(path)[0]
    return path_matches(path, DOC_GLOBS) or suffix(name).lower() in {".md", ".rst"}


def name_and_parent(path: str) -> tuple[str, str]:
    """The last component of a POSIX path and the one before it, as `PurePosixPath` names
    them, without building one: the Stop path asks for every edit of a task, and pathlib
    was a tenth of a 50 MB task's cost."""
    parts = [part for part in path.split("/") if part and part != "."]
    return (parts[-1] if parts else "", parts[-2] if len(parts) > 1 else "")


def suffix(name: str) -> str:
    """A file name's suffix as `PurePosixPath.suffix` reads it ("" for ".bashrc")."""
    dot = name.rfind(".")
    return name[dot:] if 0 < dot < len(name) - 1 else ""


def unnamed_changes(session: Session) -> bool:
    """A git command changed the tree without naming files (`git revert`, `git merge`,
    `git apply`): the task changed something even if no path is known."""
    return any(
        call.ok and call.command is not None and _TREE_CHANGE.search(call.command.raw)
        for call in session.tool_calls
    )


def is_plan_only(prompt: str) -> bool:
    """An explicit request for a plan, not an implementation: never pushed to implement."""
    return bool(_PLAN_ONLY.search(prompt))


def classify_task_type(prompt: str, session: Session, paths: list[str]) -> tuple[str, list[str]]:
    """(task type, reasons) from the prompt's words and the actions taken."""
    reasons: list[str] = []
    code_changes = [p for p in paths if not is_doc_path(p)]
    ran_code_tools = any(
        call.command is not None and call.command.kinds & {"test", "build", "typecheck"}
        for call in session.tool_calls
    )
    if code_changes:
        reasons.append(f"changed source files ({', '.join(code_changes[:3])})")
        return "coding", reasons
    words = prompt or ""
    if paths:  # only documentation changed
        if _FIX_VERBS.search(words) and _ERROR_NOUNS.search(words) and not _is_docs_request(words):
            reasons.append("asked to fix code but changed only docs so far")
            return "coding", reasons
        reasons.append("changed only documentation files")
        return "docs", reasons
    if _is_docs_request(words):
        reasons.append("prompt is about documentation")
        return "docs", reasons
    if _FIX_VERBS.search(words):
        reasons.append("prompt asks for a change to code")
        return "coding", reasons
    if _RESEARCH_WORDS.search(words):
        reasons.append("read-only question or investigation")
        return "research", reasons
    if _OPS_WORDS.search(words):
        reasons.append("prompt is about operations")
        return "ops", reasons
    if _ERROR_NOUNS.search(words) or _CODING_WORDS.search(words) or ran_code_tools:
        reasons.append("prompt or actions concern code")
        return "coding", reasons
    reasons.append("no coding, docs, ops or research signal")
    return "other", reasons


def _is_docs_request(words: str) -> bool:
    """Docs words with nothing code-like left once the docs words and verbs are removed."""
    if _DOCS_VERBS.search(words):
        return True
    if not _DOCS_WORDS.search(words):
        return False
    residual = _FIX_VERBS.sub(" ", _DOCS_WORDS.sub(" ", words))
    return not (_CODING_WORDS.search(residual) or _ERROR_NOUNS.search(residual))


def effective_prompt(session: Session) -> str:
    """The words that define the task: "Carry on." after a compaction means the prompt before."""
    prompt = session.task_prompt or ""
    if _CONTINUATION.match(prompt) and session.earlier_prompts:
        return f"{session.earlier_prompts[-1]}\n{prompt}"
    return prompt


def _asks_for_pr(prompt: str) -> bool:
    """The prompt asks the agent to open a pull request (not one the user opens)."""
    said = prompt.replace("\u2019", "'")
    return any(
        not _PR_NOT_ASKED.search(said[max(0, m.start() - 20) : m.end()])
        for m in _PR_REQUEST.finditer(said)
    )


def build_task_context(session: Session, base: str | None = None) -> TaskContext:
    paths = changed_paths(session, base)
    prompt = effective_prompt(session)
    task_type, reasons = classify_task_type(prompt, session, paths)
    return TaskContext(
        task_type=task_type,
        plan_only=is_plan_only(prompt),
        changed_paths=paths,
        wants_pr=_asks_for_pr(prompt),
        wants_ci=bool(_CI_REQUEST.search(prompt)),
        wants_build=bool(_BUILD_REQUEST.search(prompt)),
        wants_lint=bool(_LINT_REQUEST.search(prompt)),
        waives_checks=bool(_WAIVED_CHECKS.search(prompt.replace("\u2019", "'"))),
        continuation=prompt != (session.task_prompt or ""),
        reasons=reasons,
    )


def required_gates(task: TaskContext, cfg: dict[str, Any], has_tests: bool | None) -> set[str]:
    """Gates this task must pass: per-type config, PR/CI requests, minus waivers.

    A coding task in a repo with no tests at all is not asked to run tests that do
    not exist (`has_tests` False); None means unknown, so tests stay required.
    """
    stop = cfg.get("stop", {})
    gates = set(stop.get("required_gates", {}).get(task.task_type, []))
    if task.task_type == "coding":
        if stop.get("require_pr") or task.wants_pr:
            gates.add("pr")
        if stop.get("require_ci"):
            gates.update({"pr", "ci"})
        elif task.wants_ci:
            gates.add("ci")  # CI runs on a branch push too: a green run needs no PR
        if task.wants_build:
            gates.add("build")
        if task.wants_lint:
            gates.add("lint")
    elif task.wants_pr:
        gates.add("pr")
    if has_tests is False:
        gates.discard("tests")
    gates.difference_update(stop.get("waive_gates", []))
    return gates
