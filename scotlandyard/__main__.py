"""``python -m scotlandyard``: the command line."""

from .cli import main

main()
