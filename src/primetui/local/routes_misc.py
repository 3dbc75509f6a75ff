"""Small endpoints the official CLI touches on the way: ``/user/whoami`` (``prime config set-api-key``)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from primetui.api.models import WhoAmI, WhoAmIResponse
from primetui.local.runs_wire import dump
from primetui.local.state import LOCAL_USER_ID, LOCAL_USER_NAME

router = APIRouter()


@router.get("/user/whoami")
async def whoami() -> dict[str, Any]:
    """The one local user (the token holder)."""
    return dump(
        WhoAmIResponse(
            data=WhoAmI(id=LOCAL_USER_ID, name=LOCAL_USER_NAME, slug=LOCAL_USER_NAME, email="local@127.0.0.1")
        )
    )
