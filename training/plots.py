"""Learning-curve PNG from the CSV log (``progress.csv``) that ``farmgames train`` writes.

python -m farmgames.training.plots runs/ppo_2p_vs_random/progress.csv runs/ppo_2p_vs_random/learning_curve.png
"""

from __future__ import annotations

import csv
import math
import sys
from pathlib import Path

X_KEY = "time/total_timesteps"
PANELS = (
    ("rollout/win_rate", "win rate (last episodes)"),
    ("rollout/ep_rew_mean", "mean episode reward"),
    ("rollout/margin_mean", "VP margin vs best opponent"),
    ("train/entropy_loss", "entropy loss"),
)


def read_progress(csv_path: str | Path) -> dict[str, list[float]]:
    """Columns of an SB3 ``progress.csv`` as float lists (NaN where a row has no value)."""
    columns: dict[str, list[float]] = {}
    with open(csv_path, newline="") as fh:
        reader = csv.DictReader(fh)
        for row in reader:
            for key, value in row.items():
                if key is None:
                    continue
                try:
                    number = float(value) if value not in ("", None) else math.nan
                except ValueError:
                    number = math.nan
                columns.setdefault(key, []).append(number)
    return columns


def plot_learning_curve(csv_path: str | Path, png_path: str | Path, title: str | None = None) -> Path | None:
    """Write a PNG with one panel per logged metric of :data:`PANELS` against environment steps.
    Returns the path, or None when the log has no rows yet."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cols = read_progress(csv_path)
    if not cols or X_KEY not in cols or not cols[X_KEY]:
        return None
    x = cols[X_KEY]
    panels = [(k, label) for k, label in PANELS if k in cols and any(not math.isnan(v) for v in cols[k])]
    if not panels:
        return None
    fig, axes = plt.subplots(len(panels), 1, figsize=(7, 2.4 * len(panels)), sharex=True, squeeze=False)
    for ax, (key, label) in zip(axes[:, 0], panels):
        pts = [(a, b) for a, b in zip(x, cols[key]) if not (math.isnan(a) or math.isnan(b))]
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], lw=1.5)
        ax.set_ylabel(label, fontsize=8)
        ax.grid(alpha=0.3)
        if key == "rollout/win_rate":
            ax.set_ylim(-0.02, 1.02)
    axes[-1, 0].set_xlabel("environment steps (learner decisions)")
    fig.suptitle(title or str(Path(csv_path).parent.name))
    fig.tight_layout()
    png_path = Path(png_path)
    png_path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(png_path, dpi=100)
    plt.close(fig)
    return png_path


if __name__ == "__main__":  # pragma: no cover
    if len(sys.argv) != 3:
        print("usage: python -m farmgames.training.plots PROGRESS.csv OUT.png", file=sys.stderr)
        sys.exit(2)
    out = plot_learning_curve(sys.argv[1], sys.argv[2])
    print(out or "no data")
