"""Bots placeholder."""
from farmgames.envs.core.bots import Bot, RandomBot


class HeuristicBot(RandomBot):
    name = "heuristic"
