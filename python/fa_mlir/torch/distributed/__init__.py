"""Context parallelism on torch.distributed: ring attention over a
sequence split across the ranks of a process group (docs/ContextParallel.md)."""
from ._attention import ring_attention  # noqa: F401
from ._plan import SHARDINGS  # noqa: F401
from ._shard import shard_sequence, unshard_sequence  # noqa: F401
