"""An agent thread's filesystem as notebook state: :class:`Files` over every deepagents backend."""

from deepnb.core.file_paths import UnsafePathError
from deepnb.engine.files.sources import Entry, Match
from deepnb.session.files.changes import FileChange
from deepnb.session.files.files import Files

__all__ = ["Entry", "FileChange", "Files", "Match", "UnsafePathError"]
