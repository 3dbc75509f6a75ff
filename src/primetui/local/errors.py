"""Errors as the hosted platform gives them: ``{"detail": str}`` or, for 422, ``{"detail": [{loc, msg, type}]}``."""

from __future__ import annotations

from collections.abc import Sequence

from fastapi import HTTPException


def fail(status: int, detail: str) -> HTTPException:
    """An HTTP error whose ``detail`` is one sentence saying what happened and what to do next."""
    return HTTPException(status_code=status, detail=detail)


def invalid(items: Sequence[tuple[Sequence[str | int], str, str]]) -> HTTPException:
    """A 422 in FastAPI's list form; each item is (loc, msg, type) and loc starts at ``body``."""
    return HTTPException(
        status_code=422,
        detail=[{"loc": list(loc), "msg": msg, "type": kind} for loc, msg, kind in items],
    )
