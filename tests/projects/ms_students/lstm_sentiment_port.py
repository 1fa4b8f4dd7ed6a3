"""Bi-LSTM sentiment classifier on IMDB (.jsonl token ids), ported from a PyTorch script that used
an IterableDataset + DataLoader. Custom training loop."""
import argparse
import json

import numpy as np
import mindspore as ms
import mindspore.dataset as ds
from mindspore import nn, ops


class JsonlStream:
    """Streams (token_ids, label) from a .jsonl file (was `class JsonlStream(IterableDataset)`)."""

    def __init__(self, path, max_len=256):
        self.path = path
        self.max_len = max_len

    def __iter__(self):
        with open(self.path, encoding="utf-8") as f:
            for line in f:
                item = json.loads(line)
                ids = item["ids"][: self.max_len]
                ids = ids + [0] * (self.max_len - len(ids))
                yield np.array(ids, np.int32), np.array(item["label"], np.int32)


def create_dataset(path, batch_size, max_len=256):
    data_set = ds.GeneratorDataset(JsonlStream(path, max_len), column_names=["ids", "label"])  # expect: DP301
    return data_set.batch(batch_size, drop_remainder=False)


class SentimentNet(nn.Cell):
    """torch: nn.LSTM(..., dropout=dropout) and nn.Dropout(dropout) with dropout=0.3."""

    def __init__(self, vocab_size, embed_size=128, hidden_size=128, num_layers=2, num_classes=2, dropout=0.3):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_size, padding_idx=0)
        self.encoder = nn.LSTM(embed_size, hidden_size, num_layers=num_layers, batch_first=True,  # trap: LSTM dropout is a drop probability
                               bidirectional=True, dropout=dropout)
        self.dropout = nn.Dropout(dropout)  # expect: API101
        self.decoder = nn.Dense(hidden_size * 4, num_classes)

    def construct(self, inputs):
        embeddings = self.embedding(inputs)
        outputs, _ = self.encoder(embeddings)
        encoding = ops.concat((outputs[:, 0], outputs[:, -1]), axis=1)
        return self.decoder(self.dropout(encoding))


def evaluate(net, dataset):
    net.set_train(False)
    correct, total = 0, 0
    for ids, label in dataset.create_tuple_iterator():
        pred = net(ids).argmax(1)  # trap: set_train(False) above
        correct += int((pred == label).sum().asnumpy())
        total += label.shape[0]
    return correct / total


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--train_file", default="data/imdb_train.jsonl")
    parser.add_argument("--test_file", default="data/imdb_test.jsonl")
    parser.add_argument("--vocab_size", type=int, default=30000)
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--seed", type=int, default=1234)
    args = parser.parse_args()

    ms.set_seed(args.seed)
    train_ds = create_dataset(args.train_file, args.batch_size)
    test_ds = create_dataset(args.test_file, 256)
    net = SentimentNet(args.vocab_size)
    loss_fn = nn.CrossEntropyLoss()
    optimizer = nn.Adam(net.trainable_params(), learning_rate=args.lr)

    def forward_fn(ids, label):
        return loss_fn(net(ids), label)

    grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)

    for epoch in range(args.epochs):
        net.set_train()
        for step, (ids, label) in enumerate(train_ds.create_tuple_iterator()):
            loss, grads = grad_fn(ids, label)  # trap: set_train() at the top of each epoch
            grads = ops.clip_by_global_norm(grads, 5.0)  # trap: no loss scaling, nothing to unscale
            optimizer(grads)
            if step % 100 == 0:
                print(f"epoch {epoch} step {step} loss {loss.asnumpy():.4f}")
        print(f"epoch {epoch}: test acc {evaluate(net, test_ds):.4f}")


if __name__ == "__main__":
    main()
