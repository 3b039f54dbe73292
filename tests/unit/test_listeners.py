"""The callbacks a run or a batch calls: added and removed from any thread, called from a copy."""

from __future__ import annotations

from deepnb.core.listeners import Listeners


def test_a_callback_hears_until_it_is_removed_even_while_being_called() -> None:
    heard: list[tuple[str, int]] = []
    listeners: Listeners[int] = Listeners()

    def once(value: int) -> None:
        heard.append(("once", value))
        remove_once()

    remove_once = listeners.add(once)
    remove_all = listeners.add(lambda value: heard.append(("all", value)))
    for value in (1, 2):
        for callback in listeners.now():
            callback(value)
    assert heard == [("once", 1), ("all", 1), ("all", 2)] and len(listeners) == 1
    remove_all()
    remove_all()  # twice is harmless
    assert not listeners and listeners.now() == []
