"""Generate ``rules/apis/<framework>.signatures.yaml`` from the installed frameworks.

Run in an environment with MindSpore, PyTorch and TensorFlow installed (see docs/rule-language.md,
"Framework facts")::

    python tests/frameworks/gen_api_tables.py            # rewrite the tables
    python tests/frameworks/gen_api_tables.py --check    # exit 1 if they differ

Each entry records the kind (class/function/method), the signature in the compact form
``rules/apis`` uses, the framework bases (for ``isinstance``-style matching) and where the
object is really defined (so deep imports such as ``mindspore.nn.layer.basic.Dropout``
resolve to the public name). Semantics that introspection cannot see (return kinds,
version ranges, aliases) are written by hand in ``rules/apis/<framework>.yaml``.

The names come from two sources: the hand lists below (functions, methods and classes chosen one
by one; written first, in their order) and ``ENUMERATED``, the framework namespaces whose public
classes are all listed (every optimizer, learning-rate scheduler, loss and layer), sorted by name
within each namespace. ``missing`` lists hand-listed names and enumerated modules that the installed
library does not have.
"""
from __future__ import annotations

import argparse
import importlib
import inspect
import os
import sys
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
APIS_DIR = os.path.join(HERE, "..", "..", "rules", "apis")

MINDSPORE = """
mindspore.set_seed mindspore.manual_seed mindspore.set_context mindspore.set_deterministic
mindspore.load_checkpoint mindspore.load_param_into_net mindspore.save_checkpoint mindspore.jit
mindspore.Tensor mindspore.Parameter
mindspore.communication.init mindspore.communication.get_rank mindspore.communication.get_group_size
mindspore.nn.Cell mindspore.nn.Cell.set_train mindspore.nn.Cell.construct mindspore.nn.Cell.to_float
mindspore.nn.Cell.trainable_params mindspore.nn.Cell.set_grad
mindspore.nn.Dropout mindspore.nn.Dropout1d mindspore.nn.Dropout2d mindspore.nn.Dropout3d
mindspore.nn.Conv1d mindspore.nn.Conv2d mindspore.nn.Conv3d mindspore.nn.Conv1dTranspose
mindspore.nn.Conv2dTranspose mindspore.nn.Conv3dTranspose mindspore.nn.Dense
mindspore.nn.BatchNorm1d mindspore.nn.BatchNorm2d mindspore.nn.BatchNorm3d mindspore.nn.SyncBatchNorm
mindspore.nn.LayerNorm mindspore.nn.GroupNorm mindspore.nn.InstanceNorm1d mindspore.nn.InstanceNorm2d
mindspore.nn.InstanceNorm3d
mindspore.nn.MaxPool1d mindspore.nn.MaxPool2d mindspore.nn.MaxPool3d mindspore.nn.AvgPool1d
mindspore.nn.AvgPool2d mindspore.nn.AvgPool3d mindspore.nn.AdaptiveAvgPool2d mindspore.nn.AdaptiveMaxPool2d
mindspore.nn.ReLU mindspore.nn.ReLU6 mindspore.nn.GELU mindspore.nn.SiLU mindspore.nn.Sigmoid mindspore.nn.Tanh
mindspore.nn.LeakyReLU mindspore.nn.PReLU mindspore.nn.HSwish mindspore.nn.HSigmoid mindspore.nn.Softmax
mindspore.nn.LogSoftmax mindspore.nn.ELU mindspore.nn.Mish
mindspore.nn.Flatten mindspore.nn.Identity mindspore.nn.SequentialCell mindspore.nn.CellList mindspore.nn.Upsample
mindspore.nn.Embedding mindspore.nn.LSTM mindspore.nn.GRU mindspore.nn.RNN mindspore.nn.MultiheadAttention
mindspore.nn.TransformerEncoderLayer mindspore.nn.TransformerDecoderLayer mindspore.nn.Transformer
mindspore.nn.TrainOneStepCell mindspore.nn.TrainOneStepWithLossScaleCell mindspore.nn.WithLossCell
mindspore.nn.WithEvalCell mindspore.nn.DynamicLossScaleUpdateCell mindspore.nn.FixedLossScaleUpdateCell
mindspore.nn.SoftmaxCrossEntropyWithLogits mindspore.nn.CrossEntropyLoss mindspore.nn.BCEWithLogitsLoss
mindspore.nn.BCELoss mindspore.nn.MSELoss mindspore.nn.L1Loss mindspore.nn.SmoothL1Loss mindspore.nn.NLLLoss
mindspore.nn.Momentum mindspore.nn.SGD mindspore.nn.Adam mindspore.nn.AdamWeightDecay mindspore.nn.RMSProp
mindspore.nn.Adagrad mindspore.nn.AdaMax mindspore.nn.Lamb mindspore.nn.LARS mindspore.nn.Optimizer
mindspore.nn.ClipByNorm mindspore.nn.Accuracy
mindspore.mint.nn.Dropout mindspore.mint.nn.Conv2d mindspore.mint.nn.BatchNorm1d mindspore.mint.nn.BatchNorm2d
mindspore.mint.nn.BatchNorm3d mindspore.mint.nn.LayerNorm mindspore.mint.nn.Linear mindspore.mint.nn.GELU
mindspore.mint.nn.MaxPool2d mindspore.mint.nn.Embedding mindspore.mint.nn.functional.dropout
mindspore.mint.optim.AdamW
mindspore.ops.dropout mindspore.ops.Dropout mindspore.ops.clip_by_global_norm mindspore.ops.clip_by_norm
mindspore.ops.clip_by_value mindspore.ops.gelu mindspore.ops.avg_pool2d mindspore.ops.max_pool2d
mindspore.ops.value_and_grad mindspore.ops.grad mindspore.ops.GradOperation mindspore.ops.HyperMap
mindspore.ops.Map mindspore.ops.MultitypeFuncGraph mindspore.ops.partial mindspore.ops.cast
mindspore.ops.reciprocal mindspore.ops.Reciprocal mindspore.ops.ones_like mindspore.ops.fill
mindspore.ops.depend mindspore.ops.interpolate mindspore.ops.leaky_relu mindspore.ops.kl_div
mindspore.ops.multinomial mindspore.ops.sigmoid mindspore.ops.softmax mindspore.ops.stop_gradient
mindspore.ops.AllReduce mindspore.ops.div mindspore.ops.mul
mindspore.amp.DynamicLossScaler mindspore.amp.DynamicLossScaler.scale mindspore.amp.DynamicLossScaler.unscale
mindspore.amp.DynamicLossScaler.adjust mindspore.amp.StaticLossScaler mindspore.amp.StaticLossScaler.scale
mindspore.amp.StaticLossScaler.unscale mindspore.amp.DynamicLossScaleManager mindspore.amp.FixedLossScaleManager
mindspore.amp.all_finite mindspore.amp.build_train_network mindspore.amp.auto_mixed_precision
mindspore.train.Model mindspore.train.Model.train mindspore.train.Model.eval mindspore.train.Model.predict
mindspore.train.Model.fit mindspore.train.ModelCheckpoint mindspore.train.LossMonitor
mindspore.dataset.Dataset mindspore.dataset.Dataset.batch mindspore.dataset.Dataset.shuffle
mindspore.dataset.Dataset.map mindspore.dataset.Dataset.repeat mindspore.dataset.Dataset.split
mindspore.dataset.Dataset.project mindspore.dataset.Dataset.rename mindspore.dataset.Dataset.take
mindspore.dataset.Dataset.skip mindspore.dataset.Dataset.zip mindspore.dataset.Dataset.concat
mindspore.dataset.Dataset.filter mindspore.dataset.Dataset.padded_batch mindspore.dataset.Dataset.bucket_batch_by_length
mindspore.dataset.Dataset.create_dict_iterator mindspore.dataset.Dataset.create_tuple_iterator
mindspore.dataset.Dataset.get_dataset_size
mindspore.dataset.MappableDataset mindspore.dataset.SourceDataset
mindspore.dataset.Cifar10Dataset mindspore.dataset.Cifar100Dataset mindspore.dataset.MnistDataset
mindspore.dataset.FashionMnistDataset mindspore.dataset.ImageFolderDataset mindspore.dataset.MindDataset
mindspore.dataset.TFRecordDataset mindspore.dataset.GeneratorDataset mindspore.dataset.NumpySlicesDataset
mindspore.dataset.CocoDataset mindspore.dataset.VOCDataset mindspore.dataset.CSVDataset
mindspore.dataset.TextFileDataset mindspore.dataset.CelebADataset mindspore.dataset.ManifestDataset
mindspore.dataset.RandomSampler mindspore.dataset.SequentialSampler mindspore.dataset.DistributedSampler
mindspore.dataset.PKSampler mindspore.dataset.SubsetRandomSampler mindspore.dataset.WeightedRandomSampler
mindspore.dataset.SubsetSampler mindspore.dataset.config.set_seed
mindspore.dataset.vision.Normalize mindspore.dataset.vision.Rescale mindspore.dataset.vision.Resize
mindspore.dataset.vision.RandomCrop mindspore.dataset.vision.RandomHorizontalFlip mindspore.dataset.vision.HWC2CHW
mindspore.dataset.vision.Decode mindspore.dataset.vision.CenterCrop mindspore.dataset.vision.RandomResizedCrop
mindspore.dataset.vision.RandomCropDecodeResize mindspore.dataset.vision.ToTensor
mindspore.dataset.transforms.TypeCast mindspore.dataset.transforms.Compose
mindspore.common.initializer.Normal mindspore.common.initializer.Uniform mindspore.common.initializer.HeUniform
mindspore.common.initializer.HeNormal mindspore.common.initializer.XavierUniform mindspore.common.initializer.Zero
mindspore.common.initializer.One mindspore.common.initializer.Constant mindspore.common.initializer.TruncatedNormal
mindspore.common.initializer.initializer
"""

