"""``python -m scotlandyard.server``: the same as ``scotlandyard serve``."""

from .cli import main

if __name__ == "__main__":
    main()
