"""A parser process started before the run knows it needs one.

Checking one changed file is dominated by ``import libcst`` (~110 ms of a ~200 ms run);
the rest of the run — settings, compiled rule packs, the cache lookup, the project model
and the rules — never touches libcst, because facts are our own objects. So the command
line forks one process at start-up that imports libcst and the extractor while this
process reads the configuration, loads the rules and looks up the cache; the files that
miss the cache are then parsed there and come back pickled, exactly as from the parse
workers (:func:`linter.facts.worker.worker`). On two or more CPUs the libcst import overlaps with our own
start-up instead of adding to it.

It is used once, for the first batch of files to parse, and only when that batch is small
(larger ones go to the worker pool, which starts its own processes). When nothing needs
parsing (every file cached) it is killed. If it dies, the files are parsed one per fresh
process, as a dead pool worker's are (a file that kills the parser is reported, not fatal). Started only where fork is the platform's safe default (Linux), with more than
one CPU, ``--jobs`` not 1, and libcst not yet imported (in-process callers that already
paid for it gain nothing).
"""
from __future__ import annotations

import os
# in the child: loaded while it waits for its batch
import pickle
import signal
import sys
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from linter.core.cpus import usable_cpus


class ParseAhead:
    """The parent's handle on the forked parser: one request, one answer."""

    def __init__(self, pid: int, to_child: int, from_child: int) -> None:
        self.pid = pid
        self._to = to_child
        self._from = from_child
        self._owner = os.getpid()
        self.used = False
        self.meanwhile: Dict[str, Callable[[], None]] = {}
        """Work for this process while the other parses: the imports the stages after parsing
        would otherwise make after the answer arrives (set by :func:`linter.engine.run.run_project`)."""

    @classmethod
    def start(cls) -> Optional["ParseAhead"]:
        """Fork the parser if it can pay off here (see the module doc), else None."""
        if not sys.platform.startswith("linux") or "libcst" in sys.modules:
            return None
        if usable_cpus() < 2:
            return None    # the import would compete with this process for the one CPU
        try:
            req_r, req_w = os.pipe()
            ans_r, ans_w = os.pipe()
        except OSError:
            return None
        try:
            pid = os.fork()
        except OSError:
            for fd in (req_r, req_w, ans_r, ans_w):
                os.close(fd)
            return None
        if pid == 0:   # the child never returns from here
            os.close(req_w)
            os.close(ans_r)
            _serve(req_r, ans_w)
        os.close(req_r)
        os.close(ans_w)
        return cls(pid, req_w, ans_r)

    @property
    def available(self) -> bool:
        """Not asked yet, and this is the process that started it (a worker forked later holds a
        copy of this handle, never the right to the pipe)."""
        return not self.used and os.getpid() == self._owner

    def parse(self, items: Sequence[Tuple[str, bytes]]) -> Optional[List[bytes]]:
        """Pickled entries for ``(path, bytes)`` items, in order; None when the process is
        gone or answers short (the caller then parses in-process)."""

        self.used = True
        try:
            with os.fdopen(self._to, "wb") as w:
                self._to = -1
                pickle.dump(list(items), w, protocol=pickle.HIGHEST_PROTOCOL)
            for work in self.meanwhile.values():
                work()
            with os.fdopen(self._from, "rb") as r:
                self._from = -1
                blobs = pickle.load(r)
        except (OSError, EOFError, pickle.UnpicklingError, ValueError):
            blobs = None
        finally:
            self.close()
        if not isinstance(blobs, list) or len(blobs) != len(items):
            return None
        return blobs

    def close(self) -> None:
        """Stop the process: killed if it was not asked or did not finish. Not waited for —
        the kernel tears it down on the other CPU while this process goes on; it is reaped
        here if already gone, else by the system when this short-lived process exits. In a
        forked copy of the starting process: nothing (the process is not this one's)."""
        self.used = True
        if os.getpid() != self._owner:
            return
        for fd in (self._to, self._from):
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._to = self._from = -1
        if self.pid:
            try:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, os.WNOHANG)
            except OSError:
                pass          # already exited and reaped
            self.pid = 0


def _serve(req: int, ans: int) -> None:
    """The child: import the parser, wait for one batch, answer, exit without running the
    parent's cleanup (``os._exit``: no atexit handlers, no flushing of inherited buffers)."""
    code = 1
    try:
        # A child that outlives the parent must not hold the caller's terminal or pipes
        # (pre-commit and editors read the command's output until end of file).
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        signal.signal(signal.SIGINT, signal.SIG_IGN)   # Ctrl-C is the parent's to report
        # in the child: what it needs, loaded while the parent decides what to send
        import pickle

        import libcst  # noqa: F401  (the point of the process: paid before the batch arrives)

        import linter.facts.extract  # noqa: F401
        import linter.facts.parse_file  # noqa: F401
        # in the child: loaded while it waits for its batch
        from linter.facts.worker import worker

        with os.fdopen(req, "rb") as r:
            items = pickle.load(r)
        blobs = worker(items)
        with os.fdopen(ans, "wb") as w:
            pickle.dump(blobs, w, protocol=pickle.HIGHEST_PROTOCOL)
        code = 0
    except BaseException:  # noqa: BLE001 — EOF (not needed after all) or a crash: the parent parses
        pass
    finally:
        os._exit(code)
