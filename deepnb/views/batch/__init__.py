"""The batch grid, live and static."""
