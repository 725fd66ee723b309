#!/bin/sh
# reflection's hook launcher, written by `reflection init`. It is shared through git, so it
# names nobody's paths: it runs the reflection of whoever runs the agent, found in order:
#   1. the interpreter `reflection init` recorded for this clone (in the git dir, not shared)
#   2. `reflection` on PATH
#   3. a project virtualenv here: .venv/ or venv/
#   4. python3, when it can import reflection_core
# Without one it fails open for agent hooks (the agent carries on and a one-line message
# says why) and closed for git hooks. Re-running `reflection init` rewrites this file.
here=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)
if [ -d "$here/.git" ]; then
    gitdir="$here/.git"
else
    gitdir=$(git -C "$here" rev-parse --path-format=absolute --git-common-dir 2>/dev/null)
fi
python=$(cat "$gitdir/reflection/python" 2>/dev/null)
# `-c`, not `-m reflection_core`: the hook then skips runpy (about 1.5 ms of every prompt).
entry='from reflection_core.entry import run; run()'
if [ -n "$python" ] && [ -x "$python" ]; then exec "$python" -c "$entry" "$@"; fi
if command -v reflection >/dev/null 2>&1; then exec reflection "$@"; fi
for venv in "$here/.venv" "$here/venv"; do
    if [ -x "$venv/bin/reflection" ]; then exec "$venv/bin/reflection" "$@"; fi
done
if python3 -c 'import reflection_core' >/dev/null 2>&1; then exec python3 -c "$entry" "$@"; fi
why="reflection is not installed for you, so its $2 check did not run"
fix="install reflection, then run 'reflection init' in this repository"
case "$2" in
    pre-commit | pre-merge-commit | pre-push | reflection-*)
        echo "reflection: $why; refusing. Fix: $fix (or skip once with --no-verify)." >&2
        exit 1 ;;
esac
echo "reflection: $why (nothing was blocked). Fix: $fix." >&2
case " $* " in
    *" --host opencode "*) printf '{"message": "%s", "level": "warning"}\n' "reflection: $why (nothing was blocked). Fix: $fix." ;;
    *) printf '{"systemMessage": "%s"}\n' "reflection: $why (nothing was blocked). Fix: $fix." ;;
esac
exit 0
