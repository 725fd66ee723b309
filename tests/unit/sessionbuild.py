"""Test-only builder of normalized Sessions (shell commands classified by the real classifier)."""

from __future__ import annotations

from typing import Any

from reflection_core.session.commands import classify_command
from reflection_core.session.model import AssistantText, Session, ToolCall

CWD = "/home/dev/project"


class SessionBuilder:
    """Steps in task order; `build(final)` returns the Session the reader would produce."""

    def __init__(self, prompt: str, *, cwd: str = CWD, branch: str = "feature/x") -> None:
        self.session = Session(
            session_id="sess-1",
            task_prompt=prompt,
            task_started_at="2026-03-02T09:00:00Z",
            cwd=cwd,
            git_branch=branch,
        )

    def _add(self, **kwargs: Any) -> SessionBuilder:
        index = len(self.session.events)
        self.session.events.append(ToolCall(index=index, tool_use_id=f"toolu_{index}", **kwargs))
        return self

    def _abs(self, path: str) -> str:
        """`path` as the host records it: absolute ones (`/...`, `C:\\...`, `%TEMP%\\...`) as
        written, others under the session's cwd."""
        absolute = path.startswith(("/", "%")) or path[1:3] in (":\\", ":/")
        return path if absolute else f"{self.session.cwd}/{path}"

    def read(self, path: str) -> SessionBuilder:
        path = self._abs(path)
        return self._add(
            name="Read", kind="read", input={"file_path": path}, files=(path,), ok=True
        )

    def edit(self, path: str, new: str = "x = 2", old: str = "x = 1") -> SessionBuilder:
        path = self._abs(path)
        data = {"file_path": path, "old_string": old, "new_string": new}
        return self._add(name="Edit", kind="edit", input=data, files=(path,), ok=True)

    def write(
        self, path: str, content: str = "# new\n", *, ok: bool = True, output: str = ""
    ) -> SessionBuilder:
        path = self._abs(path)
        data = {"file_path": path, "content": content}
        return self._add(
            name="Write", kind="write", input=data, files=(path,), ok=ok, output=output
        )

    def bash(self, command: str, *, exit: int = 0, output: str = "") -> SessionBuilder:
        info = classify_command(command)
        files = tuple(self._abs(p) for p in info.modified_files)
        return self._add(
            name="Bash",
            kind="shell",
            input={"command": command},
            files=files,
            command=info,
            ok=exit == 0,
            exit_code=exit,
            output=output if exit == 0 else f"Exit code {exit}\n{output}",
        )

    def running(self, command: str) -> SessionBuilder:
        """A background command with no result yet."""
        return self.background(command, None)

    def background(self, command: str, shell_id: str | None) -> SessionBuilder:
        """A command started in the background, as Claude Code reports it (with the shell's
        id when given)."""
        started = f"Command running in background with ID: {shell_id}" if shell_id else ""
        return self._add(
            name="Bash",
            kind="shell",
            input={"command": command, "run_in_background": True},
            command=classify_command(command),
            ok=None,
            background=True,
            output=started,
        )

    def read_output(
        self, shell_id: str, output: str, *, status: str = "running", exit: int | None = None
    ) -> SessionBuilder:
        """A `BashOutput` read of a background shell's output so far."""
        code = f"<exit_code>{exit}</exit_code>\n\n" if exit is not None else ""
        text = f"<status>{status}</status>\n\n{code}<stdout>\n{output}\n</stdout>"
        return self._add(
            name="BashOutput", kind="other", input={"bash_id": shell_id}, ok=True, output=text
        )

    def tool(self, name: str, tool_input: dict[str, Any]) -> SessionBuilder:
        """A call of another tool (an MCP server's), which succeeded."""
        return self._add(name=name, kind="other", input=tool_input, ok=True)

    def todo(self, *items: tuple[str, str]) -> SessionBuilder:
        todos = [{"content": c, "status": s, "activeForm": c} for c, s in items]
        return self._add(name="TodoWrite", kind="todo", input={"todos": todos}, ok=True)

    def say(self, text: str) -> SessionBuilder:
        self.session.events.append(AssistantText(index=len(self.session.events), text=text))
        return self

    def build(self, final: str = "Done.") -> Session:
        self.session.last_assistant_message = final
        return self.session
