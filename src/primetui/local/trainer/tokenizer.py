"""A byte-level tokenizer and a Qwen-style chat renderer with prime-rl's loss-mask rules.

Token ids 0..255 are raw UTF-8 bytes; four specials follow. The renderer writes each message as
``<|im_start|>role\\n content <|im_end|>\\n``. With the default ``[data.loss_mask]`` the trained
(sampled) tokens are the assistant content plus its closing ``<|im_end|>``, for every assistant
turn; role scaffolding is masked out. ``user``/``system``/``tool = true`` add body-only supervision.
"""

from __future__ import annotations

from typing import Any

import numpy as np

PAD = 256
IM_START = 257
IM_END = 258
EOS = 259
VOCAB_SIZE = 260
ROLES = ("system", "user", "assistant", "tool")


class DataFormatError(ValueError):
    """A row that is not an SFT example."""


def encode(text: str) -> np.ndarray:
    return np.frombuffer(text.encode("utf-8"), dtype=np.uint8).astype(np.int32)


def decode(ids: np.ndarray | list[int]) -> str:
    data = bytes(int(t) for t in ids if 0 <= int(t) < 256)
    return data.decode("utf-8", "replace")


def _content_text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # OpenAI content parts
        return "".join(str(p.get("text", "")) if isinstance(p, dict) else str(p) for p in content)
    return str(content)


def _as_messages(value: Any, default_role: str) -> list[dict[str, str]]:
    if value is None:
        return []
    if isinstance(value, str):
        return [{"role": default_role, "content": value}]
    if isinstance(value, dict):
        return [{"role": str(value.get("role") or default_role), "content": _content_text(value.get("content"))}]
    if isinstance(value, (list, tuple)) or hasattr(value, "tolist"):
        out: list[dict[str, str]] = []
        for item in list(value):
            out.extend(_as_messages(item, default_role))
        return out
    raise DataFormatError(f"unsupported message value of type {type(value).__name__}")


def row_to_messages(row: dict[str, Any]) -> list[dict[str, str]]:
    """prime-rl's row rules: ``messages`` wins when non-null, else ``prompt`` + ``completion``."""
    if row.get("messages") is not None:
        # A bare string inside messages is an assistant turn.
        return _as_messages(row["messages"], "assistant")
    if "prompt" in row and "completion" in row:
        return _as_messages(row["prompt"], "user") + _as_messages(row["completion"], "assistant")
    raise DataFormatError(
        "All examples in the dataset must have either a 'messages' column or both 'prompt' and "
        "'completion' columns for SFT"
    )


def render(messages: list[dict[str, str]], loss_mask: Any) -> tuple[np.ndarray, np.ndarray]:
    """Token ids and the per-token loss mask for one conversation."""
    ids: list[np.ndarray] = []
    mask: list[np.ndarray] = []
    for msg in messages:
        role = msg["role"]
        body = encode(msg["content"])
        head = np.concatenate([[IM_START], encode(role + "\n")]).astype(np.int32)
        if role == "assistant":
            trained = bool(loss_mask.assistant)
            ids += [head, body, np.array([IM_END, 10], dtype=np.int32)]
            mask += [np.zeros(len(head), bool), np.full(len(body), trained), np.array([trained, False])]
        else:
            trained = bool(getattr(loss_mask, role, False)) if role in ROLES else False
            ids += [head, body, np.array([IM_END, 10], dtype=np.int32)]
            mask += [np.zeros(len(head), bool), np.full(len(body), trained), np.zeros(2, bool)]
    if not ids:
        return np.zeros(0, np.int32), np.zeros(0, bool)
    return np.concatenate(ids).astype(np.int32), np.concatenate(mask)


def render_prompt(messages: list[dict[str, str]]) -> np.ndarray:
    """The prompt the inference server continues: the messages, then an open assistant turn."""

    class _NoLoss:
        system = user = assistant = tool = False

    ids, _ = render(messages, _NoLoss())
    return np.concatenate([ids, [IM_START], encode("assistant\n")]).astype(np.int32)
