"""What the files beside an entry script say about how it is launched (linter/program/launchers.py)."""
from __future__ import annotations

import os
from typing import Dict, Optional, Tuple

import pytest

from linter.program.launchers import Launchers


def _launchers(files: Dict[str, str]) -> Launchers:
    """Launchers over an in-memory tree rooted at /p."""
    data = {os.path.join("/p", k): v.encode("utf-8") for k, v in files.items()}

    def read(path: str) -> Optional[bytes]:
        return data.get(path)

    def listdir(folder: str) -> Tuple[str, ...]:
        prefix = folder.rstrip("/") + "/"
        return tuple(sorted({p[len(prefix):].split("/")[0] for p in data if p.startswith(prefix)}))

    return Launchers(read, listdir)


@pytest.mark.parametrize("name,text", [
    ("scripts/run_distribute_train.sh", "export RANK_SIZE=8\npython train.py\n"),
    ("scripts/run.sh", "msrun --worker_num=8 python train.py\n"),
    ("run.sh", "mpirun -n 4 python train.py\n"),
    ("README.md", "Multi-GPU training: `python -m torch.distributed.launch --nproc_per_node 4 train.py`\n"),
    ("README.md", "## 分布式训练\n"),
    ("README.md", "Distributed training on 8 devices is supported.\n"),
    ("config.yaml", "device_num: 1\nlr: 0.1\n"),
])
def test_a_mention_of_several_devices_counts(name: str, text: str) -> None:
    launchers = _launchers({"proj/train.py": "", f"proj/{name}": text})
    assert launchers.launches_multi_device("/p/proj/train.py")


def test_a_project_silent_on_devices_is_single_device() -> None:
    launchers = _launchers({
        "proj/train.py": "",
        "proj/README.md": "# A GAN\nRun `python train.py --epochs 10`. The data distribution is Gaussian.\n",
        # governance documents of the repository speak for MindSpore, not for this project
        "SECURITY.md": "MindSpore is a distributed training platform.\n",
        "CONTRIBUTING.md": "Run distributed training tests before a pull request.\n",
    })
    assert not launchers.launches_multi_device("/p/proj/train.py")


def test_files_more_than_two_folders_up_do_not_speak_for_the_module() -> None:
    launchers = _launchers({"a/b/c/train.py": "", "run.sh": "msrun python a/b/c/train.py\n"})
    assert not launchers.launches_multi_device("/p/a/b/c/train.py")
    assert launchers.launches_multi_device("/p/a/b/train.py")


@pytest.mark.parametrize("name,text", [
    ("README.md", "A MindSpore port of the PyTorch implementation.\n"),
    ("README_CN.md", "基于PyTorch版本迁移\n"),
    ("README.md", "Paper: [Deep Residual Learning](https://arxiv.org/abs/1512.03385)\n"),
    ("README_CN.md", "本项目复现论文中的模型\n"),
    ("convert.py", "import torch\nstate = torch.load('r.pth')\n"),
    ("../notes.txt", "weights converted from pytorch\n"),
])
def test_a_port_shows_by_pytorch_or_a_cited_paper(name: str, text: str) -> None:
    launchers = _launchers({"proj/src/net.py": "", os.path.normpath(f"proj/src/{name}"): text})
    assert launchers.shows_port("/p/proj/src/net.py", "/p/proj")


@pytest.mark.parametrize("name,text", [
    ("README.md", "LeNet5 on MNIST with MindSpore.\n"),
    ("train.py", "import mindtorch\nfrom pytorch_lightning import x\n"),    # other packages' names
    ("config.yaml", "paper: 0.1\n"),                                          # paper words count in documents only
    ("../../README.md", "A port of the PyTorch code.\n"),                    # above the project root
])
def test_native_code_shows_no_port(name: str, text: str) -> None:
    launchers = _launchers({"proj/src/net.py": "", os.path.normpath(f"proj/src/{name}"): text})
    assert not launchers.shows_port("/p/proj/src/net.py", "/p/proj")
