"""Test-only: ``python -m scotlandyard.server`` (the same options) with AI Mr X's replies
unpaced, ``create_app(pace_mr_x=False)``: for the live tests that play many whole AI games
and audit their frames, not their timing. A real server is always paced (docs/webapp.md,
Security); ``scotlandyard serve`` has no option to turn it off.

    python tests/serve_unpaced.py --port 8000 --db games.sqlite3 --ai-delay 0
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's package

from scotlandyard.server import app, cli  # noqa: E402

if __name__ == "__main__":
    app.create_app = functools.partial(app.create_app, pace_mr_x=False)  # type: ignore[assignment]
    cli.main()
