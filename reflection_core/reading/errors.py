"""How a paid reader fails: one exception whose kind the record and the user see."""

from __future__ import annotations


class ReaderError(Exception):
    """A reader gave no usable reading; the built-in reading is used instead.

    `kind`: timeout, http, connection, format, malformed, exit, missing, config or budget.
    """

    def __init__(self, kind: str, message: str, cost_tokens: int = 0) -> None:
        super().__init__(message)
        self.kind = kind
        self.cost_tokens = cost_tokens  # tokens spent before it failed (still counted)

    def __str__(self) -> str:
        return f"{self.kind}: {super().__str__()}"
