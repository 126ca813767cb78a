"""The run folder: config, manifest, records; resuming."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from .config import (
    ARENA_SCHEME,
    ArenaConfig,
    ArenaError,
    _canonical,
)
from .play import GameResult


# ---- the run folder -------------------------------------------------------------------------
class _RunFolder:
    """config.json + manifest.jsonl + games/: what makes a run resumable."""

    def __init__(self, out: Path, config: ArenaConfig) -> None:
        self.out = out
        self.config = config
        self.hash = config.config_hash
        self.manifest = out / "manifest.jsonl"
        self.games_dir = out / "games"
        self.done: dict[int, GameResult] = {}

    def open(self) -> None:
        out = self.out
        if out.exists() and not out.is_dir():
            raise ArenaError(f"{out} is a file, not a folder for the arena's output")
        cfg_path = out / "config.json"
        if cfg_path.exists():
            try:
                old = json.loads(cfg_path.read_text())
                old_hash = old["config_hash"]
            except (OSError, ValueError, KeyError, TypeError) as exc:
                raise ArenaError(f"{cfg_path} is unreadable ({exc}); use another --out folder") from None
            if old_hash != self.hash:
                raise ArenaError(self._difference(out, old, old_hash))
        elif self.manifest.exists():
            raise ArenaError(f"{out} holds a manifest but no config.json; use another --out folder")
        self.games_dir.mkdir(parents=True, exist_ok=True)
        data = {**self.config.to_dict(), "config_hash": self.hash, "scheme": ARENA_SCHEME}
        _write_atomic(cfg_path, json.dumps(data, indent=2) + "\n")
        self._load_manifest()

    def _difference(self, out: Path, old: dict[str, Any], old_hash: str) -> str:
        new = {**self.config.to_dict(), "scheme": ARENA_SCHEME}
        ignore = {"games", "workers", "backend", "ray_address", "config_hash"}
        diffs = []
        for key in sorted((set(old) | set(new)) - ignore):
            if _canonical(old.get(key)) != _canonical(new.get(key)):
                if key == "rules" and isinstance(old.get(key), dict):
                    for rk in sorted(set(old[key]) | set(new[key])):
                        a, b = old[key].get(rk), new[key].get(rk)
                        if _canonical(a) != _canonical(b):
                            diffs.append(f"rules.{rk}: {_canonical(a)} -> {_canonical(b)}")
                else:
                    diffs.append(f"{key}: {_canonical(old.get(key))} -> {_canonical(new.get(key))}")
        return (f"{out} holds an arena run with another configuration (hash {old_hash}, this one "
                f"is {self.hash}): {'; '.join(diffs) or 'arena version changed'}. Resume it with "
                "the same settings, or give another --out folder.")

    def _load_manifest(self) -> None:
        if not self.manifest.exists():
            return
        good: list[str] = []
        broken = False
        for line in self.manifest.read_text().splitlines():
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
                result = GameResult.from_dict(entry["game"])
                if entry["config_hash"] != self.hash:
                    raise ValueError("another config")
            except (ValueError, KeyError, TypeError):
                broken = True  # a line cut short by an interrupted write: that game is replayed
                continue
            if result.record is None or not (self.out / result.record).exists():
                broken = True
                continue
            self.done[result.index] = result
            good.append(line)
        if broken:
            _write_atomic(self.manifest, "".join(f"{g}\n" for g in good))

    def add(self, result: GameResult, text: str, suffix: str) -> GameResult:
        name = f"games/{result.index:06d}{suffix}"
        _write_atomic(self.out / name, text if text.endswith("\n") else text + "\n")
        result = result.with_record(name)
        line = _canonical({"config_hash": self.hash, "game": result.to_dict()})
        with self.manifest.open("a", encoding="utf-8") as fh:
            fh.write(line + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        self.done[result.index] = result
        return result


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
