"""`python -m reflection_core`: what the hook launcher runs, the same as the console script
(agent hooks end without the interpreter's teardown, the prompt hook without the cyclic
collector: see entry.run)."""

from __future__ import annotations

from reflection_core.entry import run

run()
