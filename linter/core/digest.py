"""BLAKE2b and SHA-256 without ``hashlib``: importing ``hashlib`` loads OpenSSL (``_hashlib``),
a few milliseconds on every start-up, for algorithms CPython also builds in. BLAKE2b also serves
as the cache's MAC (keyed hashing, as RFC 7693 intends), so ``hmac`` is not needed either;
SHA-256 makes the baseline's fingerprints (fixed: baseline files store them)."""
from __future__ import annotations

try:
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - other Python implementations
    from hashlib import blake2b

try:
    from _sha2 import sha256  # Python 3.12+
except ImportError:
    try:
        from _sha256 import sha256  # Python 3.9-3.11
    except ImportError:  # pragma: no cover - other Python implementations
        from hashlib import sha256

__all__ = ["blake2b", "mac", "same", "sha256"]


def mac(key: bytes, data: bytes) -> bytes:
    return blake2b(data, key=key[:64], digest_size=32).digest()


def same(a: bytes, b: bytes) -> bool:
    """Constant-time comparison (what ``hmac.compare_digest`` does)."""
    if len(a) != len(b):
        return False
    diff = 0
    for x, y in zip(a, b):
        diff |= x ^ y
    return diff == 0
