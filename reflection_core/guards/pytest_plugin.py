"""pytest plugin (pytest11 entry point `reflection`): record every test run in the ledger.

Loaded in every pytest run once the package is installed, so it stays cheap and
harmless: it does nothing outside a git repository, never changes a run's outcome
(its own failures become one warning line), and is off with `-p no:reflection`,
`--no-reflection-ledger`, `REFLECTION_LEDGER=0`, or `tests.pytest_plugin: false`
/ `tests.ledger: false` in the config. What a recorded run's stamp holds, and when
it is partial, is guards.pytest_recorder's.

This module holds only the switches: pytest imports it in every run through its
assertion-rewriting hook (an installed plugin's package is marked for rewriting),
which hashes the source and reads the cached code object piece by piece, and with
bytecode writing off rewrites it anew. The recorder is imported once this package is
unmarked, as any module is.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    import pytest

# Options under which pytest runs no tests: --collect-only, --setup-only/-plan, --help...
_NOT_A_TEST_RUN = (
    "collectonly",
    "setuponly",
    "setupplan",
    "help",
    "version",
    "markers",
    "showfixtures",
    "show_fixtures_per_test",
)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("reflection", "reflection test-run ledger")
    group.addoption(
        "--no-reflection-ledger",
        action="store_true",
        default=False,
        help="do not record this run in reflection's test-run ledger",
    )


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("--no-reflection-ledger", default=False):
        return
    if os.environ.get("REFLECTION_LEDGER", "").strip().lower() in ("0", "false", "no", "off"):
        return
    if hasattr(config, "workerinput"):  # an xdist worker: the controller records the run
        return
    if any(getattr(config.option, name, False) for name in _NOT_A_TEST_RUN):
        return
    _import_without_assert_rewriting(config)
    try:
        from reflection_core.guards.pytest_recorder import LedgerRecorder

        recorder = LedgerRecorder.for_config(config)
    except Exception as exc:  # never break a test run
        warn(f"not recording this run ({type(exc).__name__}: {exc})")
        return
    if recorder is not None:
        config.pluginmanager.register(recorder, "reflection-ledger-recorder")


def _import_without_assert_rewriting(config: pytest.Config) -> None:
    """Let the modules the recorder imports from here on load as in any program.

    pytest marks every package of an installed plugin's distribution for assertion
    rewriting, so each of our modules would be imported through its rewriting hook:
    about half of the plugin's own Python in a run (under callgrind, 104 M instructions
    with the hook, 55 M without). Ours hold no test asserts. pytest has no public way to
    unmark a package; if its hook changes shape, our modules load through it as before
    (a test pins that they do not)."""
    hook = getattr(config.pluginmanager, "rewrite_hook", None)
    marked = getattr(hook, "_must_rewrite", None)
    cache = getattr(hook, "_marked_for_rewrite_cache", None)
    if isinstance(marked, set) and isinstance(cache, dict) and _PACKAGE in marked:
        marked.discard(_PACKAGE)
        cache.clear()


_PACKAGE = __name__.split(".", 1)[0]


def warn(message: str) -> None:
    sys.stderr.write(f"reflection: test ledger: {message}\n")
