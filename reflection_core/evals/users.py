"""Who a labelled real case comes from, and which half of the users it falls in.

Rules must hold on users they were not written from, so the real-data evals split by
user, never by case: a user's cases are all in one half. The user is the first two
`__`-separated parts of a case id (owner and repository); the half is fixed by a hash
of it, so it does not move when cases are added.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Any

HALVES = ("A", "B")


def user_of(case_id: str) -> str:
    """The owner and repository a case id starts with."""
    return "__".join(case_id.split("__")[:2])


def half_of(case_id: str) -> str:
    """`A` or `B`, by the first byte of the SHA-256 of the case's user."""
    digest = hashlib.sha256(user_of(case_id).encode("utf-8")).digest()
    return HALVES[digest[0] % 2]


def in_half(rows: Iterable[dict[str, Any]], half: str | None) -> list[dict[str, Any]]:
    """The rows whose user falls in `half` (all rows when `half` is None)."""
    if half is None:
        return list(rows)
    if half not in HALVES:
        raise ValueError(f"half must be one of {', '.join(HALVES)}, not {half!r}")
    return [row for row in rows if half_of(str(row["id"])) == half]
