"""FastText-style text classifier and its loss wrapper."""
import mindspore.nn as nn
import mindspore.ops as ops
from mindspore.common.initializer import TruncatedNormal


class FastTextClassifier(nn.Cell):
    """Embedding -> mean pooling -> dense -> dropout -> LayerNorm -> classifier."""

    def __init__(self, vocab_size, embed_dim, num_classes, hidden_dropout_prob=0.1):
        super(FastTextClassifier, self).__init__()
        self.embedding = nn.Embedding(vocab_size, embed_dim, embedding_table=TruncatedNormal(0.02))
        self.dense = nn.Dense(embed_dim, embed_dim, weight_init=TruncatedNormal(0.02), activation="tanh")
        self.dropout = nn.Dropout(1 - hidden_dropout_prob)  # trap: keep_prob = 1 - drop probability
        self.layernorm = nn.LayerNorm((embed_dim,), epsilon=1e-12)
        self.classifier = nn.Dense(embed_dim, num_classes, weight_init=TruncatedNormal(0.02))
        self.reduce_mean = ops.ReduceMean()

    def construct(self, input_ids):
        emb = self.embedding(input_ids)
        pooled = self.reduce_mean(emb, 1)
        hidden = self.layernorm(self.dropout(self.dense(pooled)))
        return self.classifier(hidden)


class ClassifierWithLoss(nn.Cell):
    """Backbone + sparse softmax cross entropy."""

    def __init__(self, backbone):
        super(ClassifierWithLoss, self).__init__(auto_prefix=False)
        self.backbone = backbone
        self.loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction='mean')

    def construct(self, data, label):
        logits = self.backbone(data)
        return self.loss(logits, label)
