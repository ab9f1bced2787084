"""FlexAttention-style modifiers the tests share, each over the tensors it
captures: the same functions for the dense and the serving calls, on the
CPU and the GPU."""
import torch


def alibi(slopes):
    def score_mod(score, b, h, q_idx, kv_idx):
        return score + slopes[h] * (kv_idx - q_idx)
    return score_mod


def document(docs):
    """Keys of the query's document: docs [B, positions]."""
    def mask_mod(b, h, q_idx, kv_idx):
        return docs[b, q_idx] == docs[b, kv_idx]
    return mask_mod


def t5(table):
    """T5's bidirectional buckets (16 per direction, exact below 8,
    logarithmic to 128), in log2 form as the device round's
    (test/Device/gen_modifier_inputs.py): table [Hq, 32]."""
    def score_mod(score, b, h, q_idx, kv_idx):
        rel = kv_idx - q_idx
        dist = rel.abs()
        ratio = torch.clamp(dist, min=1).float() / 8.0
        large = torch.clamp(8 + (torch.log2(ratio) * 2.0).to(torch.int64),
                            max=15)
        bucket = torch.where(rel > 0, 16, 0) + torch.where(dist < 8, dist,
                                                           large)
        return score + table[h, bucket]
    return score_mod


def prefix_lm(prefix):
    """Causal, and every query sees its sequence's first prefix[b] keys."""
    def mask_mod(b, h, q_idx, kv_idx):
        return (kv_idx <= q_idx) | (kv_idx < prefix[b])
    return mask_mod
