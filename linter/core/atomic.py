"""Writing a user's file so that an interrupted run leaves the old or the new one, never half."""
from __future__ import annotations

import os
import tempfile


def write_atomic(path: str, text: str) -> None:
    """Write via a temporary file in the same directory and ``os.replace``: an interrupted run
    leaves either the old or the new file, never half of one. An existing file keeps its mode; a
    new one gets the mode ``open()`` would give it (temporary files are created 0600)."""
    data = text.encode("utf-8")
    directory = os.path.dirname(os.path.abspath(path))
    try:
        mode = os.stat(path).st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    fd, tmp = tempfile.mkstemp(prefix=".trainlint-", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
