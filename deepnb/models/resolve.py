"""Turn what a user wrote for a model into a chat model, or one line saying what to do."""

from __future__ import annotations

import dataclasses
import importlib.util
import math
import os
from importlib import resources
from pathlib import Path
from typing import Any

from deepnb.core.errors import DeepnbError
from deepnb.core.extras import require
from deepnb.models.scripted import ScriptedChatModel, load_script

MODEL_ENV = "DEEPNB_MODEL"
DEMO_PACE_ENV = "DEEPNB_DEMO_PACE"
"""A factor on the shipped demos' pause between streamed tokens, which is there for people
watching: 1 (the default) as the demo says, 0.5 twice as fast, 0 no pause at all."""

# provider → (package to install, pip extra or None, environment variable holding the key)
PROVIDERS: dict[str, tuple[str, str | None, str | None]] = {
    "openai": ("langchain-openai", "openai", "OPENAI_API_KEY"),
    "anthropic": ("langchain-anthropic", "anthropic", "ANTHROPIC_API_KEY"),
    "google_genai": ("langchain-google-genai", None, "GOOGLE_API_KEY"),
    "google_vertexai": ("langchain-google-vertexai", None, None),
    "azure_openai": ("langchain-openai", "openai", "AZURE_OPENAI_API_KEY"),
    "bedrock_converse": ("langchain-aws", None, None),
    "bedrock": ("langchain-aws", None, None),
    "mistralai": ("langchain-mistralai", None, "MISTRAL_API_KEY"),
    "groq": ("langchain-groq", None, "GROQ_API_KEY"),
    "fireworks": ("langchain-fireworks", None, "FIREWORKS_API_KEY"),
    "together": ("langchain-together", None, "TOGETHER_API_KEY"),
    "cohere": ("langchain-cohere", None, "COHERE_API_KEY"),
    "deepseek": ("langchain-deepseek", None, "DEEPSEEK_API_KEY"),
    "xai": ("langchain-xai", None, "XAI_API_KEY"),
    "ollama": ("langchain-ollama", None, None),
    "huggingface": ("langchain-huggingface", None, "HUGGINGFACEHUB_API_TOKEN"),
    "perplexity": ("langchain-perplexity", None, "PPLX_API_KEY"),
}
# Environment outside PROVIDERS that sends runs or traces to a service.
_ONLINE_ENV = (
    "HF_TOKEN",
    "LANGSMITH_API_KEY",
    "LANGCHAIN_API_KEY",
    "LANGGRAPH_API_KEY",
    "LANGSMITH_TRACING",
    "LANGSMITH_TRACING_V2",
    "LANGCHAIN_TRACING",
    "LANGCHAIN_TRACING_V2",
)


def online_environment() -> frozenset[str]:
    """Names of environment variables that pick a real model or unlock a provider or tracing
    service. Unset them all and every ``demo:`` run stays offline."""
    keys = (key for *_, key in PROVIDERS.values() if key)
    return frozenset((MODEL_ENV, *keys, *_ONLINE_ENV))


NO_MODEL = (
    "No model set: pass -m provider:model (e.g. -m openai:gpt-5.5), set the DEEPNB_MODEL "
    "environment variable, or try the offline demo with -m demo:quickstart."
)


def demo_names() -> list[str]:
    """The replay scripts shipped with deepnb, usable as ``demo:NAME``."""
    folder = resources.files("deepnb") / "demos"
    return sorted(p.name.rsplit(".", 1)[0] for p in folder.iterdir() if p.name.endswith(".yaml"))


def demo_pace() -> float:
    """The factor :data:`DEMO_PACE_ENV` sets on the demos' pause between tokens (1 unset)."""
    given = os.environ.get(DEMO_PACE_ENV, "").strip()
    if not given:
        return 1.0
    try:
        pace = float(given)
    except ValueError:
        pace = -1.0
    if not math.isfinite(pace) or pace < 0:
        raise DeepnbError(
            f"{DEMO_PACE_ENV} must be a number of 0 or more (1: the demos' own pace, 0: no pause "
            f"between tokens), not {given[:40]!r}: set it again, or unset it."
        )
    return pace


