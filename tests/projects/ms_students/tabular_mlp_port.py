"""House-price regression MLP, ported line by line from a PyTorch notebook (flat script)."""
import argparse

import numpy as np
import pandas as pd
import mindspore as ms
import mindspore.dataset as ds
from mindspore import nn
from mindspore.train import Model, LossMonitor, MAE

parser = argparse.ArgumentParser()
parser.add_argument("--csv", default="data/houses.csv")
parser.add_argument("--epochs", type=int, default=100)
parser.add_argument("--batch_size", type=int, default=256)
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--dropout", type=float, default=0.1)
parser.add_argument("--seed", type=int, default=0)
args = parser.parse_args()

ms.manual_seed(args.seed)  # torch.manual_seed(args.seed) in the notebook
np.random.seed(args.seed)

df = pd.read_csv(args.csv)
features = df.drop(columns=["price"]).values.astype(np.float32)
target = np.log1p(df["price"].values).astype(np.float32).reshape(-1, 1)
features = (features - features.mean(0)) / (features.std(0) + 1e-6)
perm = np.random.permutation(len(features))
n_train = int(0.9 * len(features))
train_idx, test_idx = perm[:n_train], perm[n_train:]

train_ds = ds.NumpySlicesDataset((features[train_idx], target[train_idx]), column_names=["x", "y"], shuffle=True)
train_ds = train_ds.batch(args.batch_size)
test_ds = ds.NumpySlicesDataset((features[test_idx], target[test_idx]), column_names=["x", "y"],  # trap: test split
                                shuffle=False)
test_ds = test_ds.batch(args.batch_size)


class MLP(nn.Cell):
    def __init__(self, in_dim, hidden=256, dropout=0.1):
        super().__init__()
        self.net = nn.SequentialCell([
            nn.Dense(in_dim, hidden),
            nn.BatchNorm1d(hidden, momentum=0.1),  # expect: API121
            nn.ReLU(),
            # "MindSpore Dropout takes keep_prob", so the keyword was renamed -- but the value was not
            nn.Dropout(keep_prob=dropout),  # todo-expect: API101
            nn.Dense(hidden, hidden // 2),
            nn.BatchNorm1d(hidden // 2),
            nn.ReLU(),
            nn.Dense(hidden // 2, 1),
        ])

    def construct(self, x):
        return self.net(x)


net = MLP(features.shape[1], dropout=args.dropout)
loss = nn.MSELoss()
opt = nn.Adam(net.trainable_params(), learning_rate=args.lr)
model = Model(net, loss_fn=loss, optimizer=opt, metrics={"mae": MAE()})
model.train(args.epochs, train_ds, callbacks=[LossMonitor(50)], dataset_sink_mode=False)  # expect: WI301
print("test:", model.eval(test_ds, dataset_sink_mode=False))
