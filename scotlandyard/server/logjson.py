"""JSON log lines for the server (``scotlandyard serve --log-format json``): one object a line,
for log collectors. Tokens are redacted before formatting (``app.RedactTokens`` runs on every
handler), so no line carries one.

    {"ts": "2026-12-01T10:02:03.120Z", "level": "INFO", "logger": "uvicorn.access",
     "pid": 4242, "msg": "127.0.0.1:5123 - \\"GET /api/health HTTP/1.1\\" 200",
     "client": "127.0.0.1:5123", "method": "GET", "path": "/api/health", "status": 200}
"""

from __future__ import annotations

import json
import logging
import os
import time


class JsonFormatter(logging.Formatter):
    """A log record as one JSON object (uvicorn's access records with their fields apart)."""

    def format(self, record: logging.LogRecord) -> str:
        """The record's JSON line."""
        ts = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
        out: dict[str, object] = {
            "ts": f"{ts}.{int(record.msecs):03d}Z", "level": record.levelname,
            "logger": record.name, "pid": os.getpid(), "msg": record.getMessage(),
        }
        worker = os.environ.get("SCOTLANDYARD_WORKER")
        if worker:
            out["worker"] = worker
        args = record.args
        if record.name == "uvicorn.access" and isinstance(args, tuple) and len(args) == 5:
            client, method, path, _version, status = args
            out.update(client=client, method=method, path=path, status=status)
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out, default=str, ensure_ascii=False)
