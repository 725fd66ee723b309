"""Readers of verdict files and other ways in: verdict CLI, notifiers, Codex, MCP, curator."""
