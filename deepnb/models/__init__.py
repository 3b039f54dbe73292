"""Chat models for deepnb: real providers, replay scripts and shipped demos."""

from deepnb.models.resolve import resolve_model
from deepnb.models.scripted import ScriptedChatModel, load_script, parse_script

__all__ = ["ScriptedChatModel", "load_script", "parse_script", "resolve_model"]