PYTORCH = """
torch.manual_seed torch.random.manual_seed torch.cuda.manual_seed torch.cuda.manual_seed_all torch.seed
torch.use_deterministic_algorithms torch.no_grad torch.inference_mode torch.enable_grad torch.load torch.save
torch.multinomial torch.compile
torch.nn.Module torch.nn.Module.train torch.nn.Module.eval torch.nn.Module.forward torch.nn.Module.load_state_dict
torch.nn.Module.parameters torch.nn.Module.requires_grad_
torch.nn.Dropout torch.nn.Dropout1d torch.nn.Dropout2d torch.nn.Dropout3d torch.nn.AlphaDropout
torch.nn.Conv1d torch.nn.Conv2d torch.nn.Conv3d torch.nn.ConvTranspose1d torch.nn.ConvTranspose2d
torch.nn.ConvTranspose3d torch.nn.Linear
torch.nn.BatchNorm1d torch.nn.BatchNorm2d torch.nn.BatchNorm3d torch.nn.SyncBatchNorm torch.nn.LayerNorm
torch.nn.GroupNorm torch.nn.InstanceNorm1d torch.nn.InstanceNorm2d torch.nn.InstanceNorm3d
torch.nn.MaxPool1d torch.nn.MaxPool2d torch.nn.MaxPool3d torch.nn.AvgPool1d torch.nn.AvgPool2d torch.nn.AvgPool3d
torch.nn.AdaptiveAvgPool2d torch.nn.AdaptiveMaxPool2d
torch.nn.ReLU torch.nn.ReLU6 torch.nn.GELU torch.nn.SiLU torch.nn.Sigmoid torch.nn.Tanh torch.nn.LeakyReLU
torch.nn.PReLU torch.nn.Hardswish torch.nn.Hardsigmoid torch.nn.Softmax torch.nn.LogSoftmax torch.nn.ELU
torch.nn.Mish
torch.nn.Flatten torch.nn.Identity torch.nn.Sequential torch.nn.ModuleList torch.nn.Upsample
torch.nn.Embedding torch.nn.LSTM torch.nn.GRU torch.nn.RNN torch.nn.MultiheadAttention
torch.nn.TransformerEncoderLayer torch.nn.TransformerDecoderLayer torch.nn.Transformer
torch.nn.CrossEntropyLoss torch.nn.BCEWithLogitsLoss torch.nn.BCELoss torch.nn.MSELoss torch.nn.L1Loss
torch.nn.SmoothL1Loss torch.nn.NLLLoss torch.nn.KLDivLoss
torch.nn.functional.dropout torch.nn.functional.dropout1d torch.nn.functional.dropout2d
torch.nn.functional.dropout3d torch.nn.functional.alpha_dropout torch.nn.functional.gelu
torch.nn.functional.leaky_relu torch.nn.functional.interpolate torch.nn.functional.kl_div
torch.nn.functional.cross_entropy torch.nn.functional.softmax torch.nn.functional.normalize
torch.nn.utils.clip_grad_norm_ torch.nn.utils.clip_grad_value_ torch.nn.utils.clip_grads_with_norm_
torch.optim.Optimizer torch.optim.Optimizer.step torch.optim.Optimizer.zero_grad
torch.optim.SGD torch.optim.Adam torch.optim.AdamW torch.optim.RMSprop torch.optim.Adagrad torch.optim.Adamax
torch.optim.lr_scheduler.StepLR torch.optim.lr_scheduler.CosineAnnealingLR torch.optim.lr_scheduler.MultiStepLR
torch.optim.lr_scheduler.OneCycleLR
torch.amp.GradScaler torch.amp.GradScaler.scale torch.amp.GradScaler.unscale_ torch.amp.GradScaler.step
torch.amp.GradScaler.update torch.amp.autocast torch.cuda.amp.GradScaler torch.cuda.amp.autocast
torch.utils.data.DataLoader torch.utils.data.Dataset torch.utils.data.IterableDataset
torch.utils.data.RandomSampler torch.utils.data.SequentialSampler torch.utils.data.SubsetRandomSampler
torch.utils.data.WeightedRandomSampler torch.utils.data.BatchSampler torch.utils.data.distributed.DistributedSampler
torch.utils.data.random_split torch.utils.data.Subset torch.utils.data.TensorDataset torch.utils.data.ConcatDataset
torch.distributed.init_process_group torch.nn.parallel.DistributedDataParallel torch.nn.DataParallel
"""

