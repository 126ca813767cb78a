"""``python -m scotlandyard.ai.categorization --games N --out FILE``: learn the table."""

from .learn import main

raise SystemExit(main())
