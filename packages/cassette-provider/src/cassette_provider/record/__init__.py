"""Recording: the recording provider, one state machine per recorded call.

Requirements: PROV-1..PROV-10, GAP-15.
"""