TENSORFLOW = """
tensorflow.random.set_seed tensorflow.keras.utils.set_random_seed tensorflow.compat.v1.set_random_seed
tensorflow.config.experimental.enable_op_determinism
tensorflow.nn.dropout tensorflow.compat.v1.nn.dropout tensorflow.clip_by_global_norm tensorflow.clip_by_norm
tensorflow.clip_by_value tensorflow.GradientTape tensorflow.GradientTape.gradient tensorflow.function
tensorflow.data.Dataset tensorflow.data.Dataset.from_tensor_slices tensorflow.data.Dataset.from_tensors
tensorflow.data.Dataset.from_generator tensorflow.data.Dataset.list_files tensorflow.data.Dataset.range
tensorflow.data.Dataset.shuffle tensorflow.data.Dataset.batch tensorflow.data.Dataset.map
tensorflow.data.Dataset.repeat tensorflow.data.Dataset.prefetch tensorflow.data.Dataset.cache
tensorflow.data.Dataset.take tensorflow.data.Dataset.skip tensorflow.data.Dataset.interleave
tensorflow.data.Dataset.filter tensorflow.data.Dataset.padded_batch tensorflow.data.Dataset.unbatch
tensorflow.data.Dataset.zip tensorflow.data.Dataset.concatenate
tensorflow.data.TFRecordDataset tensorflow.data.TextLineDataset
keras.Model keras.Model.fit keras.Model.evaluate keras.Model.predict keras.Model.compile keras.Sequential
keras.layers.Layer keras.layers.Dropout keras.layers.SpatialDropout1D keras.layers.SpatialDropout2D
keras.layers.SpatialDropout3D keras.layers.Conv1D keras.layers.Conv2D keras.layers.Conv3D
keras.layers.Conv2DTranspose keras.layers.Dense keras.layers.BatchNormalization keras.layers.LayerNormalization
keras.layers.GroupNormalization keras.layers.MaxPooling2D keras.layers.AveragePooling2D keras.layers.LeakyReLU
keras.layers.PReLU keras.layers.LSTM keras.layers.GRU keras.layers.Embedding keras.layers.MultiHeadAttention
keras.layers.Activation keras.layers.ReLU keras.layers.Softmax keras.layers.Flatten keras.layers.Rescaling
keras.layers.Normalization keras.layers.RandomFlip keras.layers.RandomRotation keras.layers.RandomCrop
keras.layers.GlobalAveragePooling2D keras.layers.Input
keras.optimizers.Optimizer keras.optimizers.SGD keras.optimizers.Adam keras.optimizers.AdamW keras.optimizers.RMSprop
keras.mixed_precision.LossScaleOptimizer keras.mixed_precision.LossScaleOptimizer.scale_loss
keras.mixed_precision.set_global_policy
keras.losses.SparseCategoricalCrossentropy keras.losses.CategoricalCrossentropy keras.losses.BinaryCrossentropy
keras.losses.MeanSquaredError keras.losses.Huber
keras.utils.set_random_seed keras.utils.image_dataset_from_directory
"""

