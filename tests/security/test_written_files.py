"""What record and export write is made like any file the user writes — its mode follows the
umask — and a disk that fills up while they write ends in one line, with no file (nor a partial
or temporary one) left behind and a file that was there before untouched."""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from IPython.core.error import UsageError
from IPython.utils.capture import capture_output

import deepnb
from deepnb.core.errors import DeepnbError
from deepnb.session.run import Run
from deepnb.ship.exporting import export_thread
from tests.support.agents import scripted, unique

WRITE = {"name": "write_file", "args": {"file_path": "/a.md", "content": "a"}}


@pytest.fixture
def done(tmp_path: Path) -> tuple[Any, Run]:
    bench = deepnb.agent(unique("written"), scripted({"main": [{"tool_calls": [WRITE]}, "Done."]}))
    run = bench.start("write a", new_thread=True).wait(30)
    assert run.status == "done", run.error
    return bench, run


@pytest.fixture
def umask() -> Iterator[Any]:
    def set_umask(mask: int) -> None:
        os.umask(mask)

    before = os.umask(0o022)
    try:
        yield set_umask
    finally:
        os.umask(before)


@pytest.mark.parametrize("mask", [0o022, 0o077, 0o002], ids=lambda mask: f"umask-{mask:03o}")
def test_recordings_and_exports_follow_the_umask(
    done: tuple[Any, Run], tmp_path: Path, umask: Any, mask: int
) -> None:
    bench, run = done
    umask(mask)
    run.record(tmp_path / "run.yaml")
    exported = export_thread(bench, tmp_path / "t.ipynb")
    assert exported.replay is not None
    for path in (tmp_path / "run.yaml", exported.path, exported.replay):
        assert path.stat().st_mode & 0o777 == 0o666 & ~mask, path.name


class _FullFile:
    """A file whose every write finds the disk full."""

    def __init__(self, real: Any) -> None:
        self._real = real

    def write(self, data: Any) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def __enter__(self) -> _FullFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self._real.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


@pytest.fixture
def full_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Writes to files under ``tmp_path`` fail with ENOSPC, through ``os.write`` or a file object
    from ``os.fdopen`` alike; everything else writes as usual. The list it gives narrows that to
    files whose name holds one of its fragments (the disk fills up at the second file)."""
    raw_write, raw_fdopen = os.write, os.fdopen
    fragments: list[str] = []

    def ours(fd: int) -> bool:
        try:
            path = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            return False
        name = os.path.basename(path)
        return path.startswith(str(tmp_path)) and (not fragments or any(f in name for f in fragments))

    def write(fd: int, data: Any) -> int:
        if ours(fd):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return raw_write(fd, data)

    def fdopen(fd: int, *args: Any, **keys: Any) -> Any:
        handle = raw_fdopen(fd, *args, **keys)
        return _FullFile(handle) if ours(fd) else handle

    monkeypatch.setattr(os, "write", write)
    monkeypatch.setattr(os, "fdopen", fdopen)
    yield fragments


def _one_line(exc: BaseException) -> str:
    message = str(exc)
    assert "\n" not in message and "disk is full" in message and "Nothing was written" in message
    return message


def test_a_full_disk_ends_a_recording_in_one_line_leaving_nothing(
    done: tuple[Any, Run], tmp_path: Path, full_disk: list[str]
) -> None:
    _, run = done
    with pytest.raises(DeepnbError) as caught:
        run.record(tmp_path / "run.yaml")
    assert str(tmp_path / "run.yaml") in _one_line(caught.value)
    assert list(tmp_path.iterdir()) == []
    (tmp_path / "run.yaml").write_bytes(b"mine")  # the disk fills up under --force too
    with pytest.raises(DeepnbError) as caught:
        run.record(tmp_path / "run.yaml", force=True)
    _one_line(caught.value)
    assert [p.name for p in tmp_path.iterdir()] == ["run.yaml"]
    assert (tmp_path / "run.yaml").read_bytes() == b"mine"


@pytest.mark.parametrize("fills_at", ["t.replay.yaml", "t.ipynb"])
def test_a_full_disk_ends_an_export_in_one_line_leaving_nothing(
    done: tuple[Any, Run],
    tmp_path: Path,
    tmp_path_factory: pytest.TempPathFactory,
    full_disk: list[str],
    fills_at: str,
) -> None:
    bench, run = done
    run.record(tmp_path_factory.mktemp("kept") / "run.yaml")  # elsewhere: that disk has room
    full_disk.append(f".{fills_at}.")  # the export writes the recording, then the notebook
    with pytest.raises(DeepnbError) as caught:
        export_thread(bench, tmp_path / "t.ipynb")
    assert str(tmp_path / fills_at) in _one_line(caught.value)
    assert list(tmp_path.iterdir()) == []


def test_a_full_disk_ends_the_export_magic_in_one_line(ip: Any, tmp_path: Path, full_disk: list[str]) -> None:
    with capture_output():
        ip.run_cell("%%deepagent -m demo:quickstart -a full-disk --new\nWrite a brief about tide pools")
        result = ip.run_cell(f"%deepagent export '{tmp_path / 't.ipynb'}' -a full-disk")
    assert isinstance(result.error_in_exec, UsageError), result.error_in_exec
    _one_line(result.error_in_exec)
    assert list(tmp_path.iterdir()) == []
