"""The subagent contract: start request, run, result, provider protocol, abort, clock, registry.

Requirements: PROV-4 (clock), REPLAY-4 and REPLAY-6 (abort, recorded errors), ERR-1..ERR-3.
"""
