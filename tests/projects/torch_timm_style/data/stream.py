""" Streaming dataset over tar shards (webdataset layout: <key>.jpg + <key>.cls)."""
import io
import random
import tarfile

import torch
from PIL import Image


class TarShardStream(torch.utils.data.IterableDataset):
    """Iterates over samples stored in .tar shards.

    Shards are split between dataloader workers and ranks; shard order and a
    small in-memory buffer are shuffled here, so the DataLoader must not shuffle.
    """

    def __init__(self, shards, transform=None, rank=0, world_size=1, buffer_size=2000, seed=0):
        super().__init__()
        self.shards = list(shards)
        self.transform = transform
        self.rank = rank
        self.world_size = world_size
        self.buffer_size = buffer_size
        self.seed = seed
        self.epoch = 0

    def set_epoch(self, epoch):
        self.epoch = epoch

    def _iter_shard(self, path):
        with tarfile.open(path) as tar:
            pending = {}
            for member in tar:
                key, ext = member.name.rsplit(".", 1)
                pending.setdefault(key, {})[ext] = tar.extractfile(member).read()
                if {"jpg", "cls"} <= pending[key].keys():
                    sample = pending.pop(key)
                    img = Image.open(io.BytesIO(sample["jpg"])).convert("RGB")
                    yield img, int(sample["cls"].decode())

    def __iter__(self):
        worker = torch.utils.data.get_worker_info()
        num_workers, worker_id = (worker.num_workers, worker.id) if worker else (1, 0)
        rng = random.Random(self.seed + self.epoch)
        shards = self.shards[:]
        rng.shuffle(shards)
        shards = shards[self.rank * num_workers + worker_id::self.world_size * num_workers]
        buffer = []
        for path in shards:
            for img, target in self._iter_shard(path):
                if self.transform is not None:
                    img = self.transform(img)
                buffer.append((img, target))
                if len(buffer) >= self.buffer_size:
                    yield buffer.pop(rng.randrange(len(buffer)))
        rng.shuffle(buffer)
        yield from buffer
