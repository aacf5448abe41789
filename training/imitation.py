"""Imitation warm start: behaviour cloning of a bot before PPO (the ``imitation:`` config section).

PPO from scratch against the heuristic bot learns slowly (it wins ~5% heads-up after ~80k steps). This
module gives the PPO run a policy that already plays like the heuristic bot:

1. **Demonstrations** (:func:`collect_demos`): seeded games of the single-agent env (the training
   config's players, variant, opponents and reward) in which the learner's seat is played by a
   *teacher* bot reading the engine ``Game`` (``env.unwrapped.game``). Every learner decision is
   recorded: the flat observation, the legal-action mask, the teacher's action and the env's reward,
   from which the discounted return of every decision follows. Games run in ``workers`` forked
   processes (the heuristic bot costs ~3-7 ms a decision, for both seats) and are saved to an
   ``.npz`` cache, reused by later runs with the same settings (or more games).
2. **Behaviour cloning** (:func:`behaviour_clone`): the MaskablePPO model built exactly as
   ``farmgames train`` builds it is trained by cross-entropy on the masked logits (forced decisions,
   with one legal action, carry no information and are left out of the policy loss), plus
   ``value_coef`` x the squared error of the value head against the discounted return (the margin
   reward scaled like the env's), so PPO's critic starts sensible and the first PPO updates do not
   wreck the cloned policy. Accuracy (greedy masked action == teacher's) is measured on held-out games.

:func:`run_imitation` ties both to a training config; ``farmgames train`` calls it before PPO, saves
the cloned model as ``imitation.zip`` (a normal checkpoint with the same metadata) and writes
``imitation.json`` (accuracies, losses, timings).
"""

from __future__ import annotations

import json
import math
import sys
import time
from pathlib import Path

import numpy as np

from farmgames.envs.core.seeding import derive_seed

__all__ = [
    "DEMO_FORMAT",
    "DEMO_SEED_BASE",
    "behaviour_clone",
    "collect_demos",
    "demo_env_kwargs",
    "discounted_returns",
    "load_demos",
    "masked_accuracy",
    "prepare_demos",
    "run_imitation",
    "save_demos",
]

DEMO_FORMAT = "farmgames-demos/1"
# Demonstration game g deals with seed DEMO_SEED_BASE + g: far from evaluation's deal seeds (0.., 10000..).
DEMO_SEED_BASE = 1_000_000
_CHUNK = 4  # games per worker task (progress granularity)


def _log(message: str) -> None:
    print(f"imitation: {message}", file=sys.stderr, flush=True)


# ------------------------------------------------------------------ demonstrations


def demo_env_kwargs(config) -> dict:
    """Single-agent env keywords for the demonstration games: the training env of ``config``, with the
    config's base opponents (a self-play pool does not exist yet)."""
    from .policy import resolve_opponent

    return {
        "game": config.env.game,
        "resolver": resolve_opponent,
        "num_players": config.env.num_players,
        "opponents": config.env.opponents,
        "learner_seat": 0,
        "deterministic_opponents": config.env.deterministic_opponents,
        "reward_scale": config.env.reward_scale,
        "torch_threads": 1,
        **config.env.variant,
    }


_WORKER_ENV: dict = {}


def _env(env_kwargs: dict):
    key = repr(sorted(env_kwargs.items()))
    env = _WORKER_ENV.get(key)
    if env is None:
        from farmgames.wrappers.single_agent import SingleAgentEnv

        _WORKER_ENV.clear()
        env = _WORKER_ENV[key] = SingleAgentEnv(**env_kwargs)
    return env


