"""Where an agent's files live and the rules its own tools check, on the notebook's side."""
