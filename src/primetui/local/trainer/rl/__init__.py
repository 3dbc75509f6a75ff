"""The local RL run: prime-rl's reverse-text RL, for real, with a small numpy policy (see ``run``).

Files the run writes in its run dir, beyond the SFT protocol (``primetui.local.trainer``):

- ``logs/orchestrator.log``, ``logs/trainer.log``, ``logs/inference.log`` and one
  ``logs/env-server-<name>.log`` per source (train sources, then eval sources; a name reused by an
  eval source is ``env-server-<name>@1.log``), with prime-rl's own message texts;
- ``metrics.jsonl``: one orchestrator row per step under prime-rl's HEAD names
  (``train/agg/effective/agent/reward/mean`` ...), eval rows (``eval/<env>/...``) at their step;
- ``samples/step_<N:06d>.jsonl``: every rollout of sample steps (every 10th and the last), one
  hosted sample row per line with the JSON columns decoded, written whole then renamed into place;
- ``distributions.jsonl``: ``{"step", "rewards": [...], "advantages": [...]}`` every step.
"""

from __future__ import annotations

from typing import Any


STANDIN = "stand-in pointer policy over the prompt's characters (40 logits)"
"""What an RL run trains here instead of its model (``policy.NUM_PARAMS`` logits)."""


def is_rl_config(config: Any) -> bool:
    """The CLI's rule (``primetui.sft.kind``): a ``[data]`` table with neither ``[trainer]`` nor
    ``[orchestrator]`` is an SFT config; anything else is RL."""
    from primetui.sft.kind import config_kind

    return isinstance(config, dict) and config_kind(config) == "rl"
