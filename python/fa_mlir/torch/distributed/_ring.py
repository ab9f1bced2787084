"""Passing tensors one step around a ring of ranks with torch.distributed's
point-to-point ops: every rank sends to the next and receives from the
previous, asynchronously, so that the transfer overlaps the attention of
the chunk already here."""
import torch
import torch.distributed as dist


class Pending:
    """Tensors on their way in; wait() returns them once they arrived (and
    this rank's own sends are done, so their buffers may be reused)."""

    def __init__(self, works, received, sent):
        self._works, self._received = works, received
        self._sent = sent  # alive until their sends complete

    def wait(self):
        for work in self._works:
            work.wait()
        return self._received


class Ring:
    """The ring of `group`'s ranks in rank order."""

    def __init__(self, group):
        self.group = group
        self.rank = dist.get_rank(group)
        self.world = dist.get_world_size(group)
        self._next = self._global((self.rank + 1) % self.world)
        self._prev = self._global((self.rank - 1) % self.world)
        # Where the group's collectives take their tensors (NCCL: a GPU).
        nccl = "nccl" in str(dist.get_backend(group)).lower()
        self.device = (torch.device("cuda", torch.cuda.current_device())
                       if nccl else torch.device("cpu"))

    def _global(self, group_rank):
        if self.group is None:
            return group_rank
        return dist.get_global_rank(self.group, group_rank)

    def shift(self, tensors):
        """Sends `tensors` to the next rank and receives the previous
        rank's tensors of the same shapes and dtypes (into new buffers).
        In a ring of one the tensors come straight back."""
        if self.world == 1:
            return Pending([], list(tensors), [])
        tensors = [t.contiguous() for t in tensors]
        received = [torch.empty_like(t) for t in tensors]
        ops = ([dist.P2POp(dist.isend, t, self._next, self.group)
                for t in tensors] +
               [dist.P2POp(dist.irecv, r, self._prev, self.group)
                for r in received])
        return Pending(dist.batch_isend_irecv(ops), received, tensors)
