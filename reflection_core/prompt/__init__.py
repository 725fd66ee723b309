"""Prompt-submit evaluation: score, smells, continuation, live context, scope."""
