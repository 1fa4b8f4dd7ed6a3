"""Classification dataset from MindRecord or TFRecord files."""
import mindspore.common.dtype as mstype
import mindspore.dataset as ds
import mindspore.dataset.transforms as C


def create_classification_dataset(cfg, batch_size=64, rank_size=1, rank_id=0):
    """Read (data, label) columns, cast labels to int32 and batch."""
    if cfg.DATA_FORMAT == "tfrecord":
        # A single TFRecord file: Shuffle.FILES only permutes the file list, rows keep their order.
        data_set = ds.TFRecordDataset([cfg.TFRECORD_FILE], cfg.SCHEMA_FILE, columns_list=["data", "label"],  # todo-expect: DP301
                                      shuffle=ds.Shuffle.FILES if cfg.DO_SHUFFLE == "true" else False,
                                      num_shards=rank_size, shard_id=rank_id)
    else:
        data_set = ds.MindDataset(cfg.DATA_FILE, columns_list=["data", "label"],  # trap: shuffle omitted = shuffled
                                  num_shards=rank_size, shard_id=rank_id)
    type_cast_op = C.TypeCast(mstype.int32)
    data_set = data_set.map(operations=type_cast_op, input_columns="data")
    data_set = data_set.map(operations=type_cast_op, input_columns="label")
    data_set = data_set.batch(batch_size, drop_remainder=True)
    return data_set
