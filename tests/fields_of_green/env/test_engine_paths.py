"""The engine's fixed-path tricks of issue 13's eighth pass against the plain reading of the rules.

``_PlainGame`` is the engine with those methods as the rules read (the code before the tricks): every
decision, legal list, current player, state and which versions move must be the same in random games of
2-4 players, with and without ``auto_single``, fixed splits and a small farm. The tricks compared here:

* ``apply`` applies a pick itself and stops at the next seat's pick (3-4 players) or the picker's act (2 players)
  without ``_advance``; the 2-player action phase is pushed from a prebuilt tuple (``_ACTIONS_2P``);
* ``_advance`` tests the pick and act "nothing to choose" cases inline (``_skip_decision`` otherwise);
* ``_act`` finishes a build with no water to pay at once (no ``finish_build`` frame) and pushes a tower's or
  silo's attach decision only with a tile set aside (FOG-ACT-BUILD-8, FOG-RUL-17/20);
* a pick's legal list is a prebuilt tuple per hand size (``ActionLayout.pick_choices``, FOG-ACT-3, FOG-2P-6);
* ``_immediate`` and ``_finish_harvest`` (a location without equipment) run the ability's ops at once instead
  of pushing an ``ops`` frame that would run next (FOG-ABIL-1, FOG-EQUIP-12);
* ``_harvest_sites`` grows its kept sites from the cells placed since (FOG-HARVEST-2);
* the harvest decision is skipped when no face-up harvest site is unused, without building the list
  (FOG-HARVEST-2/3, FOG-RUL-24).
"""

from __future__ import annotations

import random

import pytest

from farmgames.envs.core.protocol import IllegalActionError
from farmgames.envs.fields_of_green import Game
from farmgames.envs.fields_of_green.farm import SILO, TOWER, Farm
from farmgames.envs.fields_of_green.game import MARKET_BASE, MARKET_PER_FOOD, RESTORE_COST, TOWER_COST

FIXED = {y: (2, 2, 1, 1) for y in range(1, 5)}  # FOG-RUL-3


class _PlainGame(Game):
    """The engine with the plain reading of each method a trick of this pass replaced."""

    @property  # type: ignore[override]
    def current_player(self) -> int | None:  # the plain reading: the top decision frame's seat
        return self._stack[-1][1] if self._stack else None

    @current_player.setter
    def current_player(self, value: int | None) -> None:  # (the engine's writes of its slot: not needed here)
        pass

    def apply(self, action: int) -> None:
        if action not in self.legal_actions():
            raise IllegalActionError(f"{action} is not legal")
        self.history.append(action)
        self._apply(action)
        self._advance()

    def _act(self, p: int, farm: Farm, what: str, arg: int) -> None:
        card = self.picks[p]
        farm.actions_taken += 1
        if what == "build":  # FOG-ACT-BUILD-3..5: pay, then the water one unit per decision, then finish
            cost = self.cards.locations[card].cost
            farm.coins -= cost.coins
            farm.food -= cost.food
            self._stack.append(("finish_build", p, card, arg))
            if cost.water:
                self._stack.append(("pay_water", p, arg, cost.water))
            return
        self.discard.append(card)  # FOG-ACT-11, FOG-ACT-14
        self.picks[p] = None
        if what == "tower":  # FOG-ACT-TOWER-2/4, then the attach decision (FOG-RUL-20)
            farm.coins -= TOWER_COST
            self.towers_left -= 1
            farm.place(arg, TOWER)
            farm.tower_capacity[arg] = self.cards.tower_capacity
            farm.tower_water[arg] = self.cards.tower_start_water
            self._stack.append(("attach", p, arg))
        elif what == "silo":  # FOG-ACT-SILO-4
            self.silos_left -= 1
            farm.place(arg, SILO)
            farm.silo_capacity[arg] = self.cards.silo_capacity
            self._stack.append(("attach", p, arg))
        elif what == "market":  # FOG-ACT-MARKET-1..3
            farm.food -= arg
            farm.coins += MARKET_BASE + MARKET_PER_FOOD * arg
        elif what == "restore":  # FOG-ACT-RESTORE-2/4
            farm.coins -= RESTORE_COST
            farm.fallow.discard(arg)

    def _advance(self) -> None:
        self._legal = None
        stack = self._stack
        while stack:
            frame = stack[-1]
            kind = frame[0]
            if kind in ("split", "pick", "act", "pay_water", "store_water", "harvest") or kind in (
                "keep_equipment",
                "place_equipment",
                "attach",
                "ability_target",
                "ability_option",
            ):
                if self._skip_decision(frame):
                    continue
                if self.auto_single:
                    legal = self._compute_legal()
                    if len(legal) == 1:
                        self._apply(legal[0])
                        continue
                    self._legal = legal
                return
            stack.pop()
            self._run(frame)
        self.phase = "end"
        self.public_version += 1

    def _skip_decision(self, frame: tuple) -> bool:
        kind = frame[0]
        if kind == "pick":
            if self.display if self.num_players == 2 else self.hands[frame[1]]:
                return False
            self._stack.pop()  # FOG-RUL-14
            if self.num_players == 2 and self._stack and self._stack[-1][:2] == ("act", frame[1]):
                self._stack.pop()
            return True
        if kind == "act":
            if self.picks[frame[1]] is not None:
                return False
            self._stack.pop()
            return True
        if kind == "attach":
            if self._attachable(frame[1], frame[2]):
                return False
            self._stack.pop()
            return True
        if kind == "harvest" and not self._harvest_cells(frame[1], unused_only=True):
            self._stack.pop()
            self._stack.append(("harvest_close", frame[1]))
            return True
        return False

    def _immediate(self, p: int, cell: int) -> None:
        ability = self.cards.locations[self.farms[p].grid[cell]].ability
        if ability is not None and ability.kind == "immediate":  # FOG-ABIL-1
            self._stack.append(("ops", p, cell, ability.effect, 0))

    def _finish_harvest(self, p: int, cell: int) -> None:
        self.harvested.add(cell)  # the ability, then the host's harvest-timed equipment (FOG-EQUIP-12)
        farm = self.farms[p]
        frames = [("ops", p, cell, self.cards.locations[farm.grid[cell]].ability.effect, 0)]
        for tile_id in farm.equipment.get(cell, ()):
            tile = self.cards.equipment[tile_id]
            if tile.timing == "harvest":
                frames.append(("ops", p, cell, tile.effect, 0))
        self._push_in_order(frames)

    def _compute_legal(self) -> list[int]:
        frame = self._stack[-1]
        if frame[0] == "pick":  # FOG-ACT-3, FOG-2P-6: any slot of the hand (the display with 2 players)
            source = self.display if self.num_players == 2 else self.hands[frame[1]]
            return [self.layout.PICK + i for i in range(len(source))]
        return list(super()._compute_legal())

    def _harvest_sites(self, farm: Farm) -> tuple[int, ...]:
        # FOG-HARVEST-2: the occupied cells holding a location with a harvest ability, in placement order
        return tuple(
            c
            for c in farm.occupied
            if farm.grid[c] >= 0 and self.cards.locations[farm.grid[c]].ability_kind == "harvest"
        )


