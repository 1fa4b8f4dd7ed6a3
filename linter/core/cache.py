"""A content-addressed cache of per-file facts and whole-run results.

* **Where**: ``--cache-dir``, ``cache-dir`` in the config, ``$TRAINLINT_CACHE_DIR``, else the
  user cache directory (``$XDG_CACHE_HOME/trainlint``, ``~/.cache/trainlint``). By default
  nothing is written into the linted tree; a cache directory placed inside a project gets a
  ``.gitignore`` of ``*`` so git ignores it.
* **What**: the facts of a file, keyed by its path and content hash, in a namespace derived
  from the trainlint version and the source of the code that extracts facts — so editing a
  rule never forces re-parsing, and a new extractor never reads old facts. Whole-run results
  are keyed by everything that decides them (rules, options, every input file's hash and every
  file-system probe made while resolving imports).
* **Safety**: entries are pickles, and unpickling untrusted data runs code, so every entry
  carries a MAC (keyed BLAKE2b) made with a per-user secret kept in the user cache directory
  (mode 0600, never in the project). A cache directory committed to a repository, or tampered with, is
  ignored entry by entry, never executed.
* **Failure**: a cache that cannot be read or written is skipped silently (it is only a
  speed-up); writes are atomic (temporary file + rename), so concurrent runs cannot observe a
  half-written entry.
"""
from __future__ import annotations

import os
import pickle
import tempfile
from typing import Any, Iterable, Optional

from linter import __version__
from linter.core.digest import blake2b, mac, same

FORMAT = "1"
_MAC = 32


def default_dir() -> str:
    env = os.environ.get("TRAINLINT_CACHE_DIR")
    if env:
        return os.path.abspath(os.path.expanduser(env))
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "trainlint")


def _user_secret() -> Optional[bytes]:
    """The per-user HMAC key (created on first use). Always in the user cache directory, so a
    cache directory inside a project cannot carry its own key."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    path = os.path.join(base, "trainlint", "secret.key")
    try:
        with open(path, "rb") as fh:
            key = fh.read()
        if len(key) >= 32:
            return key
    except OSError:
        pass
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        key = os.urandom(32)
        fd = os.open(path + f".{os.getpid()}", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(key)
        os.replace(path + f".{os.getpid()}", path)
        with open(path, "rb") as fh:   # another process may have won the race
            return fh.read()
    except OSError:
        return None


FACTS_CODE = ("facts", "source", "core")
"""The code a file's cached facts depend on (extraction, decoding and notebooks, the fact model)."""


def code_digest(*modules: str) -> str:
    """Digest of trainlint packages/modules (relative to ``linter/``): their names, sizes and
    modification times (reading the source on every start-up would cost more than it saves;
    as in Ruff, a file rewritten with the same size within the same clock tick is missed)."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))   # linter/, not linter/core/
    h = blake2b(digest_size=12)
    h.update(__version__.encode())
    for rel in modules:
        path = os.path.join(here, rel)
        if not os.path.exists(path):
            # a module that moved would silently drop out of the digest and stale cache entries
            # would be served after every change to it: fail where the move is made
            raise FileNotFoundError(f"code_digest: no linter/{rel}")
        files = ([os.path.join(d, f) for d, _, fs in sorted(os.walk(path)) for f in sorted(fs) if f.endswith(".py")]
                 if os.path.isdir(path) else [path])
        for f in files:
            h.update(stamp(f).encode())
    return h.hexdigest()


def stamp(path: str) -> str:
    try:
        st = os.stat(path)
        return f"{path}\0{st.st_size}\0{st.st_mtime_ns}\0"
    except OSError:
        return f"{path}\0-\0"


class Cache:
    """Facts and results under ``root``; ``None`` secret = disabled (nothing read or written)."""

    def __init__(self, root: Optional[str] = None) -> None:
        self.root = os.path.abspath(root or default_dir())
        self.secret = _user_secret()
        self.facts_ns = code_digest(*FACTS_CODE)
        self.hits = 0
        self.misses = 0
        self._ready = False

    @property
    def enabled(self) -> bool:
        return self.secret is not None

    # ------------------------------------------------------------------ keys
    @staticmethod
    def file_key(path: str, data: bytes) -> str:
        """Content, and whether it is a notebook: facts do not depend on where a file is (the
        caller puts the path back), so identical files share one entry."""
        h = blake2b(data, digest_size=16)
        h.update(b"\0ipynb" if path.endswith(".ipynb") else b"\0py")
        return h.hexdigest()

    @staticmethod
    def digest(parts: Iterable[str]) -> str:
        h = blake2b(digest_size=16)
        for p in parts:
            h.update(p.encode("utf-8", "surrogatepass") + b"\0")
        return h.hexdigest()

    # ------------------------------------------------------------------ storage
    def _path(self, kind: str, ns: str, key: str) -> str:
        return os.path.join(self.root, "v" + FORMAT, kind, ns, key[:2], key)

    def _prepare(self) -> None:
        if self._ready:
            return
        self._ready = True
        try:
            os.makedirs(self.root, exist_ok=True)
            ignore = os.path.join(self.root, ".gitignore")
            if not os.path.exists(ignore):
                with open(ignore, "w", encoding="utf-8") as fh:
                    fh.write("# created by trainlint\n*\n")
        except OSError:
            pass

    def get(self, kind: str, ns: str, key: str) -> Optional[Any]:
        if self.secret is None:
            return None
        try:
            with open(self._path(kind, ns, key), "rb") as fh:
                blob = fh.read()
        except OSError:
            self.misses += 1
            return None
        tag, body = blob[:_MAC], blob[_MAC:]
        if not same(tag, mac(self.secret, body)):
            self.misses += 1
            return None   # not written by this user's trainlint: never unpickled
        try:
            value = pickle.loads(body)
        except Exception:
            self.misses += 1
            return None
        self.hits += 1
        return value

    def put(self, kind: str, ns: str, key: str, value: Any) -> None:
        self.put_bytes(kind, ns, key, pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))

    def put_bytes(self, kind: str, ns: str, key: str, body: bytes) -> None:
        if self.secret is None:
            return
        self._prepare()
        path = self._path(kind, ns, key)
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-")
            with os.fdopen(fd, "wb") as fh:
                fh.write(mac(self.secret, body))
                fh.write(body)
            os.replace(tmp, path)
        except OSError:
            try:
                os.unlink(tmp)
            except (OSError, NameError):
                pass
