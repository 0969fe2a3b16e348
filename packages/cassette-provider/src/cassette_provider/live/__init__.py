"""Live-call tooling shared by recording, replay and model sessions: normalize, snapshot, redact.

Beneath `record/`, `replay/` and `models/`; imports only `contract/`.
Requirements: NORM-1..NORM-10, REDACT-1..REDACT-8, GAP-8, GAP-24, D-1.
"""
