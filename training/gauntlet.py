"""The evaluation gauntlet every trainer measures with, and the one chart of measures over training.

A gauntlet is an arena run (miaui_env.games.miaui.arena; the octopus game's, miaui_env.games.octopus.arena;
any other game's, miaui_env.apps.any_game)
of a learner against n-1 copies of one opponent, dealt in duplicate sets so that every seat meets
every deal. Self-play PPO evaluates its learner
against each baseline with it (training/selfplay.py), the RLlib trainer its exported policy
(training/rllib_selfplay.py), and the exploitability yardstick its best responses
(training/exploit.py).

Its seeds come from the run's seed tree (`RunSeeds`): the gauntlet at `path` deals the games of
`seeds.integer("evaluation", *path, 0)` and seeds the opponent with `seeds.integer("evaluation",
*path, 1)`, so every evaluation of a run at the same path plays the same games against the same
opponent, and evaluations compare over training.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from miaui_env.apps import any_game
from miaui_env.apps.any_game import AnyArenaConfig
from miaui_env.core.agents import Agent, Policy, agent_name
from miaui_env.core.arena import check_result_size, gauntlet_significance, summarize
from miaui_env.core.files import replacing
from miaui_env.core.registry import get_game
from miaui_env.games.miaui.agents.loading import load_agent
from miaui_env.games.miaui.arena import ArenaConfig, SampleGames, play
from miaui_env.games.miaui.replay import record_replay, save_replay
from miaui_env.games.miaui.spec import TableSpec
from miaui_env.games.octopus import arena as octopus_arena
from miaui_env.games.octopus.agents import load_octopus_agent
from miaui_env.games.octopus.arena import OctopusArenaConfig
from miaui_env.games.octopus.replay import play_and_record
from miaui_env.games.octopus.replay import save_replay as save_octopus_replay
from training.config import ConfigError, EvaluationConfig, ProbeConfig, RunSeeds


@dataclass(frozen=True)
class GauntletResult:
    """The learner's measures over one gauntlet."""

    opponent: str
    """The opponent's agent spec."""
    num_players: int
    """Seats at each game: the learner and n-1 copies of the opponent."""
    games: int
    """Games played (whole duplicate sets)."""
    win_share: float
    """The learner's share of the wins (tied winners share a win)."""
    win_share_ci: float
    """Half-width of the win share's 95% confidence interval (NaN with too few duplicate sets)."""
    mean_score: float
    """The learner's mean score."""
    significance: str
    """Whether the win share is above the fair share 1/n, as a one-sided test over duplicate sets."""

    @property
    def gain(self) -> float:
        """How far the win share rises above the fair share 1/n."""
        return self.win_share - 1 / self.num_players

    def figures(self) -> dict[str, float | int]:
        """win_share, win_share_ci, mean_score and games, rounded as every evaluation row writes them."""
        return {
            "win_share": round(self.win_share, 4),
            "win_share_ci": round(self.win_share_ci, 4),
            "mean_score": round(self.mean_score, 2),
            "games": self.games,
        }


def gauntlet(
    learner: Agent | Policy,
    opponent: str,
    table: TableSpec,
    games: int,
    seeds: RunSeeds,
    path: tuple[int, ...],
    replay: Path | None = None,
) -> GauntletResult:
    """`learner` against n-1 copies of the agent `opponent` names at `table` (its players and variants;
    its view for agents that do not say theirs), `games` games dealt from the seed tree at `path`;
    the first game is saved as a replay at `replay`, if given."""
    arena = ArenaConfig.at_table(table, games=games, seed=seeds.integer("evaluation", *path, 0))
    rival = load_agent(opponent, seed=seeds.integer("evaluation", *path, 1))
    names = [agent_name(learner), opponent]
    sample = SampleGames(1) if replay is not None else None
    seats, scores, winners = play([learner, rival], "gauntlet", arena, samples=sample)
    if replay is not None and sample is not None:
        seated = [names[agent] for agent in seats[0]]
        save_replay(record_replay(table, sample.plays[0], seed=int(sample.seeds[0]), players=seated), replay)
    return measured(names, seats, scores, winners, arena.num_players)


def octopus_gauntlet(
    learner: Agent | Policy,
    opponent: str,
    table: OctopusArenaConfig,
    games: int,
    seeds: RunSeeds,
    path: tuple[int, ...],
    replay: Path | None = None,
) -> GauntletResult:
    """The octopus game's gauntlet: `learner` against n-1 copies of the octopus agent `opponent` at
    `table` (its players, view and session cap), `games` games in duplicate sets (the same decks and
    dice, seats rotated) dealt from the seed tree at `path`, as `gauntlet` does for Miaui. The
    arena's games are stacked decks, which a replay cannot hold, so the replay at `replay` (if
    given) is one more game, dealt by the tree's third seed at `path`, the learner in seat 0."""
    arena = replace(table, games=games, seed=seeds.integer("evaluation", *path, 0))
    rival = load_octopus_agent(opponent, seed=seeds.integer("evaluation", *path, 1))
    names = [agent_name(learner), opponent]
    seats, scores, winners = octopus_arena.play([learner, rival], "gauntlet", arena)
    if replay is not None:
        game = play_and_record(
            [learner, *[rival] * (arena.num_players - 1)],
            arena.num_players,
            seeds.integer("evaluation", *path, 2),
            arena.view,
            arena.max_sessions,
        )
        save_octopus_replay(replace(game, players=(names[0], *[opponent] * (arena.num_players - 1))), replay)
    return measured(names, seats, scores, winners, arena.num_players)