FRAMEWORKS = {"mindspore": MINDSPORE, "pytorch": PYTORCH, "tensorflow": TENSORFLOW}


@dataclass(frozen=True)
class Enumerate:
    """A namespace whose public classes (or functions) are all listed, keyed ``<module>.<name>``."""

    module: str
    bases: Tuple[str, ...] = ()
    """A class is listed when it derives from one of these (itself included); empty: every class."""
    functions: bool = False
    """List the public functions instead of the classes."""
    names_from: str = ""
    """Take the names from this module's ``__all__`` (the objects and keys stay those of ``module``)."""
    every_public: bool = False
    """Every public attribute, not only ``__all__`` (for a module whose ``__all__`` is incomplete)."""


# Order matters where one object has several public names: the first name listed is the one
# that the object's defining module path canonicalises to and that other classes name as a base
# (``mindspore.nn.SoftMarginLoss`` before ``mindspore.mint.nn.SoftMarginLoss``, the same class).
# A name that would only canonicalise to another listed name of the same object is left out
# (``mindspore.nn.learning_rate_schedule.CosineDecayLR`` is ``mindspore.nn.CosineDecayLR``), and so
# is one that would make an already listed name canonicalise to it (``torch.utils.data.DistributedSampler``
# is defined as the hand-listed ``torch.utils.data.distributed.DistributedSampler``).
ENUMERATED: Dict[str, Tuple[Enumerate, ...]] = {
    "pytorch": (
        Enumerate("torch.optim", bases=("torch.optim.Optimizer",)),
        Enumerate("torch.optim.lr_scheduler"),
        Enumerate("torch.nn", bases=("torch.nn.Module",)),
        Enumerate("torch.utils.data", bases=("torch.utils.data.Dataset", "torch.utils.data.Sampler",
                                             "torch.utils.data.DataLoader")),
    ),
    "mindspore": (
        Enumerate("mindspore.nn", bases=("mindspore.nn.Cell",)),
        Enumerate("mindspore.nn", functions=True, names_from="mindspore.nn.dynamic_lr"),
        # the learning-rate schedules' base class is public only in its own module
        Enumerate("mindspore.nn.learning_rate_schedule", bases=("mindspore.nn.Cell",), every_public=True),
        # mindspore.mint.nn.__all__ omits some layers it exports (Dropout, Dropout2d, LayerNorm...)
        Enumerate("mindspore.mint.nn", bases=("mindspore.nn.Cell",), every_public=True),
        Enumerate("mindspore.mint.optim"),
        # the base class of mindspore.mint.optim's optimizers, and its optimizers and schedulers
        Enumerate("mindspore.experimental.optim"),
        Enumerate("mindspore.experimental.optim.lr_scheduler"),
    ),
    "tensorflow": (
        # Keras 3 first; tf.keras adds legacy layers (keys are canonical: keras.layers.RandomHeight)
        Enumerate("keras.layers", bases=("keras.layers.Layer",)),
        Enumerate("keras.optimizers", bases=("keras.optimizers.Optimizer",)),
        Enumerate("keras.optimizers.schedules", bases=("keras.optimizers.schedules.LearningRateSchedule",)),
        Enumerate("keras.losses", bases=("keras.losses.Loss",)),
        Enumerate("tensorflow.keras.layers", bases=("keras.layers.Layer",)),
        Enumerate("tensorflow.keras.optimizers", bases=("keras.optimizers.Optimizer",)),
        Enumerate("tensorflow.keras.optimizers.schedules",
                  bases=("keras.optimizers.schedules.LearningRateSchedule",)),
        Enumerate("tensorflow.keras.losses", bases=("keras.losses.Loss",)),
    ),
}


