"""Log windows: what a new R7 window adds to the previous one, and when continuity is proved."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING


if TYPE_CHECKING:  # the wire models (pydantic) load with the client, not with the followers
    pass


MIN_PROOF = 3
"""Overlapping lines needed to trust that a full log window continues the previous one."""


def _overlap(last: Sequence[int], cur: Sequence[int]) -> int:
    """Largest k with last[-k:] == cur[:k] (KMP prefix function over cur + sentinel + last)."""
    if not last or not cur:
        return 0
    seq = list(cur) + [-1] + list(last[-len(cur) :] if len(last) > len(cur) else last)
    return _prefix_function(seq)[-1]


def _prefix_function(seq: Sequence[int]) -> list[int]:
    """KMP prefix function: pi[i] = length of the longest proper prefix of seq[:i+1] that is also its suffix."""
    pi = [0] * len(seq)
    for i in range(1, len(seq)):
        k = pi[i - 1]
        while k and seq[i] != seq[k]:
            k = pi[k - 1]
        if seq[i] == seq[k]:
            k += 1
        pi[i] = k
    return pi


def _suffix_inside(last: Sequence[int], cur: Sequence[int]) -> tuple[int, int]:
    """Longest suffix of `last` found anywhere in `cur`: (its length, where it ends in cur).

    Among equally long matches the earliest in `cur` wins (most lines count as new, as the
    CLI's rule prefers). KMP over the reversed sequences.
    """
    pattern = list(reversed(last[-len(cur) :] if len(last) > len(cur) else last))
    text = list(reversed(cur))
    pi = _prefix_function(pattern)
    best, best_end, k = 0, 0, 0
    for j, item in enumerate(text):
        while k and (k == len(pattern) or item != pattern[k]):
            k = pi[k - 1]
        if item == pattern[k]:
            k += 1
        if k and k >= best:
            # the match covers text[j-k+1 .. j], i.e. cur[len(cur)-1-j .. len(cur)-1-(j-k+1)]
            best, best_end = k, len(cur) - (j - k + 1)
    return best, best_end


def _contains(haystack: Sequence[int], needle: Sequence[int]) -> bool:
    """True when needle occurs contiguously in haystack (KMP)."""
    if not needle:
        return True
    if len(needle) > len(haystack):
        return False
    pi = _prefix_function(needle)
    k = 0
    for item in haystack:
        while k and item != needle[k]:
            k = pi[k - 1]
        if item == needle[k]:
            k += 1
            if k == len(needle):
                return True
    return False


@dataclass
class WindowDiff:
    """What a new log window adds to the previous one."""

    new: list[str] = field(default_factory=list)
    """Lines not seen before, oldest first."""
    gap: str | None = None
    """None when continuity is proved, else `overflow`, `uncertain` or `restart`."""
    overlap: int = 0
    """How many lines the windows share."""
    stale: bool = False
    """The window holds only lines already seen (an older or lagging snapshot)."""


def diff_windows(last: Sequence[str], cur: Sequence[str], *, full: bool, grown: bool = False) -> WindowDiff:
    """Compare two consecutive log windows (each: the tail of one growing log).

    `full` says the window may have been cut at the top (it is as long as the platform serves).
    `grown` says more lines were asked for than last time, so this window may start earlier.
    The rule is the CLI's suffix/prefix overlap, made safe: a window wholly inside the previous
    one adds nothing (no duplicates), and when no overlap proves continuity — none at all, or
    fewer than MIN_PROOF lines in a full window — a gap is reported instead of silently
    dropping or repeating lines.
    """
    if not cur:
        return WindowDiff()
    if not last:
        return WindowDiff(new=list(cur))
    if len(cur) == len(last) and list(cur) == list(last):
        return WindowDiff(overlap=len(cur))
    ids: dict[str, int] = {}
    a = [ids.setdefault(line, len(ids)) for line in last]
    b = [ids.setdefault(line, len(ids)) for line in cur]
    k = _overlap(a, b)
    if k == len(cur):
        return WindowDiff(overlap=k)
    weak = full and k < MIN_PROOF and k < len(last)
    if k > 0 and not weak:
        return WindowDiff(new=list(cur[k:]), overlap=k)
    if grown and len(cur) > len(last):
        # A longer window than last time (the follower asked for more lines) starts EARLIER
        # in the log, so the previous window's end sits inside it, not at its start. Only a
        # match of MIN_PROOF lines is trusted as the anchor.
        k2, end = _suffix_inside(a, b)
        if k2 > k and k2 >= MIN_PROOF:
            return WindowDiff(new=list(cur[end:]), overlap=k2)
    if k > 0:
        return WindowDiff(new=list(cur[k:]), gap="uncertain", overlap=k)
    # No overlap, but every line sits inside the previous window: an older snapshot (a lagging
    # replica) or a window that shrank. Only a tiny full window is too short to tell that from
    # a run of new lines that repeat older ones; that case is reported as a gap instead.
    if _contains(a, b) and (not full or len(cur) >= MIN_PROOF):
        return WindowDiff(stale=True, overlap=len(cur))
    return WindowDiff(new=list(cur), gap="overflow" if full else "restart")
