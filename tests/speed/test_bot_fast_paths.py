"""The heuristic bots' fast paths against their plain counterparts (no test here times anything).

Key Harvest and Sunflower Valley: tests/speed/test_bot_fast_paths_kh_sv.py."""

from __future__ import annotations
