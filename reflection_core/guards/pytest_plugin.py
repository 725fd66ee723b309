"""pytest plugin (pytest11 entry point) that records test runs in the ledger — placeholder."""
