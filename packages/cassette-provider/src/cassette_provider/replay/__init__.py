"""Offline replay: the replay provider, recorded timing and the new_episodes mixed mode.

Requirements: REPLAY-1..REPLAY-7, GAP-4, GAP-23.
"""
