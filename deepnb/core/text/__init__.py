"""Text in and out, safely: secrets redacted (streamed text too), agent text to escaped HTML,
bidirectional controls shown, and a project's documents and patterns read within bounds."""