def _resolve(qual: str) -> Tuple[Any, Optional[Any]]:
    """Import the object behind ``qual``; for ``Class.method`` also return the class."""
    parts = qual.split(".")
    for i in range(len(parts), 0, -1):
        try:
            mod = importlib.import_module(".".join(parts[:i]))
        except Exception:
            continue
        obj: Any = mod
        owner = None
        for p in parts[i:]:
            owner = obj
            obj = getattr(obj, p)
        return obj, owner if inspect.isclass(owner) else None
    raise ImportError(qual)


def _default(v: Any) -> str:
    if v is None or isinstance(v, (bool, int, float, str)):
        return repr(v)
    if isinstance(v, tuple) and all(x is None or isinstance(x, (bool, int, float, str)) for x in v):
        return repr(v)
    text = repr(v)
    if len(text) > 60 or "\n" in text or text.startswith("<"):
        text = type(v).__name__
    return "=" + text


def _unwrapped_signature(obj: Any) -> inspect.Signature:
    """Signature of ``obj``; looks through decorators that hide it behind ``(*args, **kwargs)``.

    MindSpore registers optimizer ``__init__`` arguments with a decorator whose wrapper does
    not use ``functools.wraps``; the real function is in the wrapper's closure.
    """
    sig = inspect.signature(obj)
    kinds = [p.kind for p in sig.parameters.values() if p.name not in ("self", "cls")]
    if kinds == [inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD]:
        target = obj.__init__ if inspect.isclass(obj) else obj
        for cell in getattr(target, "__closure__", None) or ():
            inner = cell.cell_contents
            if callable(inner) and not inspect.isclass(inner):
                try:
                    isig = inspect.signature(inner)
                except (TypeError, ValueError):
                    continue
                params = list(isig.parameters.values())
                if params and params[0].name == "self":
                    params = params[1:]
                if params and [p.kind for p in params] != kinds:
                    return isig.replace(parameters=params)
    return sig


