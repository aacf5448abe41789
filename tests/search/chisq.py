"""Chi-square goodness of fit for the resampling tests (scipy when installed, else Wilson-Hilferty)."""

from __future__ import annotations

import math
from collections import Counter

P_MIN = 1e-3  # seeded draws are deterministic, so this never flakes; a wrong distribution gives p << 1e-6
#: p-values of every check run in this session (the report quotes them: pytest -s prints them)
RESULTS: list[tuple[str, float, int, float]] = []


def chi2_sf(stat: float, dof: int) -> float:
    """Upper tail of the chi-square distribution (Wilson-Hilferty; scipy's value when scipy is there)."""
    try:
        from scipy.stats import chi2

        return float(chi2.sf(stat, dof))
    except ImportError:  # pragma: no cover - scipy is an optional extra
        z = ((stat / dof) ** (1 / 3) - (1 - 2 / (9 * dof))) / math.sqrt(2 / (9 * dof))
        return 0.5 * math.erfc(z / math.sqrt(2))


def chi_square(counts: Counter, expected: dict) -> tuple[float, float]:
    """(statistic, p-value) of ``counts`` against the probabilities ``expected`` (categories with an
    expected count under 5 are pooled)."""
    n = sum(counts.values())
    assert set(counts) <= set(expected), f"impossible outcomes drawn: {set(counts) - set(expected)}"
    stat, dof, pool_obs, pool_exp = 0.0, -1, 0.0, 0.0
    for key, p in expected.items():
        e = n * p
        if e < 5:
            pool_obs += counts.get(key, 0)
            pool_exp += e
            continue
        stat += (counts.get(key, 0) - e) ** 2 / e
        dof += 1
    if pool_exp > 0:
        stat += (pool_obs - pool_exp) ** 2 / pool_exp
        dof += 1
    return stat, chi2_sf(stat, max(dof, 1))


def check(counts: Counter, expected: dict, truth: object, label: str = "") -> float:
    """Assert ``counts`` fit ``expected``; and that the same test rejects a resampler that always keeps the
    true hidden value ``truth`` (so the test can fail)."""
    stat, p = chi_square(counts, expected)
    RESULTS.append((label, stat, len(expected), p))
    print(f"chi-square {label}: statistic {stat:.2f} over {len(expected)} outcomes, p = {p:.3f}")
    assert p > P_MIN, f"chi-square {stat:.1f}, p = {p:.2g}: {counts} vs {expected}"
    _, p_fixed = chi_square(Counter({truth: sum(counts.values())}), expected)
    assert p_fixed < 1e-6
    return p
