"""The file browser and a file's preview."""
