"""The heuristic bots' fast paths against their plain counterparts (no test here times anything).

Key Harvest and Sunflower Valley: tests/speed/test_bot_fast_paths_kh_sv.py. Fields of Green:
tests/fields_of_green/test_bot_fast_paths.py (the plain-lookahead bot move for move, ``VERIFY_CACHES``, the memoised
cheap estimates, the memoised halves of the act pruning against a from-scratch ranking, direct acts and template
projections against engine clones)."""

from __future__ import annotations
