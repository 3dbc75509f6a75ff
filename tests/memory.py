"""Checks that closed things are released: weak references after a collection, and what holds
the ones that are not (one chain of referrers, for a failed wait's message)."""

from __future__ import annotations

import gc
import inspect
import types
import weakref
from typing import TypeVar

from tests.gc_settle import thaw

T = TypeVar("T")


def live(kind: type[T]) -> list[T]:
    """Every object of ``kind`` alive after a collection (frozen ones too: tests/gc_settle.py)."""
    thaw()
    gc.collect()
    return [o for o in gc.get_objects() if isinstance(o, kind)]


def released(refs: list[weakref.ref]) -> bool:
    """Every object behind ``refs`` is gone after a collection (of frozen cycles too)."""
    thaw()
    gc.collect()
    return all(ref() is None for ref in refs)


def holders(obj: object, depth: int = 8) -> str:
    """What keeps ``obj`` alive: one chain of referrers, from ``obj`` out to a module, a class or
    a frame (for the message of a failed wait; our own lists and frames are skipped)."""
    thaw()  # a frozen referrer is not seen by gc.get_referrers
    gc.collect()
    mine = {id(inspect.currentframe())}
    chain: list[str] = []
    seen = {id(obj)}
    current = obj
    for _ in range(depth):
        found = gc.get_referrers(current)
        mine.add(id(found))
        referrers = [
            r
            for r in found
            if id(r) not in seen
            and id(r) not in mine
            and not (isinstance(r, list) and r and isinstance(r[0], weakref.ref))
            and not (isinstance(r, types.FrameType) and r.f_code.co_name in ("holders", "report_alive"))
        ]
        mine.add(id(referrers))
        del found
        if not referrers:
            break
        current = referrers[0]
        seen.add(id(current))
        label = type(current).__qualname__
        if isinstance(current, dict):
            keys = [k for k, v in current.items() if v is obj or id(v) in seen][:1]
            label += f" key {keys[0]!r}" if keys else ""
        elif isinstance(current, types.ModuleType):
            chain.append(f"module {current.__name__}")
            break
        elif isinstance(current, types.FrameType):
            label += f" {current.f_code.co_qualname} {current.f_code.co_filename}:{current.f_lineno}"
            chain.append(label)
            break
        chain.append(label)
        obj = current
    return " <- ".join(chain) or "nothing found"


def report_alive(refs: list[weakref.ref]) -> str:
    """What holds each object behind ``refs`` that is still alive ("" when none is)."""
    said = []
    for ref in refs:
        if (held := ref()) is not None:
            said.append(f"{type(held).__name__}: {holders(held)}")
        del held
    return "; ".join(said)
