"""The reverse-text taskset: generated paragraphs; the answer is the paragraph reversed.

Scored like the verifiers ``reverse-text`` environment: the similarity ratio (difflib's
``SequenceMatcher``, 2*matches/total length) between the model's answer and the reversed text, in [0, 1].
"""

from __future__ import annotations

import difflib
import random
import re

TASKSET_IDS = ("reverse-text", "primeintellect/reverse-text")

# The eval split is drawn from the same generator as the demo dataset (``--demo``), with another
# seed, so a model trained on the demo data is evaluated on held-out paragraphs of the same kind.
EVAL_SEED = 90210


def examples(count: int, seed: int = EVAL_SEED) -> list[str]:
    """``count`` deterministic held-out paragraphs."""
    from primetui.local.demo import paragraph

    rng = random.Random(seed)
    return [paragraph(rng) for _ in range(count)]


_TAG = re.compile(r"<reversed_text>(.*?)(?:</reversed_text>|$)", re.S)


def score(completion: str, text: str) -> float:
    """Similarity of the answer (inside <reversed_text> tags if present) to ``text`` reversed."""
    m = _TAG.search(completion)
    answer = (m.group(1) if m else completion).strip()
    return difflib.SequenceMatcher(None, answer, text[::-1]).ratio()
