"""Fine-tuning configuration (module constants)."""
SEED = 1

# data
DATA_FORMAT = "mindrecord"          # "mindrecord" or "tfrecord"
DATA_FILE = "/cache/data/tnews/train.mindrecord"
TFRECORD_FILE = "/cache/data/tnews/train.tf_record"
SCHEMA_FILE = "/cache/data/tnews/schema.json"
DO_SHUFFLE = "true"
BATCH_SIZE = 64
EPOCH_SIZE = 3

# network
VOCAB_SIZE = 21128
EMBED_DIM = 256
NUM_CLASSES = 15
HIDDEN_DROPOUT_PROB = 0.1

# optimizer / loss scale
LEARNING_RATE = 2e-5
LOSS_SCALE_VALUE = 2 ** 16
SCALE_FACTOR = 2
SCALE_WINDOW = 1000

# "bert" | "finetune" | "pangu" | "div" | "value_clip" | "manual_sens" | "plain"
TRAIN_CELL = "bert"
