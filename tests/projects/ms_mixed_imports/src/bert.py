"""BERT encoder pieces (MindSpore) driven by a HuggingFace-style BertConfig (drop probabilities)."""
import mindspore.common.dtype as mstype
import mindspore.nn as nn
import mindspore.ops as ops
from mindspore import Tensor
from mindspore.common.initializer import TruncatedNormal


class BertConfig:
    """Configuration for BERT; *_dropout_prob are probabilities of DROPPING (HF convention)."""

    def __init__(self, vocab_size=21128, hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
                 intermediate_size=3072, hidden_act="gelu", hidden_dropout_prob=0.1,
                 attention_probs_dropout_prob=0.1, max_position_embeddings=512, type_vocab_size=2,
                 initializer_range=0.02, compute_type=mstype.float32):
        self.vocab_size = vocab_size
        self.hidden_size = hidden_size
        self.num_hidden_layers = num_hidden_layers
        self.num_attention_heads = num_attention_heads
        self.intermediate_size = intermediate_size
        self.hidden_act = hidden_act
        self.hidden_dropout_prob = hidden_dropout_prob
        self.attention_probs_dropout_prob = attention_probs_dropout_prob
        self.max_position_embeddings = max_position_embeddings
        self.type_vocab_size = type_vocab_size
        self.initializer_range = initializer_range
        self.compute_type = compute_type


class BertOutput(nn.Cell):
    """dense -> dropout -> residual add -> LayerNorm."""

    def __init__(self, config):
        super(BertOutput, self).__init__()
        self.dense = nn.Dense(config.intermediate_size, config.hidden_size,
                              weight_init=TruncatedNormal(config.initializer_range)).to_float(config.compute_type)
        self.dropout = nn.Dropout(1 - config.hidden_dropout_prob)  # trap: keep_prob = 1 - drop probability
        self.layernorm = nn.LayerNorm((config.hidden_size,)).to_float(config.compute_type)

    def construct(self, hidden_status, input_tensor):
        output = self.dropout(self.dense(hidden_status))
        return self.layernorm(output + input_tensor)


class BertSelfAttention(nn.Cell):
    """Scaled dot-product self attention with an additive mask."""

    def __init__(self, config):
        super(BertSelfAttention, self).__init__()
        if config.hidden_size % config.num_attention_heads != 0:
            raise ValueError("hidden_size must be a multiple of num_attention_heads")
        self.num_heads = config.num_attention_heads
        self.head_size = config.hidden_size // config.num_attention_heads
        init = TruncatedNormal(config.initializer_range)
        self.query = nn.Dense(config.hidden_size, config.hidden_size, weight_init=init)
        self.key = nn.Dense(config.hidden_size, config.hidden_size, weight_init=init)
        self.value = nn.Dense(config.hidden_size, config.hidden_size, weight_init=init)
        self.softmax = nn.Softmax()
        self.dropout = nn.Dropout(config.attention_probs_dropout_prob)  # expect: API101
        self.scale = Tensor(1.0 / (self.head_size ** 0.5), mstype.float32)

    def _split_heads(self, x):
        b, s, _ = x.shape
        return x.reshape(b, s, self.num_heads, self.head_size).transpose(0, 2, 1, 3)

    def construct(self, hidden_states, attention_mask):
        q = self._split_heads(self.query(hidden_states))
        k = self._split_heads(self.key(hidden_states))
        v = self._split_heads(self.value(hidden_states))
        scores = ops.matmul(q, k.swapaxes(-1, -2)) * self.scale + attention_mask
        probs = self.dropout(self.softmax(scores))
        context = ops.matmul(probs, v).transpose(0, 2, 1, 3)
        b, s = context.shape[0], context.shape[1]
        return context.reshape(b, s, self.num_heads * self.head_size)
