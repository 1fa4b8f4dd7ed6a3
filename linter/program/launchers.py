"""Stage 3 (program model): how the project's programs are launched.

Model zoos start their entry scripts from shell scripts (``scripts/run_train.sh``: ``python
train.py --device_target Ascend --epoch_size 90``) and show the commands in READMEs. What those
commands pass to an argparse option is what the option can be as shipped: its default when no
command passes it, plus the literals the commands pass. A command passing a variable
(``--lr $LR``) or a usage line (``[--lr LR]``) leaves the option open, and so does a project
without a shell script that starts Python: then nothing shows how the program is run.

A mention counts for the program that the command around it starts: a line naming
``run_language_model.sh`` passes nothing to ``run_CBT_task.py`` (a README lists the commands of
several scripts), unless the option belongs to a module no launcher names (a shared parser in
``src/args.py``), whose options every command passes. Files are read through the run's probes.
"""
from __future__ import annotations

import os
import re
from typing import Any, Callable, Dict, Iterator, List, NamedTuple, Optional, Tuple

from linter.core.memo import MemoStore
from linter.facts.mentions import PYTORCH_MENTION
from linter.index.modules import folders_up

MAX_LAUNCHER_BYTES = 512 * 1024
_SCRIPT = re.compile(r"([\w.-]+\.(?:py|sh))\b")
_PYTHON = re.compile(r"\bpython[\d.]*\s")


class Launch(NamedTuple):
    name: str
    text: str
    starts_python: bool
    """A shell script that runs ``python ...`` (a README never counts as one)."""
    option_lines: Tuple[Tuple[str, Optional[str]], ...]
    """The logical lines that pass an option (``--``), each with the last script named on it
    or above it (the command it belongs to): read once, asked for every option."""


def _option_lines(text: str) -> Tuple[Tuple[str, Optional[str]], ...]:
    out: List[Tuple[str, Optional[str]]] = []
    context: Optional[str] = None
    for line in _logical_lines(text):
        named = _SCRIPT.findall(line)
        if named:
            context = named[-1]
        if "--" in line:
            out.append((line, context))
    return tuple(out)


_MULTI_DEVICE = re.compile(
    r"(?i)\b(?:mpirun|mpiexec|msrun|torchrun|horovodrun|deepspeed|rank_?size|rank_?table\w*|hccl\w*|device_?num"
    r"|nproc_per_node|world_?size|group_?size|run_?distribute\w*|is_?distributed|distribut\w*[ _-]?(?:train|run|launch|mode)\w*"
    r"|data_?parallel|multi[- _]?(?:device|card|gpu|npu|node|process)s?"
    r"|\d+\s*(?:devices|cards|gpus|npus))\b|多卡|分布式|多机|并行训练")
"""Words by which a launcher, a README or a configuration file shows that its project runs on more than one
device: the launch commands, the variables they set, and the words READMEs use ("distributed training", not
the "distributed under the License" of a SECURITY.md). Broad on purpose: any mention
keeps a data-parallel finding at its severity; only a project silent on all of them counts as single-device."""

_GOVERNANCE = re.compile(r"(?i)(?:security|contributing|release|changelog|code_of_conduct|license|notice)")
"""Repository governance documents: a template SECURITY.md saying "MindSpore is a distributed training platform"
says nothing about how this project is launched."""

_TEXT_SUFFIXES = (".py", ".md", ".txt", ".rst", ".yaml", ".yml")
_DOC_SUFFIXES = (".md", ".txt", ".rst")

PAPER_MENTION = re.compile(r"(?i)arxiv\.org|(?<![a-z])paper(?![a-z])|论文|reproduc|复现")
"""A README citing the model's paper or saying the code reproduces one: a reproduction of a
published model, whose reference implementation is almost always PyTorch."""

