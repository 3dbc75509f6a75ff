"""The reverse-text task as verifiers defines it: the system prompt, the answer tag and the reward.

Quoted from PrimeIntellect-ai/verifiers at a60a606e (prime-rl's pin, 2026-08-21),
``environments/reverse_text/reverse_text/taskset.py``::

    SYSTEM = (
        "Reverse the text character-by-character. Put your answer in <reversed_text> tags."
    )
    _TAG = re.compile(r"<reversed_text>(.*?)</reversed_text>", re.DOTALL)
    ...
    @vf.reward(weight=1.0)
    async def lcs(self, trace: vf.Trace) -> float:
        completion = trace.last_reply
        match = _TAG.search(completion or "")
        response = match.group(1).strip() if match else ""
        return SequenceMatcher(None, response, self.data.answer).ratio()

and ``answer = row["prompt"][::-1]``. A completion without the tags, or one cut before its
closing tag (``max_completion_tokens``), has no match and scores 0.0. ``ratio()`` is
``2*M/(len(a)+len(b))`` over difflib's matching blocks (the env calls it "LCS ratio").
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

SYSTEM = "Reverse the text character-by-character. Put your answer in <reversed_text> tags."
_TAG = re.compile(r"<reversed_text>(.*?)</reversed_text>", re.DOTALL)
OPEN_TAG = "<reversed_text>\n"
CLOSE_TAG = "\n</reversed_text>"
REWARD_NAME = "lcs"
REWARD_WEIGHT = 1.0


def answer_for(prompt: str) -> str:
    return prompt[::-1]


def lcs(completion: str | None, answer: str) -> float:
    """The ``lcs`` reward of one completion (the assistant's last reply) against the answer."""
    match = _TAG.search(completion or "")
    response = match.group(1).strip() if match else ""
    return SequenceMatcher(None, response, answer).ratio()
