"""``deepnb.engine.files.watch``: writes from code reach the open views of that thread, and only those."""

from __future__ import annotations

import gc
from collections.abc import Sequence

from deepnb.engine.files import watch


class Listener:
    def __init__(self) -> None:
        self.heard: list[list[str]] = []

    def changed(self, paths: Sequence[str]) -> None:
        self.heard.append(list(paths))


def test_listeners_of_a_thread_hear_its_changes_and_no_others() -> None:
    a, b, other = Listener(), Listener(), Listener()
    stops = [
        watch.listen("agent", "t1", a.changed),
        watch.listen("agent", "t1", b.changed),
        watch.listen("agent", "t2", other.changed),
    ]
    watch.announce("agent", "t1", ["/x.md"])
    watch.announce("elsewhere", "t1", ["/y.md"])
    assert a.heard == b.heard == [["/x.md"]]
    assert other.heard == []
    for stop in stops:
        stop()
    watch.announce("agent", "t1", ["/z.md"])
    assert a.heard == [["/x.md"]]


def test_a_listener_that_is_gone_is_dropped_and_a_failing_one_is_contained() -> None:
    class Broken(Listener):
        def changed(self, paths: Sequence[str]) -> None:
            raise RuntimeError("boom")

    gone, broken, kept = Listener(), Broken(), Listener()
    watch.listen("agent", "t3", gone.changed)
    stop_broken = watch.listen("agent", "t3", broken.changed)
    stop_kept = watch.listen("agent", "t3", kept.changed)
    del gone
    gc.collect()
    watch.announce("agent", "t3", ["/a.md"])  # the broken listener does not stop the others
    assert kept.heard == [["/a.md"]]
    assert len(watch._listeners[("agent", "t3")]) == 2
    stop_broken()
    stop_kept()
    assert ("agent", "t3") not in watch._listeners
