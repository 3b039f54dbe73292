"""What a run's tokens cost, from genai-prices' maintained price table: ``None`` ("unknown")
for a model it has no price for (a ``scripted:`` or ``demo:`` model, a served agent's, a model
given as an object it cannot name)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from deepnb.core.tokens import Tokens

OFFLINE_KINDS = frozenset({"scripted", "demo"})


def model_of(session: Any) -> str | None:
    """A ``provider:model`` for a session's model where it has one (its spec's label)."""
    spec = getattr(session, "declared_spec", None)
    label = getattr(spec, "model_label", None)
    return label if isinstance(label, str) and ":" in label else None


def cost(model: str | None, tokens: Tokens) -> float | None:
    """The price in US dollars of ``tokens`` on ``model`` (a ``provider:model`` string), or
    ``None`` where no price is known or no model call reported its tokens; where some did not,
    the price of those reported (a lower bound, as the tokens are)."""
    if not model or not tokens.known:
        return None
    tokens_in, tokens_out = tokens.tokens_in, tokens.tokens_out
    if tokens_in == 0 and tokens_out == 0:
        return 0.0
    provider, _, name = model.partition(":")
    if provider in OFFLINE_KINDS or not name:
        return None
    return _priced(provider, name, tokens_in, tokens_out)


@lru_cache(maxsize=4096)
def _priced(provider: str, name: str, tokens_in: int, tokens_out: int) -> float | None:
    try:
        from genai_prices import Usage, calc_price  # noqa: PLC0415  # lazy: the table loads on first use

        price = calc_price(
            Usage(input_tokens=tokens_in, output_tokens=tokens_out), model_ref=name, provider_id=provider
        )
    except ImportError:
        return None
    except Exception:  # genai-prices raises LookupError (or another error) for what it does not know
        return None
    return float(price.total_price)
