"""Custom training loop with dynamic loss scaling, as in the PyTorch AMP reference."""
import mindspore as ms
from mindspore import amp, nn, ops

from src import config
from src.dataset import create_dataset
from src.model import Classifier


def evaluate(net, dataset):
    net.set_train(False)
    correct = total = 0
    for images, labels in dataset.create_tuple_iterator():
        pred = net(images).argmax(1)
        correct += int((pred == labels).sum().asnumpy())
        total += labels.shape[0]
    return correct / total


def main():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    train_ds = create_dataset("data/cifar-10-batches-bin", do_train=True, batch_size=config.BATCH_SIZE)
    val_ds = create_dataset("data/cifar-10-batches-bin", do_train=False, batch_size=256)

    net = Classifier()
    loss_fn = nn.CrossEntropyLoss()
    optimizer = nn.Momentum(net.trainable_params(), config.LR, 0.9, weight_decay=config.WEIGHT_DECAY)
    loss_scaler = amp.DynamicLossScaler(config.LOSS_SCALE, 2, 1000)

    def forward_fn(images, labels):
        loss = loss_fn(net(images), labels)
        return loss_scaler.scale(loss)

    grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)

    def train_step(images, labels):
        loss, grads = grad_fn(images, labels)
        grads = ops.clip_by_global_norm(grads, config.CLIP_NORM)  # BUG: gradients are still x loss scale
        grads = loss_scaler.unscale(grads)
        if amp.all_finite(grads):
            optimizer(grads)
        return loss_scaler.unscale(loss)

    net.set_train()
    for epoch in range(config.EPOCHS):  # BUG: no mindspore.set_seed before training
        for images, labels in train_ds.create_tuple_iterator():
            loss = train_step(images, labels)  # BUG: after the first evaluate() the net stays in inference mode
        acc = evaluate(net, val_ds)
        print(f"epoch {epoch}: loss {loss.asnumpy():.4f} acc {acc:.4f}")


if __name__ == "__main__":
    main()
