"""``python -m deepnb.cli``: the ``deepnb`` command."""

from deepnb.cli.main import main

main(prog_name="deepnb")
