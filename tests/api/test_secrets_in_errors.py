"""Issue 42 finding 6: a header's value never appears in an error's sentence.

Against the real local platform over HTTP: a key holding a line break (a header injection, if it
were sent) or a character that is not ASCII is refused before anything is sent, with a sentence
that names the setting and quotes nothing of the key; and a header that h11 refuses on the wire
is described without its value.
"""

from __future__ import annotations

import pytest

from primetui.api import errors as e
from primetui.api.client import PrimeClient
from primetui.viewmodel.errors import describe

KEY_PART = "pit_header_secret_8c1f"


@pytest.mark.parametrize(
    "key,why",
    [(f"{KEY_PART}\nX-Evil: 1", "line break"), (f"{KEY_PART}é", "not ASCII"), (f"{KEY_PART}\x00", "control character")],
)
async def test_a_key_that_cannot_be_a_header_is_named_not_printed(local_platform, key, why):
    async with PrimeClient(local_platform.base_url, key) as client:
        with pytest.raises(e.PrimeAPIError) as info:
            await client.list_runs()
    text = describe(info.value)
    assert KEY_PART not in text and "X-Evil" not in text and "Cannot reach" not in text
    assert f"The API key holds a {why}" in text or f"holds a character that is {why}" in text
    assert "PRIME_API_KEY" in text and "no request was sent" in text
    from primetui.viewmodel.errors import bad_setting

    assert isinstance(info.value, e.BadSettingError) and bad_setting(info.value) == "API key"


async def test_a_header_refused_on_the_wire_is_described_without_its_value(local_platform):
    async with PrimeClient(local_platform.base_url, local_platform.token) as client:
        client._http.headers["X-Trace"] = f"{KEY_PART}\nX-Evil: 1"  # what no setting check could foresee
        with pytest.raises(e.UnreachableError) as info:
            await client.list_runs()
    text = str(info.value)
    assert "a request header is not valid (its value is not shown)" in text
    assert KEY_PART not in text and "X-Evil" not in text and local_platform.token not in text
