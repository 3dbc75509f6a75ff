"""The `[renderer]` union and the exact model -> renderer map, mirrored from the renderers package.

Version: PyPI ``renderers 0.1.12`` (31 names), the newest release and the one the hosted platform
runs (the seed's ``glm-5.3`` exists only there; prime-rl's pinned submodule 2846a3dc has 24 names).
Source: prime-rl-sft-schema.md §4.
"""

from __future__ import annotations

RENDERERS_VERSION = "0.1.12"

# name -> {field: (type, default, description)}; every variant also has thinking_retention.
_T = "Literal['tool_cycle', 'all'] | None"
RENDERER_FIELDS: dict[str, dict[str, tuple[str, str, str]]] = {
    "auto": {},
    "default": {
        "tool_parser": ("str | None", "None", "Tool-call parser."),
        "reasoning_parser": ("str | None", "None", "Reasoning parser."),
    },
    "qwen3": {"enable_thinking": ("bool", "True", "Render thinking blocks.")},
    "prime-qwen3": {},
    "qwen3-vl": {
        "add_vision_id": ("bool", "False", "Number images and videos."),
        "image_cache_max": ("int", "256", "Images kept in the render cache."),
    },
    "qwen3.5": {
        "enable_thinking": ("bool | None", "None", "Render thinking blocks."),
        "add_vision_id": ("bool", "False", "Number images and videos."),
        "image_cache_max": ("int", "256", "Images kept in the render cache."),
    },
    "qwen3.6": {
        "enable_thinking": ("bool | None", "None", "Render thinking blocks."),
        "add_vision_id": ("bool", "False", "Number images and videos."),
        "preserve_thinking": ("bool", "False", "Keep earlier turns' thinking."),
        "image_cache_max": ("int", "256", "Images kept in the render cache."),
    },
    "qwen3.8": {
        "enable_thinking": ("bool | None", "None", "Render thinking blocks."),
        "add_vision_id": ("bool", "False", "Number images and videos."),
        "preserve_thinking": ("bool", "True", "Keep earlier turns' thinking."),
        "reasoning_effort": ("Literal['xhigh', 'medium', 'low']", "'xhigh'", "Reasoning effort."),
        "image_cache_max": ("int", "256", "Images kept in the render cache."),
    },
    "gemma4": {
        "enable_thinking": ("bool", "False", "Render thinking blocks."),
        "preserve_thinking": ("bool", "False", "Keep earlier turns' thinking."),
        "image_cache_max": ("int", "256", "Images kept in the render cache."),
    },
    "glm-5": {
        "enable_thinking": ("bool", "True", "Render thinking blocks."),
        "clear_thinking": ("bool", "True", "Drop earlier turns' thinking."),
    },
    "glm-5.1": {
        "enable_thinking": ("bool", "True", "Render thinking blocks."),
        "clear_thinking": ("bool", "True", "Drop earlier turns' thinking."),
    },
    "glm-5.3": {
        "clear_thinking": ("bool", "False", "Drop earlier turns' thinking."),
        "reasoning_effort": ("Literal['low', 'high', 'max']", "'max'", "Reasoning effort."),
    },
    "glm-4.5": {"enable_thinking": ("bool", "True", "Render thinking blocks.")},
    "gpt-oss": {
        "reasoning_effort": ("Literal['low', 'medium', 'high']", "'medium'", "Reasoning effort."),
        "conversation_start_date": ("str | None", "None", "Date shown in the system header."),
        "use_system_prompt": ("bool", "True", "Render the system prompt."),
        "knowledge_cutoff": ("str | None", "None", "Knowledge cutoff shown in the system header."),
        "model_identity": ("str | None", "None", "Model identity line."),
        "auto_drop_analysis": ("bool", "True", "Drop earlier analysis channels."),
    },
    "hy3": {
        "reasoning_effort": ("Literal['no_think', 'low', 'high']", "'no_think'", "Reasoning effort."),
        "preserved_thinking": ("bool | None", "None", "Keep earlier turns' thinking."),
        "is_training": ("bool", "False", "Training-mode rendering."),
        "raw_last_assistant": ("bool", "False", "Render the last assistant turn raw."),
        "fallback_strategy": ("Literal['reasoning_toolcall_retry'] | None", "None", "Fallback strategy."),
    },
    "inkling": {
        "reasoning_effort": ("str | float", "0.9", "Reasoning effort."),
        "image_cache_max": ("int", "256", "Images kept in the render cache."),
        "audio_cache_max": ("int", "256", "Audio clips kept in the render cache."),
    },
    "kimi-k2": {"enable_thinking": ("bool", "True", "Render thinking blocks.")},
    "kimi-k2.5": {
        "thinking": ("bool", "True", "Render thinking blocks."),
        "image_cache_max": ("int", "256", "Images kept in the render cache."),
    },
    "laguna-xs.2": {
        "enable_thinking": ("bool", "False", "Render thinking blocks."),
        "render_assistant_messages_raw": ("bool", "False", "Render assistant messages raw."),
    },
    "laguna-m.1": {
        "enable_thinking": ("bool", "False", "Render thinking blocks."),
        "render_assistant_messages_raw": ("bool", "False", "Render assistant messages raw."),
    },
    "laguna-xs-2.1": {"enable_thinking": ("bool", "False", "Render thinking blocks.")},
    "laguna-s-2.1": {
        "enable_thinking": ("bool", "True", "Render thinking blocks."),
        "preserve_thinking": ("bool", "False", "Keep earlier turns' thinking."),
    },
    "llama-3": {
        "date_string": ("str", "'26 Jul 2024'", "Date in the system header."),
        "tools_in_user_message": ("bool", "True", "Put tool definitions in the user message."),
    },
    "minimax-m2": {
        "model_identity": (
            "str",
            "'You are a helpful assistant. Your name is MiniMax-M2.5 and is built by MiniMax.'",
            "Model identity line.",
        )
    },
    "nemotron-3": {
        "enable_thinking": ("bool", "True", "Render thinking blocks."),
        "truncate_history_thinking": ("bool", "True", "Drop earlier turns' thinking."),
        "low_effort": ("bool", "False", "Low-effort reasoning."),
    },
    "nemotron-3-ultra": {
        "enable_thinking": ("bool", "True", "Render thinking blocks."),
        "truncate_history_thinking": ("bool", "True", "Drop earlier turns' thinking."),
        "medium_effort": ("bool", "False", "Medium-effort reasoning."),
    },
    "nemotron-3.5": {
        "enable_thinking": ("bool", "True", "Render thinking blocks."),
        "truncate_history_thinking": ("bool", "True", "Drop earlier turns' thinking."),
    },
    "deepseek-v3": {},
    "deepseek-r1": {},
    "deepseek-v4": {
        "enable_thinking": ("bool", "False", "Render thinking blocks."),
        "drop_thinking": ("bool", "True", "Drop earlier turns' thinking."),
        "reasoning_effort": ("Literal['low', 'high', 'max']", "'low'", "Reasoning effort."),
    },
    "custom": {"import_path": ("str", "REQUIRED", "Import path of the renderer class.")},
}
RENDERER_EXTRA_ALLOW = frozenset({"default", "custom"})

