"""reflection: hooks that keep coding agents honest.

Importing this package must stay cheap: the prompt hook pays for every import on
every prompt, so nothing here imports more than the standard library needs.
"""

from __future__ import annotations

__version__ = "0.1.0"
