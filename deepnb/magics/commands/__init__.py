"""What the magics do once a line is parsed: each ``%deepagent`` subcommand's handler (named by
its declaration in ``deepnb/magics/subcommands/``, called with the parsed arguments and the
kernel's namespace) and what a ``%%deepagent`` cell's options become. They reach every layer, so
``%load_ext deepnb`` loads none of them: a command's first use does."""
