"""Turn structure: KH-TURN-1, KH-TURN-2, KH-TURN-3, KH-TURN-4, KH-TURN-5, KH-TURN-6, KH-TURN-7, KH-RULING-13 (zero/one
action), KH-RULING-17 (phases and ids)."""

from __future__ import annotations

import pytest

from farmgames.envs.core.protocol import IllegalActionError
from farmgames.envs.key_harvest.actions import NUM_ACTIONS, PHASES, action_name
from farmgames.envs.key_harvest.game import Game

from .helpers import DONE, ST, C, R, S, play, scenario


def test_turn_1_5_start_player_then_clockwise():
    """KH-TURN-1, KH-TURN-5: the start player takes the first turn; ending a turn passes play to the left (next
    seat)."""
    g = Game(4, 0, first_player=2)
    assert g.current_player == 2 and g.phase == "TURN"
    play(g, DONE)
    assert g.current_player == 3 and g.active == 3
    play(g, DONE)
    assert g.current_player == 0


def test_turn_2_at_most_two_actions_then_the_turn_ends():
    """KH-TURN-2: up to two of the four actions; after the second, only ending is left (the turn ends by itself)."""
    g = scenario(boards={0: "C2 C3 E6", 1: "F6"}, supply={0: {"wheat": 2}})
    play(g, 1, S("C2"), DONE)  # (a) harvest one tile, stop
    assert g.phase == "TURN" and g.current_player == 0 and g.actions_taken == 1
    play(g, 5, R(1), C("wheat"), DONE, DONE)  # (d): one tile with a bid of 1, no second tile
    assert g.current_player == 1 and g.active == 1  # two actions: the turn ended by itself


def test_turn_3_each_action_once():
    """KH-TURN-3: each action at most once per turn."""
    g = scenario(boards={0: "C2 E6"}, supply={0: {"wheat": 2}})
    play(g, 1, S("C2"))  # the group {C2} is done: back to TURN
    assert g.phase == "TURN" and 1 not in g.legal_actions() and g.unharvested[0]  # E6 unharvested, (a) used


def test_turn_4_c_never_after_d():
    """KH-TURN-4: (c) may not follow (d) in the same turn; (d) may follow (c)."""
    g = scenario(boards={0: "F6"}, supply={0: {"wheat": 3}}, stores={0: [("A1", {"hops": 1}), None]})
    assert 4 in g.legal_actions() and 5 in g.legal_actions()
    play(g, 5, R(1), C("wheat"), DONE)  # the store is now full: no second tile, back to TURN
    assert g.phase == "TURN" and g.active == 0 and 1 in g.legal_actions() and 4 not in g.legal_actions()
    g = scenario(supply={0: {"wheat": 3}}, stores={0: [("A1", {"hops": 1}), None]})
    play(g, 4, ST(0, 1), DONE)
    assert 5 in g.legal_actions()


def test_turn_6_ruling_13_zero_or_one_action():
    """KH-TURN-6, KH-RULING-13: 0 (end turn) is legal at the start of a turn and between actions."""
    g = scenario(boards={0: "C2 E6", 1: "G1"}, supply={0: {"wheat": 2}})
    assert DONE in g.legal_actions()
    play(g, DONE)
    assert g.active == 1 and g.actions_taken == 0


def test_turn_7_extra_action_does_not_count_but_uses_its_letter():
    """KH-TURN-7, KH-RULING-14: the Supervisor's extra action is not one of the two, but its letter is used."""
    g = scenario(boards={0: "C2 C3 D3 F6"}, supply={0: {"wheat": 2}})
    play(g, 2, 62 + 4, S("D2"))  # (b) Supervisor on D2 (touches C2, C3, D3)
    assert g.phase == "EXTRA" and set(g.legal_actions()) == {DONE, 1, 5}
    play(g, 1, S("C2"), DONE)  # extra (a)
    assert g.phase == "TURN" and g.actions_taken == 1 and g.taken & 1
    assert 1 not in g.legal_actions() and 5 in g.legal_actions()  # a second turn action is still possible


def test_ruling_17_discrete_93_and_phases():
    """KH-RULING-17 (§16): one Discrete(93) numbering; ids mean what §16 says; the phase is named."""
    assert NUM_ACTIONS == 93 and len(PHASES) == 20
    assert action_name(6) == "space A1" and action_name(13) == "space A8" and action_name(14) == "space B1"
    assert action_name(61) == "space G8" and action_name(62).startswith("farmhand Apprentice")
    assert action_name(68).startswith("townsfolk Miller") and action_name(74) == "registry space 1"
    assert action_name(88) == "crop wheat" and action_name(92) == "crop wine"
    g = Game(2, 0)
    assert g.legal_mask().shape == (93,) and g.phase == "TURN"


def test_illegal_actions_leave_the_state_untouched():
    """KH-RULING-17: an id outside the phase's legal set (or not an integer) is refused, the state unchanged."""
    g = Game(3, 1)
    before = g.to_json()
    for bad in (92, -1, 93, 1.0, "1", True, None):
        with pytest.raises(IllegalActionError):
            g.apply(bad)
    assert g.to_json() == before
