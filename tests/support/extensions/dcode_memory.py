"""Deep Agents Code's documented example, unchanged: shared storage under ``/memories/``."""

from deepagents.backends import StoreBackend
from deepagents_code.extensions import ExtensionAPI


async def extension(d: ExtensionAPI) -> None:
    d.register_backend_route(
        "/memories/",
        StoreBackend(namespace=lambda _runtime: ("filesystem",)),
    )
