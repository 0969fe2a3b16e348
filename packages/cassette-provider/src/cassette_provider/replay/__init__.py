"""Offline replay: the replay provider and recorded timing.

Requirements: REPLAY-1..REPLAY-7, GAP-4, GAP-23.
"""