def _play_games(task) -> dict:
    """Play demonstration games ``game_ids`` (the teacher in the learner's seat); returns their arrays."""
    env_kwargs, teacher, game_ids, seed_base = task
    from farmgames.envs.core.bots import make_bot

    env = _env(env_kwargs)
    bots = env.game_spec.bots
    players = int(env_kwargs["num_players"])
    obs_list, masks, actions, rewards, games = [], [], [], [], []
    outcome = {"won": [], "margin": [], "decisions": []}
    for g in game_ids:
        game_seed = seed_base + int(g)
        obs, info = env.reset(options={"game_seed": game_seed, "learner_seat": int(g) % players})
        bot = make_bot(bots, teacher, seed=derive_seed(game_seed, 7919))
        game = env.unwrapped.game  # the engine Game the bot reads
        done, n = False, 0
        while not done:
            mask = info["action_mask"]
            action = int(bot.act(game))
            if not mask[action]:
                raise RuntimeError(f"teacher {teacher!r} chose illegal action {action} in demonstration game {g}")
            obs_list.append(obs)
            masks.append(mask.astype(bool))
            actions.append(action)
            obs, reward, done, truncated, info = env.step(action)
            rewards.append(reward)
            n += 1
            done = done or truncated
        games.extend([int(g)] * n)
        outcome["won"].append(bool(info["learner_won"]))
        outcome["margin"].append(float(info["learner_margin"]))
        outcome["decisions"].append(n)
    return {
        "obs": _compact(np.asarray(obs_list, dtype=np.float32)),
        "mask": np.asarray(masks, dtype=bool),
        "action": np.asarray(actions, dtype=np.int32),
        "reward": np.asarray(rewards, dtype=np.float32),
        "game": np.asarray(games, dtype=np.int32),
        "game_ids": np.asarray(game_ids, dtype=np.int32),
        "game_won": np.asarray(outcome["won"], dtype=bool),
        "game_margin": np.asarray(outcome["margin"], np.float32),
    }


def _compact(obs: np.ndarray) -> np.ndarray:
    """Observations are raw counts and flags: store them losslessly in the smallest integer type."""
    if obs.size == 0:
        return obs.astype(np.uint8)
    lo, hi = float(obs.min()), float(obs.max())
    if lo >= 0 and np.array_equal(obs, np.floor(obs)):
        if hi <= np.iinfo(np.uint8).max:
            return obs.astype(np.uint8)
        if hi <= np.iinfo(np.uint16).max:
            return obs.astype(np.uint16)
    return obs.astype(np.float32)


def collect_demos(
    env_kwargs: dict,
    teacher: str = "heuristic",
    games: int = 100,
    workers: int = 2,
    seed_base: int = DEMO_SEED_BASE,
    progress: bool = True,
    first: int = 0,
) -> dict:
    """Play seeded demonstration games ``first .. games - 1`` (game ``g``: deal seed ``seed_base + g``,
    learner seat ``g % players``) with ``teacher`` in the learner's seat, in ``workers`` forked processes.

    Returns arrays, one row per learner decision: ``obs`` (compact integer type, exact; cast to float32
    to use), ``mask`` (bool), ``action``, ``reward`` (the env's, already scaled) and ``game``; and per
    game ``game_ids``, ``game_won`` and ``game_margin`` (the teacher's result)."""
    from farmgames.wrappers.heap import settle_worker, settled_heap

    ids = list(range(int(first), int(games)))
    chunk = max(1, min(_CHUNK, math.ceil(len(ids) / max(int(workers), 1))))
    tasks = [(env_kwargs, teacher, ids[i : i + chunk], seed_base) for i in range(0, len(ids), chunk)]
    bar = None
    if progress:
        try:
            from tqdm import tqdm

            bar = tqdm(total=len(ids), desc=f"demos ({teacher})", unit="game", file=sys.stderr, dynamic_ncols=True)
        except ImportError:  # pragma: no cover
            bar = None
    parts = []
    workers = max(1, min(int(workers), len(tasks)))
    try:
        if workers == 1:
            with settled_heap():  # the collector off the start-up heap while the teacher plays (wrappers/heap.py)
                for task in tasks:
                    parts.append(_play_games(task))
                    if bar is not None:
                        bar.update(len(task[2]))
        else:
            import multiprocessing

            method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
            with multiprocessing.get_context(method).Pool(workers, initializer=settle_worker) as pool:
                for part in pool.imap(_play_games, tasks):
                    parts.append(part)
                    if bar is not None:
                        bar.update(len(part["game_ids"]))
    finally:
        if bar is not None:
            bar.close()
    data = {key: np.concatenate([p[key] for p in parts]) for key in parts[0] if key != "obs"}
    data["obs"] = _concat_obs([p["obs"] for p in parts])
    return data