LAUNCHER_FOLDERS = ("scripts", "script")
"""Where model zoos keep their shell launchers beside the code (the MindSpore zoo: 2,409 shell
scripts in ``scripts/``, 113 in ``script/``)."""


class Launchers:
    """The shell scripts and READMEs beside a module, up to two folders above it, and in the
    ``scripts/`` (or ``script/``) folders of those."""

    def __init__(self, read: Callable[[str], Optional[bytes]], listdir: Callable[[str], Tuple[str, ...]],
                 store: Optional[MemoStore] = None,
                 parsed_mentions: Callable[[str], Dict[str, bool]] = lambda folder: {}) -> None:
        self.read = read
        self.listdir = listdir
        self.parsed_mentions = parsed_mentions
        """The run's parsed Python files in a folder (name → whether it mentions PyTorch, from its
        facts): read once already, and the only copy of an in-memory file."""
        store = store if store is not None else MemoStore()
        self._near: Dict[str, List[Launch]] = store.table("launchers.near")
        self._passed: Dict[Tuple[Any, ...], Optional[List[Any]]] = store.table("launchers.passed")
        self._multi: Dict[str, bool] = store.table("launchers.multi_device")
        self._port: Dict[str, bool] = store.table("launchers.port")

    def near(self, module: str) -> List[Launch]:
        here = os.path.dirname(module)
        hit = self._near.get(here)
        if hit is not None:
            return hit
        out: List[Launch] = []
        for d in _folders(here):
            for name in sorted(self.listdir(d)):
                if not name.endswith((".sh", ".bash", ".md")):
                    continue
                text = self._text(os.path.join(d, name))
                if text is None:
                    continue
                out.append(Launch(name, text, not name.endswith(".md") and bool(_PYTHON.search(text)),
                                  _option_lines(text)))
        self._near[here] = out
        return out

    def launches_multi_device(self, module: str) -> bool:
        """Some shell script, README or YAML configuration near ``module`` (the folders :meth:`near`
        reads) mentions running on several devices (:data:`_MULTI_DEVICE`)."""
        here = os.path.dirname(module)
        hit = self._multi.get(here)
        if hit is None:
            hit = any(_MULTI_DEVICE.search(f.text) for f in self.near(module) if not _GOVERNANCE.match(f.name))
            if not hit:
                for d in _folders(here):
                    for name in sorted(self.listdir(d)):
                        if name.endswith((".yaml", ".yml")):
                            text = self._text(os.path.join(d, name))
                            if text is not None and _MULTI_DEVICE.search(text):
                                hit = True
                                break
                    if hit:
                        break
            self._multi[here] = hit
        return hit

    def shows_port(self, module: str, root: str) -> bool:
        """Some file in the folder of ``module`` or a folder above it, up to ``root``, shows that
        the code was ported or reproduces a published model: it mentions PyTorch
        (:data:`~linter.facts.mentions.PYTORCH_MENTION`: a port keeps its reference, conversion
        script or README beside it) or a README cites the paper (:data:`PAPER_MENTION`). Code
        written for MindSpore (its tutorials' LeNet, the science suites' own networks) shows
        neither. Measured on the judged conv-bias findings of held-out repositories: 70 % true
        with such evidence, 33 % without; on the model zoo every judged one has it."""
        for d in folders_up(os.path.dirname(module), root):
            hit = self._port.get(d)
            if hit is None:
                hit = self._port[d] = self._folder_shows_port(d)
            if hit:
                return True
        return False

    def _folder_shows_port(self, d: str) -> bool:
        parsed = self.parsed_mentions(d)
        if any(parsed.values()):
            return True
        for name in self.listdir(d):
            low = name.lower()
            if not low.endswith(_TEXT_SUFFIXES) or name in parsed:
                continue
            text = self._text(os.path.join(d, name))
            if text is None:
                continue
            if PYTORCH_MENTION.search(text) or low.endswith(_DOC_SUFFIXES) and PAPER_MENTION.search(text):
                return True
        return False

    def _text(self, path: str) -> Optional[str]:
        """A launcher, README or configuration file's text; None when unreadable or too large."""
        data = self.read(path)
        if data is None or len(data) > MAX_LAUNCHER_BYTES:
            return None
        return data.decode("utf-8", "replace")

    def starts_python(self, module: str) -> bool:
        """Some shell script near ``module`` starts Python: the project shows how it is run."""
        return any(f.starts_python for f in self.near(module))

    def passed_values(self, module: str, option: str, default: Any, readmes: bool = True) -> Optional[List[Any]]:
        """What the launch commands pass to ``--option`` of the parser in file ``module``
        (absolute path): [] when none does, the literals when every mention passes one, None
        when a mention passes something else or no shell script starts Python here.
        ``readmes=False``: only the shell scripts (for a configuration file's key, the shipped
        file is the value a README's generic usage line stands for)."""
        key = (os.path.dirname(module), os.path.basename(module), option, type(default), readmes)
        if key not in self._passed:
            self._passed[key] = self._passed_uncached(module, option, default, readmes)
        hit = self._passed[key]
        return None if hit is None else list(hit)

    def _passed_uncached(self, module: str, option: str, default: Any, readmes: bool) -> Optional[List[Any]]:
        files = self.near(module)
        if not self.starts_python(module):
            return None
        base = os.path.basename(module)
        starters = {f.name for f in files if f.starts_python and base in f.text}
        shared = not starters   # no command names this module: its options are every command's
        pattern = re.compile(r"--(?:%s)\b(?!-)(?:=|[ \t]+)?(\"[^\"\n]*\"|'[^'\n]*'|[^\s\]\[|>;&]*)"
                             % "|".join(re.escape(o) for o in sorted({option, option.replace("_", "-")})))
        out: List[Any] = []
        for f in files:
            if not readmes and f.name.endswith(".md"):
                continue
            for line, context in f.option_lines:
                for m in pattern.finditer(line):
                    if not shared and context is not None and context != base and context not in starters:
                        continue   # a command of another program
                    if line[:m.start()].rstrip().endswith("["):
                        return None   # a usage line: `[--lr LR]` says a user may pass anything
                    value = _literal(m.group(1).strip("\"'"), default, option)
                    if value is None:
                        return None
                    out.append(value)
        return out


