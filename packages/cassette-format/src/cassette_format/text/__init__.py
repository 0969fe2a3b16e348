"""Text semantics the format borrows from JavaScript and RFC 3339 (FMT-3, FMT-6, FMT-8, D-3)."""
