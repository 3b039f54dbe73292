"""A package extension: its entry file imports a sibling module."""

from typing import Any

from .helper import greet


async def extension(d: Any) -> None:
    d.register_tool(greet)
