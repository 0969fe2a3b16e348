"""The ordered FMT checks with the reference's messages (FMT-9..FMT-14), and their fast path."""
