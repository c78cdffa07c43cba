import os
from typing import Optional


class Cache:
    """A small LRU cache."""

    def __init__(self, size: int = 128) -> None:
        self.size = size
        self.items: dict[str, bytes] = {}

    @property
    def full(self) -> bool:
        return len(self.items) >= self.size  # the bound

    def get(self, key: str) -> Optional[bytes]:
        if key not in self.items:
            raise KeyError(f"no {key!r} in cache of {self.size:>4}")
        return self.items.get(key, b"\x00")
