"""The inference server: generations from the latest broadcast weights of the stand-in model.

Endpoints (127.0.0.1, JSON): ``GET /health``, ``GET /v1/models``, ``POST /update_weights``
``{"path", "step"}`` (the orchestrator calls it for each broadcast), ``POST /v1/generate``
``{"prompts": [[messages]...], "max_tokens", "temperature", "seed"}`` (batched), and the
OpenAI-shaped ``POST /v1/chat/completions`` for a single conversation.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

from http.server import ThreadingHTTPServer  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

from primetui.local.evals.common import announce_ready, serve_json, watch_parent  # noqa: E402
from primetui.local.evals.infer_nodes import InferNodes  # noqa: E402
from primetui.local.trainer.files import read_json  # noqa: E402
from primetui.local.trainer.logs import ConsoleLog  # noqa: E402
from primetui.local.trainer.model import ModelShape, generate, init_params  # noqa: E402
from primetui.local.trainer.tokenizer import IM_END, decode, render_prompt  # noqa: E402


class InferenceServer:
    def __init__(self, run_dir: Path) -> None:
        self.run_dir = run_dir
        self.log = ConsoleLog(run_dir / "logs" / "inference.log")
        spec = read_json(run_dir / "config.json")
        model = spec.get("model") or {}
        self.model_name = str(model.get("name") or "stand-in")
        standin = model.get("standin") or {}
        self.shape = ModelShape.from_standin(standin)
        self.params = init_params(self.shape, seed=int(standin.get("seed", 0)))
        self.step: int | None = None
        self.lock = threading.Lock()
        self.requests = 0
        self.nodes = InferNodes.open(run_dir / "logs", self.log, spec.get("config") or {})

    def update_weights(self, body: dict[str, Any]) -> tuple[int, Any]:
        path = Path(body["path"])
        step = int(body["step"])
        if not (path / "STABLE").exists():
            return 409, {"detail": f"broadcast {path} has no STABLE marker yet"}
        t0 = time.perf_counter()
        with np.load(path / "model.npz") as z:
            params = {k: z[k] for k in z.files}
        with self.lock:
            self.params = params
            self.step = step
        self.nodes.each(f"Loaded weights from broadcast step {step} ({path.name}) in {time.perf_counter() - t0:.2f}s")
        return 200, {"step": step}

    def _generate(
        self, conversations: list[list[dict[str, str]]], max_tokens: int, temperature: float, seed: int
    ) -> list[str]:
        prompts = [render_prompt(conv) for conv in conversations]
        with self.lock:
            params = self.params
        outs = generate(
            params,
            prompts,
            context=self.shape.context,
            max_new_tokens=max_tokens,
            stop_token=IM_END,
            temperature=temperature,
            seed=seed,
        )
        return [decode(o) for o in outs]

    def batch(self, body: dict[str, Any]) -> tuple[int, Any]:
        convs = body["prompts"]
        node = self.nodes.route(len(convs))
        max_tokens = min(4096, int(body.get("max_tokens") or 256))
        t0 = time.perf_counter()
        texts = self._generate(convs, max_tokens, float(body.get("temperature") or 0.0), int(body.get("seed") or 0))
        self.requests += 1
        n_tok = sum(len(t.encode()) for t in texts)
        self.nodes.logs[node].info(
            f"Generated {len(texts)} completions ({n_tok:,} tokens) with weights of step "
            f"{self.step if self.step is not None else 'init'} in {time.perf_counter() - t0:.2f}s"
        )
        return 200, {"step": self.step, "completions": texts}

    def chat(self, body: dict[str, Any]) -> tuple[int, Any]:
        text = self._generate(
            [body["messages"]],
            min(4096, int(body.get("max_tokens") or 256)),
            float(body.get("temperature") or 0.0),
            int(body.get("seed") or 0),
        )[0]
        return 200, {
            "object": "chat.completion",
            "model": self.model_name,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        }

    def serve(self) -> ThreadingHTTPServer:
        routes = {
            ("GET", "/health"): lambda _: (200, {"status": "ok", "step": self.step}),
            ("GET", "/v1/models"): lambda _: (
                200,
                {"object": "list", "data": [{"id": self.model_name, "object": "model"}]},
            ),
            ("POST", "/update_weights"): self.update_weights,
            ("POST", "/v1/generate"): self.batch,
            ("POST", "/v1/chat/completions"): self.chat,
        }
        server = serve_json(routes, self.log.error)
        port = server.server_address[1]
        self.log.info(f"Starting inference server for {self.model_name} (stand-in: {self.shape.describe()})")
        self.log.info("Serving the stand-in's initial weights until the first broadcast arrives")
        self.nodes.announce(self.model_name)
        self.log.info(f"Inference server listening on http://127.0.0.1:{port}/v1")
        announce_ready(self.run_dir, "inference", port)
        return server


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m primetui.local.evals.inference")
    parser.add_argument("--run-dir", required=True)
    args = parser.parse_args(argv)
    watch_parent()
    srv = InferenceServer(Path(args.run_dir))
    srv.serve()
    threading.Event().wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
