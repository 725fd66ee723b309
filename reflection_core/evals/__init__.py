"""Eval runner: labelled suites under evals/ measured against the deterministic core."""