def _concat_obs(blocks: list[np.ndarray]) -> np.ndarray:
    dtypes = {b.dtype for b in blocks}
    if len(dtypes) > 1:  # a wider type somewhere: widen all
        order = [np.dtype(np.uint8), np.dtype(np.uint16), np.dtype(np.float32)]
        wide = max(dtypes, key=order.index)
        blocks = [b.astype(wide) for b in blocks]
    return np.concatenate(blocks)


def save_demos(path: str | Path, data: dict, meta: dict) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez_compressed(tmp, meta=np.asarray(json.dumps(meta, sort_keys=True)), **data)
    tmp.replace(path)
    return path


def load_demos(path: str | Path, meta: dict | None = None) -> dict | None:
    """The demonstrations in ``path`` if they were made with ``meta`` (same teacher, env, seeds), else
    None. With more games than ``meta["games"]`` the first ones are returned; with fewer, all of them
    (``data["meta"]["games"]`` says how many: the caller plays the rest)."""
    path = Path(path)
    if not path.exists():
        return None
    try:
        with np.load(path, allow_pickle=False) as f:
            stored = json.loads(str(f["meta"]))
            if meta is not None:
                want = {k: v for k, v in meta.items() if k != "games"}
                have = {k: v for k, v in stored.items() if k != "games"}
                if json.loads(json.dumps(want)) != have:
                    return None
            data = {key: f[key] for key in f.files if key != "meta"}
    except (OSError, ValueError, KeyError, json.JSONDecodeError):
        return None
    if meta is not None and int(stored["games"]) > int(meta["games"]):
        n = int(meta["games"])
        keep = data["game"] < n
        for key in ("obs", "mask", "action", "reward", "game"):
            data[key] = data[key][keep]
        gkeep = data["game_ids"] < n
        for key in ("game_ids", "game_won", "game_margin"):
            data[key] = data[key][gkeep]
        stored = {**stored, "games": n}
    data["meta"] = stored
    return data


def _concat_demos(a: dict, b: dict) -> dict:
    out = {key: np.concatenate([a[key], b[key]]) for key in b if key != "obs"}
    out["obs"] = _concat_obs([a["obs"], b["obs"]])
    return out


def discounted_returns(reward: np.ndarray, game: np.ndarray, gamma: float) -> np.ndarray:
    """The discounted return of every decision (rows of one game are contiguous and in order)."""
    out = np.zeros(len(reward), dtype=np.float64)
    running = 0.0
    for i in range(len(reward) - 1, -1, -1):
        if i == len(reward) - 1 or game[i + 1] != game[i]:
            running = 0.0
        running = float(reward[i]) + gamma * running
        out[i] = running
    return out.astype(np.float32)


