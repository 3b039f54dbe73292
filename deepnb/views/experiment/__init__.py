"""The experiment matrix, live and static."""
