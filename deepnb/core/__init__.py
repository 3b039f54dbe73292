"""The foundation: events, the schema, errors, the engine loop, and what every layer above uses.

Imports nothing of deepnb above it (see ARCHITECTURE.md)."""