def _demo(name: str) -> Any:
    if name not in demo_names():
        raise DeepnbError(f"Unknown demo {name!r}: choose one of {', '.join(demo_names())}.")
    pace = demo_pace()
    path = resources.files("deepnb") / "demos" / f"{name}.yaml"
    with resources.as_file(path) as file:
        script = load_script(file)
    if pace != 1.0:
        script = dataclasses.replace(script, delay=script.delay * pace)
    return ScriptedChatModel(script=script)


def _scripted(path: str) -> Any:
    return ScriptedChatModel(script=load_script(path), path=str(Path(path).expanduser()))


def _provider(spec: str) -> Any:
    provider, _, model = spec.partition(":")
    package, extra, key_env = PROVIDERS.get(provider, (None, None, None))
    if extra:  # deepnb's own extra for it: its package imported, or one line saying how to get it
        require(extra, str(package).replace("-", "_"), what=f"The {provider!r} provider")
    elif package and importlib.util.find_spec(package.replace("-", "_")) is None:
        how = f"pip install {package}"
        raise DeepnbError(f"The {provider!r} provider needs {package}: run {how}, then restart the kernel.")
    if key_env and not os.environ.get(key_env):
        raise DeepnbError(
            f"{spec} needs an API key: set the {key_env} environment variable "
            f"(e.g. os.environ['{key_env}'] = ... in a cell, never in a saved output)."
        )
    from langchain.chat_models import init_chat_model  # noqa: PLC0415  # lazy: langchain is heavy

    # Runs always stream: ask OpenAI-style endpoints for usage in the stream, which
    # langchain-openai leaves off for custom base URLs.
    stream_usage: dict[str, Any] = {"stream_usage": True} if provider in ("openai", "azure_openai") else {}
    try:
        if provider == "openai":  # ChatOpenAI, keeping what an OpenAI-compatible server reasons
            from deepnb.models.openai_compatible import ChatOpenAICompatible  # noqa: PLC0415  # lazy: optional

            return ChatOpenAICompatible(model=model, **stream_usage)
        return init_chat_model(model, model_provider=provider, **stream_usage)
    except ImportError as exc:
        raise DeepnbError(f"The {provider!r} provider needs a package: {exc}") from None
    except ValueError as exc:
        raise DeepnbError(f"Cannot use model {spec!r}: {str(exc).splitlines()[0]}") from None


def resolve_model(model: Any = None, namespace: dict[str, Any] | None = None) -> Any:
    """A chat model for ``model``: a chat model object, ``provider:model``, ``scripted:PATH``,
    ``demo:NAME``, the name of a variable in ``namespace`` holding a chat model, or ``None``
    (then ``$DEEPNB_MODEL``)."""
    if model is None:
        model = os.environ.get(MODEL_ENV) or None
        if model is None:
            raise DeepnbError(NO_MODEL)
    if not isinstance(model, str):
        if hasattr(model, "invoke") and hasattr(model, "bind_tools"):
            return model
        raise DeepnbError(
            f"{type(model).__name__} is not a chat model: pass a LangChain chat model or a model string."
        )
    text = model.strip()
    if namespace is not None and text.isidentifier() and text in namespace:
        return resolve_model(namespace[text])
    kind, sep, rest = text.partition(":")
    if not sep or not kind or not rest:
        raise DeepnbError(
            f"Malformed model {text!r}: write provider:model (e.g. openai:gpt-5.5, "
            "anthropic:claude-sonnet-4-6), scripted:PATH, demo:NAME, or a variable holding a chat model."
        )
    if kind == "demo":
        return _demo(rest)
    if kind == "scripted":
        return _scripted(rest)
    return _provider(text)
