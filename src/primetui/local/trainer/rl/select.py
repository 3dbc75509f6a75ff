"""Which trainer a run dir's config.json asks for: the RL trainer for an RL config, else the SFT trainer."""

from __future__ import annotations

from pathlib import Path

from primetui.local.trainer.rl import is_rl_config


def trainer_class(run_dir: Path) -> type:
    """The RL trainer for an RL config, else the SFT trainer (which also reports an unreadable config.json)."""
    import json

    from primetui.local.trainer.loop import Trainer

    try:
        config = json.loads((run_dir / "config.json").read_text(encoding="utf-8")).get("config")
    except (OSError, ValueError, AttributeError):
        return Trainer
    if is_rl_config(config):
        from primetui.local.trainer.rl.run import RLTrainer

        return RLTrainer
    return Trainer