def prepare_demos(config, facts: dict, out_dir: Path, progress: bool = True) -> tuple[dict, dict]:
    """The demonstrations for ``config`` (from its cache when it fits, else played and cached);
    returns ``(data, info)``."""
    im = config.imitation
    cache = Path(im.cache) if im.cache else Path(out_dir) / "demos.npz"
    kwargs = demo_env_kwargs(config)
    meta = {
        "format": DEMO_FORMAT,
        "game": config.env.game,
        "teacher": im.teacher,
        "games": int(im.games),
        "seed_base": DEMO_SEED_BASE,
        "num_players": facts["num_players"],
        "variant": facts["variant"],
        "opponents": config.env.opponents,
        "deterministic_opponents": config.env.deterministic_opponents,
        "reward_scale": config.env.reward_scale,
        "observation_size": facts["observation_size"],
        "action_size": facts["action_size"],
    }
    started = time.perf_counter()
    data = load_demos(cache, meta)
    have = int(data["meta"]["games"]) if data is not None else 0
    hit = have >= im.games
    if hit:
        _log(f"{len(data['action'])} decisions of {im.games} games loaded from {cache}")
    else:
        more = f" (games {have}..{im.games - 1}; the first {have} come from {cache})" if have else ""
        _log(
            f"playing {im.games - have} demonstration games{more}: {im.teacher} in the learner's seat, "
            f"{im.workers} workers"
        )
        new = collect_demos(kwargs, im.teacher, im.games, im.workers, DEMO_SEED_BASE, progress, first=have)
        if data is not None:
            data.pop("meta")
            new = _concat_demos(data, new)
        data = new
        save_demos(cache, data, meta)
        data["meta"] = meta
    seconds = time.perf_counter() - started
    info = {
        "cache": str(cache),
        "cache_hit": hit,
        "demo_seconds": seconds,
        "games": int(im.games),
        "decisions": int(len(data["action"])),
        "forced_share": float((data["mask"].sum(1) == 1).mean()) if len(data["action"]) else 0.0,
        "teacher": im.teacher,
        "teacher_win_rate": float(data["game_won"].mean()),
        "teacher_margin_mean": float(data["game_margin"].mean()),
    }
    if not hit:
        _log(
            f"{info['decisions']} decisions in {seconds:.0f} s ({seconds / max(im.games - have, 1):.2f} s/game); "
            f"teacher won {info['teacher_win_rate']:.1%} against {config.env.opponents}; cached in {cache}"
        )
    return data, info


# ------------------------------------------------------------------ behaviour cloning


def _forward(policy, obs):
    """Masked-logit inputs and values from one pass through the MaskablePPO policy's pieces."""
    features = policy.extract_features(obs)
    if policy.share_features_extractor:
        latent_pi, latent_vf = policy.mlp_extractor(features)
    else:
        pi_features, vf_features = features
        latent_pi = policy.mlp_extractor.forward_actor(pi_features)
        latent_vf = policy.mlp_extractor.forward_critic(vf_features)
    return policy.action_net(latent_pi), policy.value_net(latent_vf).squeeze(-1)


def _batch(data: dict, idx: np.ndarray, device):
    import torch

    obs = torch.as_tensor(data["obs"][idx].astype(np.float32), device=device)
    mask = torch.as_tensor(data["mask"][idx], device=device)
    action = torch.as_tensor(data["action"][idx].astype(np.int64), device=device)
    return obs, mask, action


def masked_accuracy(
    policy, data: dict, idx: np.ndarray, returns: np.ndarray | None = None, batch_size: int = 2048
) -> dict:
    """Share of the decisions ``idx`` with more than one legal action where the policy's most likely
    legal action is the teacher's; also the masked cross-entropy and (with ``returns``) the value MSE."""
    import torch

    idx = np.asarray(idx)
    idx = idx[data["mask"][idx].sum(1) > 1] if returns is None else idx
    correct = total = 0
    ce_sum = 0.0
    sq_sum, n_val = 0.0, 0
    was_training = policy.training
    policy.eval()
    with torch.no_grad():
        for start in range(0, len(idx), batch_size):
            b = idx[start : start + batch_size]
            obs, mask, action = _batch(data, b, policy.device)
            logits, values = _forward(policy, obs)
            if returns is not None:
                target = torch.as_tensor(returns[b], device=policy.device)
                sq_sum += float(((values - target) ** 2).sum())
                n_val += len(b)
            choice = mask.sum(1) > 1
            if not bool(choice.any()):
                continue
            masked = logits[choice].masked_fill(~mask[choice], -1e8)
            ce_sum += float(torch.nn.functional.cross_entropy(masked, action[choice], reduction="sum"))
            correct += int((masked.argmax(1) == action[choice]).sum())
            total += int(choice.sum())
    policy.train(was_training)
    out = {
        "accuracy": correct / total if total else None,
        "cross_entropy": ce_sum / total if total else None,
        "decisions": total,
    }
    if returns is not None:
        out["value_mse"] = sq_sum / n_val if n_val else None
    return out


