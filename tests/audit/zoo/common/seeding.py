"""Seeding helper shared by the zoo's MindSpore projects."""
import random

import numpy as np
import mindspore as ms


def seed_everything(seed=42):
    random.seed(seed)
    np.random.seed(seed)
    ms.set_seed(seed)  # evidence: wi.03