def _params(obj: Any, drop_first: bool) -> Optional[List[str]]:
    try:
        sig = _unwrapped_signature(obj)
    except (TypeError, ValueError):
        return None
    out: List[str] = []
    params = list(sig.parameters.values())
    if drop_first and params and params[0].name in ("self", "cls"):
        params = params[1:]
    saw_kwonly = False
    saw_posonly = False
    for p in params:
        if p.kind is p.POSITIONAL_ONLY:
            saw_posonly = True
        elif saw_posonly:
            out.append("/")
            saw_posonly = False
        if p.kind is p.VAR_POSITIONAL:
            out.append("*" + p.name)
            saw_kwonly = True
            continue
        if p.kind is p.VAR_KEYWORD:
            out.append("**" + p.name)
            continue
        if p.kind is p.KEYWORD_ONLY and not saw_kwonly:
            out.append("*")
            saw_kwonly = True
        if p.default is p.empty:
            out.append(p.name)
        else:
            out.append(f"{p.name}={_default(p.default)}")
    if saw_posonly:
        out.append("/")
    return out


def canonical_prefix(framework: str, qual: str) -> str:
    if framework == "tensorflow" and qual.startswith("tensorflow.keras."):
        return "keras." + qual[len("tensorflow.keras."):]
    return qual


def _public_names(spec: Enumerate) -> List[str]:
    listed = getattr(importlib.import_module(spec.names_from or spec.module), "__all__", None)
    module = importlib.import_module(spec.module)
    public = [n for n in dir(module) if not n.startswith("_")]
    names = set(public) if listed is None else set(listed)
    if spec.every_public:
        names |= set(public)
    return sorted(names)


