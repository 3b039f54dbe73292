"""An agent thread's filesystem as notebook state: :class:`Files` over every deepagents backend."""

from deepnb.files.changes import FileChange
from deepnb.files.files import Files
from deepnb.files.paths import UnsafePathError
from deepnb.files.sources import Entry, Match

__all__ = ["Entry", "FileChange", "Files", "Match", "UnsafePathError"]
