"""Console-script entry point.

`reflection hook EVENT` is the hot path (every prompt, every stop): it goes
straight to the dispatcher without importing click. Everything else goes
through the click CLI.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    wants_help = "--help" in args[2:] or "-h" in args[2:]  # click prints it; no hook runs
    if len(args) >= 2 and args[0] == "hook" and not args[1].startswith("-") and not wants_help:
        from reflection_core.hook_dispatch import run_hook

        return run_hook(args[1], args[2:])
    from reflection_core.cli.main import cli

    try:
        result = cli.main(args=args, prog_name="reflection", standalone_mode=False)
    except SystemExit as exc:  # click raises this for --help/--version and ctx.exit()
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    except Exception as exc:
        import click

        if isinstance(exc, click.exceptions.Abort):
            sys.stderr.write("Aborted!\n")
            return 1
        if isinstance(exc, click.ClickException):
            exc.show()
            return exc.exit_code
        raise
    return result if isinstance(result, int) else 0


if __name__ == "__main__":
    sys.exit(main())
