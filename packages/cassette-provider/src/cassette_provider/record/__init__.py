"""Recording: the recording provider, normalization, snapshots and persistence redaction.

Requirements: PROV-1..PROV-10, NORM-1..NORM-10, REDACT-1..REDACT-8, GAP-8, GAP-15, GAP-24, D-1.
"""
