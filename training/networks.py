"""Feature extractors for the flat observation of any game (imported by train and checkpoint loading).

The observation holds raw counts (coins, pile sizes, water …) next to 0/1 flags, and is wide (about
6,000 numbers for 2 players, 11,500 for 4, mostly farm grid planes). Two things keep PPO fast and
stable on a small CPU:

* ``symlog``: ``sign(x) * log(1 + |x|)`` inside the network, so the env and every Policy keep seeing
  the raw vector and checkpoints need no separate normalisation statistics;
* an optional shared first layer (``features_dim``): one ``Linear(observation, features_dim)`` used by
  both the policy and the value heads, instead of one wide first layer each, which halves the
  dominant matrix products.
"""

from __future__ import annotations

import gymnasium
import torch
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

__all__ = ["SymLogFlatten", "SymLogLinear"]


def symlog(x: torch.Tensor) -> torch.Tensor:
    return torch.sign(x) * torch.log1p(torch.abs(x))


class SymLogFlatten(BaseFeaturesExtractor):
    """Flatten, then ``symlog``."""

    def __init__(self, observation_space: gymnasium.spaces.Box, symlog: bool = True):
        super().__init__(observation_space, int(observation_space.shape[0]))
        self.symlog = symlog

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        x = torch.flatten(observations, start_dim=1)
        return symlog(x) if self.symlog else x


class SymLogLinear(BaseFeaturesExtractor):
    """Flatten, ``symlog`` (optional), then one shared ``Linear(n, features_dim)`` + activation."""

    def __init__(
        self,
        observation_space: gymnasium.spaces.Box,
        features_dim: int = 256,
        symlog: bool = True,
        activation: type[nn.Module] = nn.Tanh,
    ):
        super().__init__(observation_space, int(features_dim))
        self.symlog = symlog
        self.linear = nn.Linear(int(observation_space.shape[0]), int(features_dim))
        self.activation = activation()

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        x = torch.flatten(observations, start_dim=1)
        if self.symlog:
            x = symlog(x)
        return self.activation(self.linear(x))