def behaviour_clone(
    policy,
    data: dict,
    *,
    epochs: int = 8,
    batch_size: int = 256,
    learning_rate: float = 1e-3,
    value_coef: float = 0.5,
    gamma: float = 0.99,
    validation: float = 0.1,
    max_grad_norm: float | None = 0.5,
    seed: int = 0,
    progress: bool = True,
) -> dict:
    """Train a MaskablePPO policy (``model.policy``) in place to imitate ``data``'s actions (masked
    cross-entropy) and, with ``value_coef`` > 0, to predict the discounted return. The last
    ``validation`` share of the games is held out; returns the per-epoch history and held-out accuracy."""
    import torch
    import torch.nn.functional as F

    games = np.unique(data["game"])
    n_val = min(max(1, int(round(len(games) * validation))), len(games) - 1) if len(games) > 1 else 0
    val_games = games[len(games) - n_val :]
    is_val = np.isin(data["game"], val_games)
    train_idx, val_idx = np.flatnonzero(~is_val), np.flatnonzero(is_val)
    if n_val == 0:  # a single game: measure on the training decisions
        val_idx = train_idx
    returns = discounted_returns(data["reward"], data["game"], gamma)
    # forced decisions teach the policy nothing; they still train the value head
    choice = data["mask"].sum(1) > 1
    rng = np.random.default_rng(seed)
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    steps_per_epoch = max(1, math.ceil(len(train_idx) / batch_size))
    total_steps = steps_per_epoch * epochs
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: 0.5 * (1.0 + math.cos(math.pi * min(step, total_steps) / total_steps))
    )

    initial = masked_accuracy(policy, data, val_idx, returns)
    history = []
    bar = None
    if progress:
        try:
            from tqdm import tqdm

            bar = tqdm(total=total_steps, desc="behaviour cloning", unit="batch", file=sys.stderr, dynamic_ncols=True)
        except ImportError:  # pragma: no cover
            bar = None
    started = time.perf_counter()
    device = policy.device
    try:
        for epoch in range(1, epochs + 1):
            policy.train()
            order = rng.permutation(train_idx)
            sums = {"loss": 0.0, "policy_loss": 0.0, "value_loss": 0.0, "correct": 0, "choices": 0, "n": 0}
            for start in range(0, len(order), batch_size):
                b = order[start : start + batch_size]
                obs, mask, action = _batch(data, b, device)
                logits, values = _forward(policy, obs)
                sel = torch.as_tensor(choice[b], device=device)
                if bool(sel.any()):
                    masked = logits[sel].masked_fill(~mask[sel], -1e8)
                    policy_loss = F.cross_entropy(masked, action[sel])
                    sums["correct"] += int((masked.argmax(1) == action[sel]).sum())
                    sums["choices"] += int(sel.sum())
                else:
                    policy_loss = logits.sum() * 0.0
                value_loss = F.mse_loss(values, torch.as_tensor(returns[b], device=device))
                loss = policy_loss + value_coef * value_loss
                optimizer.zero_grad()
                loss.backward()
                if max_grad_norm:
                    torch.nn.utils.clip_grad_norm_(policy.parameters(), max_grad_norm)
                optimizer.step()
                schedule.step()
                sums["loss"] += loss.item() * len(b)
                sums["policy_loss"] += policy_loss.item() * len(b)
                sums["value_loss"] += value_loss.item() * len(b)
                sums["n"] += len(b)
                if bar is not None:
                    bar.update(1)
            val = masked_accuracy(policy, data, val_idx, returns)
            row = {
                "epoch": epoch,
                "loss": sums["loss"] / max(sums["n"], 1),
                "policy_loss": sums["policy_loss"] / max(sums["n"], 1),
                "value_loss": sums["value_loss"] / max(sums["n"], 1),
                "train_accuracy": sums["correct"] / sums["choices"] if sums["choices"] else None,
                "val_accuracy": val["accuracy"],
                "val_cross_entropy": val["cross_entropy"],
                "val_value_mse": val["value_mse"],
                "seconds": time.perf_counter() - started,
            }
            history.append(row)
            if bar is not None:
                bar.set_postfix(val_acc=f"{val['accuracy'] or 0:.3f}", value_mse=f"{val['value_mse'] or 0:.3f}")
            else:
                _log(
                    f"epoch {epoch}/{epochs}: train acc {row['train_accuracy'] or 0:.3f}, held-out acc "
                    f"{row['val_accuracy'] or 0:.3f}, value mse {row['val_value_mse'] or 0:.4f}"
                )
    finally:
        if bar is not None:
            bar.close()
    policy.eval()
    final = history[-1] if history else {}
    return {
        "train_decisions": int(len(train_idx)),
        "val_decisions": int(len(val_idx)),
        "val_games": int(n_val),
        "initial_val_accuracy": initial["accuracy"],
        "initial_val_value_mse": initial["value_mse"],
        "val_accuracy": final.get("val_accuracy"),
        "train_accuracy": final.get("train_accuracy"),
        "val_value_mse": final.get("val_value_mse"),
        "return_variance": float(np.var(returns[val_idx])) if len(val_idx) else None,
        "bc_seconds": time.perf_counter() - started,
        "history": history,
    }