def _variants(players: int, count: int):
    for seed in range(count):
        kw: dict = {"auto_single": seed % 2 == 1}
        if seed % 3 == 2:
            kw["fixed_split"] = FIXED
        if seed % 5 == 4:
            kw["farm_size"] = 7
        yield seed, kw


def _moved(before: list[int], game: Game) -> list[bool]:
    return [a != f.version for a, f in zip(before, game.farms)]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_fixed_path_plays_as_the_plain_reading(players):
    kinds: dict[str, int] = {}
    for seed, kw in _variants(players, 8):
        game, plain = Game(num_players=players, seed=seed, **kw), _PlainGame(num_players=players, seed=seed, **kw)
        rng = random.Random(seed)
        while not game.is_terminal():
            assert game.decision == plain.decision and game.current_player == plain.current_player
            legal = game.legal_actions()
            assert legal == plain.legal_actions() and type(legal) is list
            assert game.to_json() == plain.to_json()
            kinds[game.decision_kind] = kinds.get(game.decision_kind, 0) + 1
            before = [f.version for f in game.farms], [f.version for f in plain.farms]
            public = game.public_version, plain.public_version
            picks = game.pick_version, plain.pick_version
            action = legal[rng.randrange(len(legal))]
            game.apply(action)
            plain.apply(action)
            assert _moved(before[0], game) == _moved(before[1], plain)
            assert (game.public_version != public[0]) == (plain.public_version != public[1])
            assert (game.pick_version != picks[0]) == (plain.pick_version != picks[1])
            if rng.random() < 0.03:  # clones and loaded states take the same paths
                for other in (game.clone(), Game.from_json(game.to_json())):
                    assert other.legal_actions() == plain.legal_actions()
                    assert other.current_player == plain.current_player
        assert plain.is_terminal() and game.to_json() == plain.to_json()
    assert kinds["pick"] > 100 and kinds["act"] > 100 and kinds["harvest"] > 20


def test_pick_choices_are_the_plain_ranges():
    layout = Game(num_players=2).layout
    for n, choices in enumerate(layout.pick_choices):
        assert choices == tuple(layout.PICK + i for i in range(n))
    assert len(layout.pick_choices) > 6  # every hand the rules deal (FOG-DRAW-4) and any 2-player display


def test_a_pick_from_a_longer_hand_than_the_table_takes_the_plain_range():
    game = Game(num_players=3, seed=0)
    while game.decision_kind != "pick":
        game.apply(game.legal_actions()[0])
    p = game.current_player
    game.hands[p] = list(range(len(game.layout.pick_choices) + 2))  # a scenario's hand
    game._legal = None
    assert game.legal_actions() == [game.layout.PICK + i for i in range(len(game.hands[p]))]


