"""`reflection init` and `reflection doctor`: set up and inspect a repository."""
