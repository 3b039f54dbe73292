"""The served app's authentication: a request with an ``x-api-key`` header other than
``ACCEPTED_KEY`` is refused (401), so the tests can see deepnb report a rejected key. Requests
without a key pass (the async subagent tests send none)."""

from __future__ import annotations

from langgraph_sdk import Auth

ACCEPTED_KEY = "deepnb-test-key"

auth = Auth()


@auth.authenticate
async def authenticate(headers: dict[bytes, bytes]) -> str:
    key = headers.get(b"x-api-key")
    if key is not None and key != ACCEPTED_KEY.encode():
        raise Auth.exceptions.HTTPException(status_code=401, detail="That API key is not accepted here.")
    return "tester"
