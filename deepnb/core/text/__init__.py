"""Text in and out, safely: secrets redacted (streamed text too), agent text to escaped HTML,
bidirectional controls made visible, and a project's documents and patterns read within bounds."""