# ------------------------------------------------------------------ the training-config entry point


def run_imitation(config, model, data: dict, demo_info: dict, out_dir: Path, meta: dict) -> dict:
    """Clone ``data`` into ``model`` (a MaskablePPO built by ``farmgames train``), save it as
    ``<out>/imitation.zip`` with ``meta``, write ``<out>/imitation.json``; returns that report."""
    im = config.imitation
    out_dir = Path(out_dir)
    _log(
        f"behaviour cloning: {demo_info['decisions']} decisions, {im.epochs} epochs, batch {im.batch_size}, "
        f"lr {im.learning_rate}, value_coef {im.value_coef}"
    )
    result = behaviour_clone(
        model.policy,
        data,
        epochs=im.epochs,
        batch_size=im.batch_size,
        learning_rate=im.learning_rate,
        value_coef=im.value_coef,
        gamma=config.ppo.gamma,
        validation=im.validation,
        max_grad_norm=config.ppo.max_grad_norm,
        seed=config.seed,
        progress=config.training.progress_bar,
    )
    path = out_dir / "imitation.zip"
    model.save(path)
    from .checkpoint import save_safe_checkpoint

    save_safe_checkpoint(model, path, meta)  # imitation.safetensors: the code-free twin
    report = {
        **demo_info,
        **result,
        "checkpoint": str(path),
        "settings": {k: getattr(im, k) for k in im.__dataclass_fields__},
    }
    (out_dir / "imitation.json").write_text(json.dumps({**report, "meta": meta}, indent=2))
    _log(
        f"held-out accuracy {result['initial_val_accuracy'] or 0:.3f} -> {result['val_accuracy'] or 0:.3f} "
        f"(train {result['train_accuracy'] or 0:.3f}), value mse {result['initial_val_value_mse'] or 0:.4f} -> "
        f"{result['val_value_mse'] or 0:.4f} in {result['bc_seconds']:.0f} s; saved {path}"
    )
    return report