def any_game_gauntlet(
    learner: Agent | Policy,
    opponent: str,
    table: AnyArenaConfig,
    games: int,
    seeds: RunSeeds,
    path: tuple[int, ...],
    replay: Path | None = None,
) -> GauntletResult:
    """The gauntlet of a game played through its AEC env (miaui_env.apps.any_game): `learner` against
    n-1 copies of the game's agent `opponent` at `table`, `games` games in duplicate sets dealt from the
    seed tree at `path`, the first game saved as a replay at `replay`, if given."""
    arena = replace(table, games=games, seed=seeds.integer("evaluation", *path, 0))
    game = get_game(arena.game)
    rival = game.load_agent(opponent, seed=seeds.integer("evaluation", *path, 1))
    names = [agent_name(learner), opponent]
    seats, game_seeds = any_game.schedule("gauntlet", 2, arena)
    played = any_game.play_games(game, [learner, rival], seats, game_seeds, arena.view, arena.batch_games, keep=int(replay is not None))
    if replay is not None:
        players = [names[agent] for agent in seats[0]]
        record = any_game.record(game, arena.num_players, played.view, int(game_seeds[0]), players, played.decisions[0])
        any_game.save_replay(record, replay)
    return measured(names, seats, played.scores, played.winners, arena.num_players)


def measured(names: list[str], seats: np.ndarray, scores: np.ndarray, winners: np.ndarray, num_players: int) -> GauntletResult:
    """The learner's (`names[0]`) measures over a gauntlet's games against `names[1]`, as either game's arena returns them."""
    result = summarize(names, seats, scores, winners, num_players)[0]
    return GauntletResult(
        opponent=names[1],
        num_players=num_players,
        games=result.games,
        win_share=result.win_share,
        win_share_ci=result.win_share_ci,
        mean_score=result.mean_score,
        significance=gauntlet_significance(seats, winners, num_players, names[0]),
    )


@dataclass(frozen=True)
class Curve:
    """One line of a chart over training steps, with its 95% band."""

    label: str
    """The legend's entry."""
    steps: Sequence[int]
    """Training steps, along x."""
    values: np.ndarray
    """The measure at each step."""
    band: np.ndarray
    """Half-width of the band around each value (NaN: no band there)."""


def plot_curves(
    path: Path,
    curves: Sequence[Curve],
    *,
    reference: tuple[float, str],
    title: str,
    xlabel: str,
    ylabel: str,
    ylim: tuple[float, float] | None = None,
    steps_in_millions: bool = False,
) -> None:
    """Measures over training steps as a PNG at `path` (written atomically): each curve with its band
    (and error bars, which a curve of one point needs), and a dashed grey `reference` line (value, legend entry), e.g. the fair share."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(9, 4))
    for curve in curves:
        (line,) = axes.plot(curve.steps, curve.values, marker="o", label=curve.label)
        axes.fill_between(curve.steps, curve.values - curve.band, curve.values + curve.band, alpha=0.2)
        axes.errorbar(curve.steps, curve.values, yerr=curve.band, fmt="none", capsize=3, color=line.get_color())  # a lone point's band
    axes.axhline(reference[0], color="grey", linestyle="--", label=reference[1])
    if steps_in_millions:
        axes.xaxis.set_major_formatter(lambda steps, _: f"{steps / 1e6:g}M")
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel)
    if ylim is not None:
        axes.set_ylim(*ylim)
    axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)  # beside the axes: it never hides a curve
    axes.set_title(title)
    figure.tight_layout()
    with replacing(path) as temporary:
        figure.savefig(temporary, dpi=110)
    plt.close(figure)


def check_arenas(evaluation: EvaluationConfig, probe: ProbeConfig) -> None:
    """Refuse (ConfigError naming the section) a run whose evaluations or probe ask for more arena games than the arena allows."""
    arenas = [("evaluation", evaluation.num_players, evaluation.games_per_baseline)]
    arenas += [("probe", probe.num_players, probe.games)] if probe.steps > 0 else []
    for section, num_players, games in arenas:  # the sizes are the game's (checked with the tables): any game's arena keeps these results
        check_result_size(games, num_players, f"config section '{section}':", ConfigError)
