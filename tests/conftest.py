"""Shared pytest settings: bounded hypothesis budgets so the suite stays fast on 2 cores."""

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
settings.load_profile("ci")