def _enumerate(spec: Enumerate) -> List[Tuple[str, Any]]:
    """(qualified name, object) of the classes or functions ``spec`` lists, sorted by name."""
    module = importlib.import_module(spec.module)
    bases = tuple(_resolve(b)[0] for b in spec.bases)
    out: List[Tuple[str, Any]] = []
    for name in _public_names(spec):
        obj = getattr(module, name, None)
        if spec.functions:
            if not inspect.isfunction(obj):
                continue
        elif not inspect.isclass(obj) or (bases and not issubclass(obj, bases)):
            continue
        out.append((f"{spec.module}.{name}", obj))
    return out


def _defined(obj: Any) -> str:
    return f"{getattr(obj, '__module__', '')}.{getattr(obj, '__qualname__', '')}"


def _entry(obj: Any, owner: Optional[Any], key: str) -> Dict[str, Any]:
    entry: Dict[str, Any] = {}
    if inspect.isclass(obj):
        entry["kind"] = "class"
        params = _params(obj, False)
    elif owner is not None:
        entry["kind"] = "method"
        params = _params(obj, True)
    else:
        entry["kind"] = "function"
        params = _params(obj, False)
    if params is not None:
        entry["params"] = params
    defined = _defined(obj)
    if entry["kind"] != "method" and defined.strip(".") and defined != key:
        entry["defined_in"] = defined
    return entry


def generate(framework: str) -> Dict[str, Any]:
    names = FRAMEWORKS[framework].split()
    objects: Dict[str, Any] = {}
    apis: Dict[str, Any] = {}
    missing: List[str] = []
    keyed: Dict[int, str] = {}
    """id(object) -> its first key: the name bases are given by."""
    for qual in names:
        try:
            obj, owner = _resolve(qual)
        except Exception:
            missing.append(qual)
            continue
        key = canonical_prefix(framework, qual)
        entry = _entry(obj, owner, key)
        if entry["kind"] == "class":
            objects[key] = obj
            keyed.setdefault(id(obj), key)
        apis[key] = entry
    for spec in ENUMERATED.get(framework, ()):
        try:
            found = _enumerate(spec)
            spec_bases = {id(_resolve(b)[0]) for b in spec.bases}
        except Exception:
            missing.append(spec.module)
            continue
        for qual, obj in found:
            key = canonical_prefix(framework, qual)
            if key in apis:
                continue
            if id(obj) in keyed:
                defined = _defined(obj)
                # a base class imported for the module's own use (mindspore.mint.nn.Cell), or a
                # name that is, or would redirect, another listed name of the object
                if id(obj) in spec_bases or key == defined or defined in apis:
                    continue
            entry = _entry(obj, None, key)
            if entry["kind"] == "class":
                objects[key] = obj
                keyed.setdefault(id(obj), key)
            apis[key] = entry
    for key, obj in objects.items():
        bases = []
        for b in obj.__mro__[1:]:
            name = keyed.get(id(b))
            if name is not None and name not in bases:
                bases.append(name)
        if bases:
            apis[key]["bases"] = bases
    versions = {}
    mod = {"mindspore": "mindspore", "pytorch": "torch", "tensorflow": "tensorflow"}[framework]
    versions[framework] = str(importlib.import_module(mod).__version__)
    if framework == "tensorflow":
        versions["keras"] = str(importlib.import_module("keras").__version__)
    return {"generated_from": versions, "missing": missing, "apis": apis}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="compare instead of writing; exit 1 on differences")
    ap.add_argument("frameworks", nargs="*", default=list(FRAMEWORKS))
    args = ap.parse_args()
    status = 0
    for fw in args.frameworks:
        data = generate(fw)
        text = ("# GENERATED by tests/frameworks/gen_api_tables.py from the installed library; do not edit.\n"
                + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=120))
        path = os.path.join(APIS_DIR, f"{fw}.signatures.yaml")
        if args.check:
            with open(path, encoding="utf-8") as fh:
                if fh.read() != text:
                    print(f"{path}: differs from the installed {fw}", file=sys.stderr)
                    status = 1
        else:
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(text)
            print(f"wrote {path}: {len(data['apis'])} APIs, missing {data['missing']}")
    return status


if __name__ == "__main__":
    raise SystemExit(main())