def test_harvest_skip_test_equals_the_plain_list():
    """_skip_decision drops a harvest exactly when _harvest_cells(unused_only=True) is empty."""
    skipped = kept = 0
    for seed in range(6):
        game = Game(num_players=2 + seed % 3, seed=seed)
        rng = random.Random(seed)
        while not game.is_terminal():
            for p in range(game.num_players):
                probe = game.clone()
                probe._stack.append(("harvest", p))
                empty = not probe._harvest_cells(p, unused_only=True)
                assert probe._skip_decision(("harvest", p)) == empty
                skipped += empty
                kept += not empty
            legal = game.legal_actions()
            game.apply(legal[rng.randrange(len(legal))])
    assert skipped > 100 and kept > 100


def test_harvest_sites_grow_from_the_cells_placed_since():
    """The kept sites after many placements equal a fresh scan, also when the memo was read in between."""
    game = Game(num_players=4, seed=5)
    rng = random.Random(5)
    grown = 0
    while not game.is_terminal():
        for farm in game.farms:
            memo = farm.harvest_memo
            sites = game._harvest_sites(farm)
            grown += memo is not None and memo[0] is farm.occupied and memo[1] < len(farm.occupied)
            assert sites == _PlainGame._harvest_sites(game, farm)
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])
    assert grown > 20


@pytest.mark.parametrize("players", [3, 4])
def test_pick_path_leaves_a_single_card_pick_to_auto_single(players):
    """apply's pick path stops at the next pick only without auto_single: with it, a next picker holding a
    single card is picked for at once (as _advance does), here from a hand cut down to one card."""
    for auto_single in (True, False):
        game = Game(num_players=players, seed=2, auto_single=auto_single)
        while game.decision_kind != "pick":
            game.apply(game.legal_actions()[0])
        below = game._stack[-2]
        assert below[0] == "pick"
        hand = game.hands[below[1]]
        game.discard.extend(hand[1:])  # (every card stays in one place)
        game.hands[below[1]] = hand[:1]
        game._legal = None
        plain = _PlainGame.from_json(game.to_json())
        assert type(plain) is _PlainGame
        game.apply(game.legal_actions()[0])
        plain.apply(plain.legal_actions()[0])
        assert game.to_json() == plain.to_json() and game.decision == plain.decision
        assert (game.current_player == below[1]) is not auto_single


def test_clone_and_pickle_carry_every_slot():
    """Game keeps its state in fixed attributes (__slots__ in the source, a native class compiled: mypyc lists
    them in __mypyc_attrs__): clone copies every one (the mutable ones as copies), a pickle round trip keeps
    them, the copies play on alike, and no attribute can be added from outside (a typo must not pass)."""
    import pickle

    slots = list(getattr(Game, "__mypyc_attrs__", None) or Game.__slots__)
    assert len(slots) == len(set(slots)) and "current_player" in slots and "_legal" not in slots
    assert "__dict__" not in slots and "variant" in slots
    game = Game(num_players=4, seed=3)
    rng = random.Random(3)
    for _ in range(150):
        game.apply(rng.choice(game.legal_actions()))
    game.legal_actions()  # the legal list kept
    with pytest.raises(AttributeError):
        game.note = "set from outside"  # type: ignore[attr-defined]
    for copy in (game.clone(), pickle.loads(pickle.dumps(game))):
        for name in slots:
            mine, theirs = getattr(game, name), getattr(copy, name)
            if name == "farms":
                assert [f.version for f in mine] == [f.version for f in theirs]
            elif name == "cards":  # (a pickled card set, geometry or layout is a copy of the same one)
                assert theirs.sha256 == mine.sha256
            elif name == "geometry":
                assert theirs.size == mine.size
            elif name == "_masks":  # (the cached table of the layout: a pickle refers to it)
                assert theirs is mine
            elif name == "layout":
                assert (theirs.farm_size, theirs.size) == (mine.farm_size, mine.size)
            elif name != "_legal_now" or theirs is not None:
                assert theirs == mine, name
            shared = ("_legal_now", "fixed_split", "_harvest_base", "variant", "_offer_keys")
            if isinstance(mine, (list, set, dict)) and name not in shared:
                assert theirs is not mine, name  # (the dicts and the offer keys are read-only: shared)
        assert copy.variant == game.variant
        assert copy.to_json() == game.to_json()
        action = game.legal_actions()[0]
        a, b = game.clone(), copy
        a.apply(action)
        b.apply(action)
        assert a.to_json() == b.to_json() and a.legal_actions() == b.legal_actions()


def test_prebuilt_two_player_action_phase_equals_the_plain_loop():
    """FOG-2P-5, FOG-RUL-33: 12 turns, the seats alternating from the first player, each a pick and an act
    between turn2 and after_turn2; _ACTIONS_2P holds them as pushed (last-first)."""
    from farmgames.envs.fields_of_green.game import _ACTIONS_2P, TURNS

    for first in (0, 1):
        steps = []
        for i in range(2 * TURNS):
            p = first if i % 2 == 0 else 1 - first
            steps += [("turn2", i), ("pick", p), ("act", p), ("after_turn2", i)]
        assert list(_ACTIONS_2P[first]) == list(reversed(steps))