_Q3 = [
    "0.6B",
    "1.7B",
    "4B",
    "4B-Instruct-2507",
    "4B-Thinking-2507",
    "8B",
    "14B",
    "32B",
    "30B-A3B",
    "30B-A3B-Instruct-2507",
    "30B-A3B-Thinking-2507",
    "235B-A22B",
]
_FAMILIES: dict[str, list[str]] = {
    "qwen3": [f"Qwen/Qwen3-{s}" for s in _Q3],
    "prime-qwen3": ["PrimeIntellect/Qwen3-0.6B", "PrimeIntellect/Qwen3-1.7B"],
    "qwen3.5": [f"Qwen/Qwen3.5-{s}" for s in ["0.8B", "2B", "4B", "9B", "35B-A3B", "122B-A10B", "397B-A17B"]],
    "qwen3.6": ["Qwen/Qwen3.6-35B-A3B"],
    "qwen3.8": ["Qwen/Qwen3.8-27B", "Qwen/Qwen3.8-Flash-Next"],
    "qwen3-vl": [f"Qwen/Qwen3-VL-{s}" for s in ["4B-Instruct", "8B-Instruct", "30B-A3B-Instruct"]],
    "gemma4": [f"google/gemma-4-{s}" for s in ["E2B-it", "E4B-it", "26B-A4B-it", "31B-it"]],
    "glm-5": ["zai-org/GLM-5", "zai-org/GLM-5-FP8", "zai-org/GLM-4.7-Flash"],
    "glm-5.1": ["zai-org/GLM-5.1"],
    "glm-5.3": ["zai-org/GLM-5.3", "zai-org/GLM-5.3-BF16"],
    "glm-4.5": ["THUDM/GLM-4.5-Air", "zai-org/GLM-4.5-Air"],
    "minimax-m2": ["MiniMaxAI/MiniMax-M2", "MiniMaxAI/MiniMax-M2.5"],
    "deepseek-v3": ["deepseek-ai/DeepSeek-V3", "deepseek-ai/DeepSeek-V3-Base"],
    "deepseek-r1": ["deepseek-ai/DeepSeek-R1", "deepseek-ai/DeepSeek-R1-0528"],
    "deepseek-v4": ["deepseek-ai/DeepSeek-V4-Flash-0731"],
    "kimi-k2": ["moonshotai/Kimi-K2-Instruct"],
    "kimi-k2.5": ["moonshotai/Kimi-K2.5", "moonshotai/Kimi-K2.6"],
    "nemotron-3": ["nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", "nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-BF16"],
    "nemotron-3-ultra": [
        "nvidia/NVIDIA-Nemotron-3-Ultra-550B-A55B-BF16",
        "nvidia/NVIDIA-Nemotron-3-Ultra-550B-A55B-FP8",
    ],
    "nemotron-3.5": [
        "nvidia/NVIDIA-Nemotron-3.5-Lightning-30B-A3B-BF16",
        "nvidia/NVIDIA-Nemotron-3.5-Super-EA-09112026",
    ],
    "llama-3": ["meta-llama/Llama-3.2-1B-Instruct", "meta-llama/Llama-3.2-3B-Instruct"],
    "laguna-xs.2": ["poolside/Laguna-XS.2"],
    "laguna-m.1": ["poolside/Laguna-M.1"],
    "laguna-xs-2.1": ["poolside/Laguna-XS-2.1"],
    "laguna-s-2.1": ["poolside/Laguna-S-2.1"],
    "gpt-oss": ["openai/gpt-oss-20b", "openai/gpt-oss-120b"],
    "inkling": ["thinkingmachines/Inkling", "thinkingmachines/Inkling-Small"],
    "hy3": ["tencent/Hy3", "tencent/Hy3-FP8"],
}
MODEL_RENDERER_MAP: dict[str, str] = {m: r for r, ms in _FAMILIES.items() for m in ms}

