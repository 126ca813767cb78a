"""Generate the package's board file from the verified board facts.

Usage: python scripts/build_board.py [../shared/board/london.json]

The package ships ``scotlandyard/data/london.json``; it is this script's output and
``tests/test_board.py`` checks it against the facts file.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SOURCE = ROOT.parent / "shared" / "board" / "london.json"
TARGET = ROOT / "scotlandyard" / "data" / "london.json"


def build(source: Path) -> dict:
    """Return the package board document built from the facts file at ``source``."""
    facts = json.loads(source.read_text())
    return {
        "name": facts["name"],
        "stations": facts["stations"],
        "edges": {t: [list(e) for e in facts["edges"][t]] for t in ("taxi", "bus", "underground", "ferry")},
        "variants": facts["variants"],
        "positions": {str(k): list(v) for k, v in sorted(facts["positions"].items(), key=lambda kv: int(kv[0]))},
        "position_space": {k: facts["position_space"][k] for k in ("width", "height")},
        "start_positions": facts["start_positions"],
        "generated_from": "shared/board/london.json (verified facts; see its README)",
    }


def main() -> None:
    source = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_SOURCE
    doc = build(source)
    TARGET.write_text(json.dumps(doc, separators=(",", ":"), sort_keys=False) + "\n")
    print(f"wrote {TARGET} from {source}")


if __name__ == "__main__":
    main()
