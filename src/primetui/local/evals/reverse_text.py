"""The reverse-text taskset: short generated paragraphs; the answer is the paragraph reversed.

Scored like the verifiers ``reverse-text`` environment: the similarity ratio (difflib's
``SequenceMatcher``, 2*matches/total length) between the model's answer and the reversed text, in [0, 1].
"""

from __future__ import annotations

import difflib
import random
import re

TASKSET_IDS = ("reverse-text", "primeintellect/reverse-text")

_SUBJECTS = ["The river", "A small village", "The old library", "Our team", "The northern forest",
             "An early train", "The harbour", "A quiet garden", "The mountain road", "The market square",
             "A young painter", "The city council", "The night sky", "A curious cat", "The winter storm"]
_VERBS = ["carries", "remembers", "hides", "welcomes", "changes", "follows", "protects", "reflects",
          "gathers", "reveals", "shapes", "crosses", "lights", "feeds", "shelters"]
_OBJECTS = ["the morning light", "a thousand stories", "travellers from far away", "the sound of bells",
            "every passing season", "the scent of rain", "quiet old songs", "the last warm days",
            "a map of forgotten paths", "boats and fishermen", "the shadows of clouds", "its own history"]
_ENDINGS = ["before the sun goes down.", "while the town sleeps.", "as it has for centuries.",
            "without asking for anything.", "in the middle of the valley.", "long after the rain stops.",
            "each spring.", "beyond the hills.", "with patient care.", "under a pale moon."]


def paragraph(rng: random.Random, sentences: int) -> str:
    return " ".join(
        f"{rng.choice(_SUBJECTS)} {rng.choice(_VERBS)} {rng.choice(_OBJECTS)} {rng.choice(_ENDINGS)}"
        for _ in range(sentences)
    )


def examples(count: int, seed: int = 1234, sentences: tuple[int, int] = (1, 2)) -> list[str]:
    """``count`` deterministic paragraphs (the eval split uses a seed the demo data does not)."""
    rng = random.Random(seed)
    return [paragraph(rng, rng.randint(*sentences)) for _ in range(count)]


_TAG = re.compile(r"<reversed_text>(.*?)(?:</reversed_text>|$)", re.S)


def score(completion: str, text: str) -> float:
    """Similarity of the answer (inside <reversed_text> tags if present) to ``text`` reversed."""
    m = _TAG.search(completion)
    answer = (m.group(1) if m else completion).strip()
    return difflib.SequenceMatcher(None, answer, text[::-1]).ratio()
