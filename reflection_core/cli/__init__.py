"""Click command line; each command lives in its own module and is imported lazily."""
