"""Hypothesis profiles (quick locally, thorough under CI=true); the partial-file guard."""

import os

from hypothesis import HealthCheck, settings
from support.partial_guard import no_partial_left, no_partial_left_at_the_end

__all__ = ["no_partial_left", "no_partial_left_at_the_end"]  # fixtures, used by every test

settings.register_profile("dev", max_examples=60, deadline=None)
settings.register_profile(
    "ci", max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("ci" if os.environ.get("CI") else "dev")
