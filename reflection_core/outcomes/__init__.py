"""What happened after each stop: the next prompt and the next stop grade the verdict."""
