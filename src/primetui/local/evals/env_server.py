"""One env server per ``[[eval.source]]``: serves its eval examples and scores answers in [0, 1].

Endpoints (127.0.0.1, JSON): ``GET /health``, ``GET /examples?n=N`` and ``POST /score``
``{"items": [{"index", "completion"}]}`` -> ``{"rewards": [...]}``.
"""

from __future__ import annotations

import argparse
import sys
import threading
from pathlib import Path
from typing import Any

from primetui.local.evals import reverse_text
from primetui.local.evals.common import announce_ready, env_log_name, serve_json, watch_parent
from primetui.local.trainer.config import parse_eval
from primetui.local.trainer.files import read_json
from primetui.local.trainer.logs import ConsoleLog

NUM_EVAL_EXAMPLES = 32  # the built-in reverse-text eval split


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m primetui.local.evals.env_server")
    parser.add_argument("--run-dir", required=True)
    parser.add_argument("--index", type=int, required=True)
    args = parser.parse_args(argv)
    watch_parent()
    run_dir = Path(args.run_dir)
    spec = read_json(run_dir / "config.json")
    source = parse_eval((spec.get("config") or {}).get("eval") or {}).sources[args.index]
    log = ConsoleLog(run_dir / "logs" / env_log_name(source.name))
    if source.taskset not in reverse_text.TASKSET_IDS:
        log.error(
            f"Taskset '{source.taskset}' is not available on the local platform (available: "
            f"{', '.join(reverse_text.TASKSET_IDS)}); change env.taskset.id of eval source '{source.name}'."
        )
        return 2
    texts = reverse_text.examples(NUM_EVAL_EXAMPLES)
    log.info(f"Loaded taskset {source.taskset}: {len(texts)} eval examples (reward: similarity to the reversed text)")

    def examples(q: dict[str, Any]) -> tuple[int, Any]:
        n = int(q.get("n", -1))
        chosen = texts if n < 0 else texts[:n]
        return 200, {
            "examples": [{"index": i, "prompt": [{"role": "user", "content": t}]} for i, t in enumerate(chosen)]
        }

    def score(body: dict[str, Any]) -> tuple[int, Any]:
        items = body["items"]
        rewards = [reverse_text.score(str(it["completion"]), texts[int(it["index"])]) for it in items]
        mean = sum(rewards) / len(rewards) if rewards else 0.0
        log.info(f"Scored {len(rewards)} rollouts: mean reward {mean:.4f}")
        return 200, {"rewards": rewards}

    server = serve_json(
        {
            ("GET", "/health"): lambda _: (200, {"status": "ok", "env": source.name}),
            ("GET", "/examples"): examples,
            ("POST", "/score"): score,
        },
        log.error,
    )
    port = server.server_address[1]
    log.info(f"Env server '{source.name}' listening on http://127.0.0.1:{port}")
    announce_ready(run_dir, f"env-{args.index}", port)
    threading.Event().wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
