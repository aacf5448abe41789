"""The functions every env step runs hold no closure cells.

In CPython 3.11 a local that a comprehension, generator or lambda reads becomes a cell, allocated on every
call of the function that holds it, whichever branch runs (Key Harvest's ``_sync_decision`` built a cell on
every fill for a comprehension on its cache-miss path). These functions keep such code out of line; this test
fails when one of them gets a comprehension over its locals again. (Fields of Green's engine has its own list
in tests/fields_of_green/env/test_engine_speed.py.)"""

from __future__ import annotations

from farmgames.envs.adapters.aec import BoardGameAECEnv
from farmgames.envs.adapters.base import BoardGameEnvBase
from farmgames.envs.adapters.wrappers import AssertOutOfBounds, OrderEnforcing, _Iterator
from farmgames.envs.key_harvest.observer import Observer as KeyHarvestObserver
from farmgames.wrappers.single_agent import SingleAgentEnv


def test_step_functions_have_no_cells() -> None:
    kh = KeyHarvestObserver
    hot = [
        BoardGameEnvBase._observation,
        BoardGameEnvBase.write_action_mask,
        BoardGameAECEnv.step,
        BoardGameAECEnv.last,
        BoardGameAECEnv._mask_actions,
        AssertOutOfBounds.step,
        OrderEnforcing.step,
        OrderEnforcing.last,
        _Iterator.__next__,
        SingleAgentEnv.step,
        SingleAgentEnv._learner_obs,
        SingleAgentEnv._learner_obs_direct,
        SingleAgentEnv._info,
        SingleAgentEnv._fixed_info,
        kh.fill,
        kh._sync_decision,
        kh._write_flags,
        kh._on_counters,
        kh._on_bag,
        kh._on_events,
        kh._write_events_fast,
        kh._own_blocks,
        kh._sync_board,
        kh._write_workers,
        kh._write_counters,
        kh._write_bids,
        kh._write_new,
        kh._write_new_all,
        kh._write_store_fast,
        kh._write_registry_fast,
        kh._write_places_fast,
        kh._write_stock,
        kh._write_tiles,
        kh._write_turn,
    ]
    assert [f.__qualname__ for f in hot if f.__code__.co_cellvars] == []
