"""A privileged critic: the value network reads the whole game, the policy only its seat's view.

"Perfect-training, imperfect-execution" (PerfectDou, Yang et al. 2022; Suphx's oracle guiding,
Li et al. 2020): during training the value function may know what no seat knows, which makes
its estimates of a hand's worth far less noisy, while the policy that will play stays a function
of the seat's own observation. After training the critic is thrown away in effect: agents feed
the policy observations alone.

    venv = MiauiSelfPlayVecEnv(256, num_players=4, privileged=True)      # rows: observation + state
    model = MaskablePPO(PrivilegedCriticPolicy, venv, policy_kwargs={"own_size": OBSERVATION_LAYOUT.size})

A privileged row is the seat's observation (OBSERVATION_LAYOUT, unchanged) followed by
`PRIVILEGED_SIZE` features of the global state, all from the seat's own place at the table:

    piles      (6, 8)   every seat's true pile (you, then each seat to your left; the values of
                        fish in other piles are not public, R2), kind counts and value sum / 4
    hands      (6, 12)  every seat's diver cards still in hand
    lagoon     (3, 8)   each space's true cards (face-down ones included, R5), summed, / 4
    next_deal  (3, 8)   the three cards the next round will place (R4)
    deck_rest  (8,)     everything still to be dealt after that, summed, / 4 (with the box's unseen card known
                        by elimination)

`PrivilegedCriticPolicy` is sb3-contrib's masked actor-critic whose actor reads only the first
`own_size` columns and whose critic reads all of them. It accepts observation-only rows too
(agents, the arena, snapshots as opponents): the missing state is filled with zeros, which
nothing the actor computes reads.

`seat_width` (a policy keyword, `ppo.policy_kwargs.seat_width` in a run config; 0, the default,
leaves it out) puts a `SeatSummary` in front of the actor: one small network shared by every
opponent's seat row, its mean and max over the opponents read beside the flat observation.
`card_odds` (`ppo.policy_kwargs.card_odds: true`) puts `miaui_env.games.miaui.card_odds.CardOdds`
there: the card-counting odds a careful player weighs, computed from the observation.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import create_mlp
from torch import nn

from miaui_env.games.miaui.card_odds import CardOdds
from miaui_env.games.miaui.compact import (
    CARD_CODE_SCALE,
    CARD_CODE_ZERO,
    COMPACT_DTYPE,
    COMPACT_SCALE,
    COMPACT_ZERO,
    CompactError,
    codes_of,
)
from miaui_env.games.miaui.compact_torch import ExpandsCodes
from miaui_env.games.miaui.encoder import features
from miaui_env.games.miaui.observation import CARD_DIM, OBSERVATION_LAYOUT, SEAT_DIM, SEAT_LAYOUT
from miaui_env.games.miaui.rules import MAX_PLAYERS, NUM_DIVER_CARDS, NUM_SPACES
from miaui_env.games.miaui.vector import VectorMiaui

COUNT_SCALE = 4.0  # as the observation's pile summaries: four top fish sum to a value of 1
PRIVILEGED_PIECES = (
    ("piles", MAX_PLAYERS * CARD_DIM),
    ("hands", MAX_PLAYERS * NUM_DIVER_CARDS),
    ("lagoon", NUM_SPACES * CARD_DIM),
    ("next_deal", NUM_SPACES * CARD_DIM),
    ("deck_rest", CARD_DIM),
)
PRIVILEGED_SIZE = sum(size for _, size in PRIVILEGED_PIECES)


def _code_tables() -> tuple[np.ndarray, np.ndarray]:
    """Each privileged column's uint8 code scale and zero (as `miaui_env.games.miaui.compact`'s): sums of
    cards are counted in quarters, a hand's cards are flags."""
    summed = (CARD_CODE_SCALE * COUNT_SCALE, CARD_CODE_ZERO)
    per_piece = {
        "piles": summed,
        "hands": (np.ones(NUM_DIVER_CARDS), np.zeros(NUM_DIVER_CARDS, dtype=np.int64)),
        "lagoon": summed,
        "next_deal": (CARD_CODE_SCALE, CARD_CODE_ZERO),
        "deck_rest": summed,
    }
    scale, zero = [], []
    for name, size in PRIVILEGED_PIECES:
        piece_scale, piece_zero = per_piece[name]
        scale.append(np.tile(piece_scale, size // len(piece_scale)))
        zero.append(np.tile(piece_zero, size // len(piece_zero)))
    return np.concatenate(scale), np.concatenate(zero)


PRIVILEGED_CODE_SCALE, PRIVILEGED_CODE_ZERO = _code_tables()  # (PRIVILEGED_SIZE,): value = (code - zero) / scale


def privileged_features(engine: VectorMiaui, seats: np.ndarray) -> np.ndarray:
    """(B, len(seats), PRIVILEGED_SIZE) float32: the global state of each game seen from each seat."""
    game, stats = engine.game_arrays, engine.card_stats
    batch, n = engine.num_envs, engine.num_players
    seats = np.asarray(seats, dtype=np.int64)
    relative = (seats[:, None] + np.arange(n)[None, :]) % n  # (L, n): you, then each seat to your left
    piles = np.zeros((batch, len(seats), MAX_PLAYERS, CARD_DIM), dtype=np.float32)
    piles[:, :, :n] = features(game.pile_stats)[:, relative] / COUNT_SCALE
    hands = np.zeros((batch, len(seats), MAX_PLAYERS, NUM_DIVER_CARDS), dtype=np.float32)
    hands[:, :, :n] = game.hands[:, relative]
    lagoon = features(stats[game.lagoon].sum(axis=2)) / COUNT_SCALE  # EMPTY rows are all zero
    dealt = NUM_SPACES * min(engine.round, len(game.placement[0]) // NUM_SPACES)  # the cards placed so far
    upcoming = game.placement[:, dealt : dealt + NUM_SPACES]
    next_deal = np.zeros((batch, NUM_SPACES, CARD_DIM), dtype=np.float32)
    next_deal[:, : upcoming.shape[1]] = features(stats[upcoming])
    deck_rest = features(stats[game.placement[:, dealt + NUM_SPACES :]].sum(axis=1)) / COUNT_SCALE
    shared = np.concatenate([lagoon.reshape(batch, -1), next_deal.reshape(batch, -1), deck_rest], axis=1)
    per_seat = np.concatenate([piles.reshape(batch, len(seats), -1), hands.reshape(batch, len(seats), -1)], axis=2)
    return np.concatenate([per_seat, np.broadcast_to(shared[:, None], (batch, len(seats), shared.shape[1]))], axis=2)


def privileged_codes(engine: VectorMiaui, seats: np.ndarray) -> np.ndarray:
    """`privileged_features` as uint8 codes (PRIVILEGED_CODE_SCALE, _ZERO), for compact rows; CompactError
    if a feature has no exact code (which the deck's bounds rule out)."""
    codes, exact = codes_of(privileged_features(engine, seats), PRIVILEGED_CODE_SCALE, PRIVILEGED_CODE_ZERO)
    if not exact.all():
        raise CompactError(f"privileged feature {int(np.argwhere(~exact)[0][-1])} has no exact uint8 code")
    return codes


def empty_privileged_codes(rows: int) -> np.ndarray:
    """The codes of `rows` all-zero privileged parts (a finished game's: its state is gone)."""
    return np.broadcast_to(PRIVILEGED_CODE_ZERO.astype(COMPACT_DTYPE), (rows, PRIVILEGED_SIZE)).copy()


class SeatSummary(nn.Module):
    """A seat's observation, and beside it what one small network, shared by every opponent's seat
    row, makes of those rows: the mean and the max of its outputs over the opponents at the table.
    The same weights read every opponent, wherever it sits and however many there are (a Deep Sets
    encoder, Zaheer et al. 2017), so what the policy learns of one opponent holds for all of them
    and for every table size; the flat observation stays in, so nothing the rows' order says is lost."""

    def __init__(self, width: int, activation_fn: type[nn.Module]):
        super().__init__()
        self.start, self.width = OBSERVATION_LAYOUT.offsets["seats"], width
        self.present = SEAT_LAYOUT.offsets["present"]
        self.seat_net = nn.Sequential(nn.Linear(SEAT_DIM, width), activation_fn(), nn.Linear(width, width), activation_fn())
        self.out_dim = OBSERVATION_LAYOUT.size + 2 * width

    def forward(self, own: torch.Tensor) -> torch.Tensor:
        """(..., n >= OBSERVATION_LAYOUT.size) -> (..., n + 2 * width): the rows, the opponents' mean, their max."""
        seats = own[..., self.start : self.start + MAX_PLAYERS * SEAT_DIM].reshape(*own.shape[:-1], MAX_PLAYERS, SEAT_DIM)
        opponents = seats[..., 1:, :]  # row 0 is the seat itself
        present = opponents[..., self.present : self.present + 1]
        made = self.seat_net(opponents) * present
        mean = made.sum(dim=-2) / present.sum(dim=-2).clamp(min=1.0)
        # A missing seat's row may not be the max: it is pushed below anything a present row can make.
        most = (made - (1.0 - present) * 1e4).max(dim=-2).values
        return torch.cat([own, mean, most], dim=-1)


class AsymmetricMlpExtractor(nn.Module):
    """SB3's MlpExtractor with its two networks reading different columns: the policy network the
    first `own_size` features, the value network all of them. With `seat_width` > 0 the policy
    network reads Miaui's observation through a `SeatSummary` of that width first."""

    def __init__(
        self,
        feature_dim: int,
        own_size: int,
        net_arch: Any,
        activation_fn: type[nn.Module],
        seat_width: int = 0,
        card_odds: bool = False,
    ):
        super().__init__()
        pi_arch, vf_arch = (net_arch.get("pi", []), net_arch.get("vf", [])) if isinstance(net_arch, dict) else (net_arch, net_arch)
        self.own_size = own_size
        front: list[nn.Module] = []
        actor_inputs = own_size
        for name, wanted in (("seat_width", seat_width > 0), ("card_odds", card_odds)):
            if wanted and own_size != OBSERVATION_LAYOUT.size:
                raise ValueError(f"{name} reads Miaui's {OBSERVATION_LAYOUT.size}-column observation; own_size is {own_size}")
        if card_odds:
            front.append(CardOdds())
            actor_inputs += CardOdds.out_extra
        if seat_width > 0:
            summary = SeatSummary(seat_width, activation_fn)
            front.append(summary)
            actor_inputs += summary.out_dim - OBSERVATION_LAYOUT.size
        self.policy_net = nn.Sequential(*front, *create_mlp(actor_inputs, -1, list(pi_arch), activation_fn))
        self.value_net = nn.Sequential(*create_mlp(feature_dim, -1, list(vf_arch), activation_fn))
        self.latent_dim_pi = pi_arch[-1] if pi_arch else actor_inputs
        self.latent_dim_vf = vf_arch[-1] if vf_arch else feature_dim

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The policy's and the value's latents."""
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        """The policy's latent, from the seat's own observation only."""
        latent: torch.Tensor = self.policy_net(features[..., : self.own_size])
        return latent

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        """The value's latent, from everything."""
        latent: torch.Tensor = self.value_net(features)
        return latent


class PrivilegedCriticPolicy(ExpandsCodes, MaskableActorCriticPolicy):
    """sb3-contrib's masked actor-critic with a privileged critic; see the module docstring.

    `own_size` is the length of the seat's observation at the front of every row. Rows of only
    `own_size` columns are accepted and padded with zeros (the critic's part). Rows may come as uint8
    codes (`privileged_codes` after the observation's), expanded on the policy's device (ExpandsCodes).
    """

    def __init__(
        self,
        observation_space: Any,
        action_space: Any,
        lr_schedule: Any,
        own_size: int = OBSERVATION_LAYOUT.size,
        seat_width: int = 0,
        card_odds: bool = False,
        **kwargs: Any,
    ):
        full = int(np.prod(observation_space.shape))
        if isinstance(seat_width, bool) or not isinstance(seat_width, int) or seat_width < 0:
            raise ValueError(f"seat_width={seat_width!r} must be an integer >= 0 (0: the policy reads the flat observation alone)")
        if not isinstance(card_odds, bool):
            raise ValueError(f"card_odds={card_odds!r} must be true or false (true: the policy reads the card-counting odds too)")
        if not 0 < own_size < full:
            raise ValueError(f"own_size={own_size!r} must be between 1 and the row length {full - 1}: the critic's part follows it")
        if kwargs.get("features_extractor_class") not in (None,) or kwargs.get("share_features_extractor") is False:
            raise ValueError("PrivilegedCriticPolicy reads the rows as they are: no features_extractor_class, one shared (flat) extractor")
        self.own_size, self.row_size, self.seat_width, self.card_odds = own_size, full, seat_width, card_odds
        super().__init__(observation_space, action_space, lr_schedule, **kwargs)
        if (own_size, full) == (OBSERVATION_LAYOUT.size, OBSERVATION_LAYOUT.size + PRIVILEGED_SIZE):
            scale, zero = np.concatenate([COMPACT_SCALE, PRIVILEGED_CODE_SCALE]), np.concatenate([COMPACT_ZERO, PRIVILEGED_CODE_ZERO])
            self.register_code_tables(scale, zero)

    def _build_mlp_extractor(self) -> None:
        # Duck-typed as SB3's MlpExtractor: latent_dim_pi/vf, forward, forward_actor, forward_critic.
        extractor = AsymmetricMlpExtractor(
            self.features_dim, self.own_size, self.net_arch, self.activation_fn, self.seat_width, self.card_odds
        )
        self.mlp_extractor = extractor.to(self.device)  # type: ignore[assignment]

    def _get_constructor_parameters(self) -> dict[str, Any]:
        return {
            **super()._get_constructor_parameters(),
            "own_size": self.own_size,
            "seat_width": self.seat_width,
            "card_odds": self.card_odds,
        }

    def obs_to_tensor(self, observation: Any) -> tuple[Any, bool]:
        """As SB3's, accepting observation-only rows (the critic's part zero)."""
        rows = np.asarray(observation)
        if rows.shape[-1:] == (self.own_size,):
            padded = np.zeros((*rows.shape[:-1], self.row_size), dtype=np.float32)
            padded[..., : self.own_size] = rows
            rows = padded
        return super().obs_to_tensor(rows)
