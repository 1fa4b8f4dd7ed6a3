from .loader import create_loader, create_transform
from .stream import TarShardStream
