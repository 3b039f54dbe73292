"""``python -m deepnb.cli``: the ``deepnb`` command."""

from deepnb.cli.main import main

if __name__ == "__main__":
    main(prog_name="deepnb")