# Prefix guesses for fine-tunes (longest first); unverified, so only ever a hint or a warning.
_PREFIX_GUESSES: list[tuple[str, str]] = [
    ("primeintellect/qwen3-", "prime-qwen3"),
    ("qwen/qwen3-vl-", "qwen3-vl"),
    ("qwen/qwen3.5-", "qwen3.5"),
    ("qwen/qwen3.6-", "qwen3.6"),
    ("qwen/qwen3.8-", "qwen3.8"),
    ("qwen/qwen3-", "qwen3"),
    ("zai-org/glm-5.3", "glm-5.3"),
    ("zai-org/glm-5.1", "glm-5.1"),
    ("zai-org/glm-5", "glm-5"),
    ("zai-org/glm-4.5", "glm-4.5"),
    ("thudm/glm-4.5", "glm-4.5"),
    ("deepseek-ai/deepseek-v4", "deepseek-v4"),
    ("deepseek-ai/deepseek-v3", "deepseek-v3"),
    ("deepseek-ai/deepseek-r1-distill", ""),
    ("deepseek-ai/deepseek-r1", "deepseek-r1"),
    ("moonshotai/kimi-k2.", "kimi-k2.5"),
    ("moonshotai/kimi-k2", "kimi-k2"),
    ("minimaxai/minimax-m2", "minimax-m2"),
    ("meta-llama/llama-3", "llama-3"),
    ("openai/gpt-oss", "gpt-oss"),
    ("google/gemma-4", "gemma4"),
    ("tencent/hy3", "hy3"),
    ("thinkingmachines/inkling", "inkling"),
    ("nvidia/nvidia-nemotron-3.5", "nemotron-3.5"),
    ("nvidia/nvidia-nemotron-3-ultra", "nemotron-3-ultra"),
    ("nvidia/nvidia-nemotron-3", "nemotron-3"),
]


def renderer_family(model_name: str) -> tuple[str | None, bool]:
    """The renderer for a model id and whether it is certain (exact map hit) or a prefix guess."""
    exact = MODEL_RENDERER_MAP.get(model_name)
    if exact:
        return exact, True
    low = model_name.lower()
    for prefix, name in _PREFIX_GUESSES:
        if low.startswith(prefix):
            return (name or None), False
    return None, False
