"""Writing a cassette: the pure sealer, new headers, and the locked append-only writer edge."""