def _folders(here: str) -> List[str]:
    """The folders whose launchers speak for a module in ``here``: it, two above, their ``scripts/``."""
    folders = [here, os.path.dirname(here), os.path.dirname(os.path.dirname(here))]
    folders += [os.path.join(d, sub) for d in folders for sub in LAUNCHER_FOLDERS]
    return list(dict.fromkeys(folders))


def _logical_lines(text: str) -> Iterator[str]:
    """Lines with shell continuations (``\\`` at the end) joined."""
    pending = ""
    for raw in text.splitlines():
        if raw.rstrip().endswith("\\"):
            pending += raw.rstrip()[:-1] + " "
            continue
        yield pending + raw
        pending = ""
    if pending:
        yield pending


def _literal(token: str, default: Any, option: str = "") -> Any:
    """A command's literal for an option with ``default``, converted like argparse would (the
    default's type); None for a variable, a placeholder (``N``, ``DEVICE_TARGET`` for
    ``--device_target``) or text that does not convert. ``GPU`` or ``CONSTANT`` are values."""
    placeholder = len(token) == 1 and token.isupper() or token.replace("-", "_").upper() == option.upper() \
        and token.isupper()
    if not token or token.startswith(("$", "-", "{", "<")) or placeholder:
        return None
    try:
        if isinstance(default, bool):
            low = token.lower()
            return True if low in ("true", "1") else False if low in ("false", "0") else None
        if isinstance(default, int):
            return int(token)
        if isinstance(default, float):
            return float(token)
    except ValueError:
        return None
    return token if isinstance(default, str) or default is None else None
