"""In a real kernel, a secret streamed 3 characters at a time reaches the front-end in no message:
every iopub message of the run (the view's opening, its live patches, its full syncs, the cell's
displays) is read for any 8-character or longer prefix of the secret and of a key-shaped token,
and the text around them arrives whole."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.kernel_session import KernelSession

pytestmark = pytest.mark.kernel

SECRET = "Zq7Wm2Lp9Xk4Rt8Vn3Kd6Str"
KEY = "sk-proj-Ab3dEf6hIj9kLm2nOp5q"
ANSWER = f"The token is {SECRET} and the key {KEY}, kept safe."

MODEL = textwrap.dedent(
    f"""
    from langchain_core.messages import AIMessageChunk
    from deepnb.models.scripted import ScriptedChatModel, parse_script

    class ThreeCharacters(ScriptedChatModel):
        def _chunks(self, message):
            for chunk in super()._chunks(message):
                if isinstance(chunk.content, str) and chunk.content:
                    for i in range(0, len(chunk.content), 3):
                        yield AIMessageChunk(content=chunk.content[i : i + 3])
                else:
                    yield chunk

    three = ThreeCharacters(script=parse_script({{"delay": 0.03, "agents": {{"main": [{ANSWER!r}]}}}}))
    """
)


@pytest.fixture(scope="module")
def kernel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KernelSession]:
    folder: Path = tmp_path_factory.mktemp("streamed")
    env = {"DEEPNB_TEST_API_KEY": SECRET, "DEEPNB_HOME": str(folder / "home")}
    session = KernelSession(cwd=str(folder), env=env)
    try:
        assert session.execute("%load_ext deepnb").ok
        yield session
    finally:
        session.close()


def test_no_message_of_a_streaming_run_holds_a_prefix_of_a_secret(kernel: KernelSession) -> None:
    assert kernel.execute(MODEL).ok
    before = len(kernel.iopub)
    views = len(kernel.run_views())
    execution = kernel.execute("%%deepagent -m three -a streamer --new -o run\nSay the token")
    assert execution.ok, execution.text()
    comm_id, state = kernel.newest_view(views)
    assert state["status"] == "done"
    assert sum(1 for cid, _ in kernel.patches if cid == comm_id) > 3  # it did stream, in patches
    for message in kernel.iopub[before:]:
        text = json.dumps(message["content"], ensure_ascii=False, default=str)
        for secret in (SECRET, KEY):
            for n in range(8, len(secret) + 1):
                assert secret[:n] not in text, f"{message['msg_type']} holds {secret[:n]!r}"
    (answer,) = [i for i in state["items"] if i["kind"] == "text"]
    assert answer["text"] == "The token is [redacted] and the key [redacted], kept safe."
