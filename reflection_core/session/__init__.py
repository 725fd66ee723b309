"""Post-session reflection: transcript -> normalized session -> evidence -> verdict."""
