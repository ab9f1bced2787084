"""Launch fa kernel bundles (docs/BundleFormat.md) from Python, with torch
tensors, before the C++ runtime exists on the GPU machine. A reading of the
bundle format, kept small: expressions, tensor maps, parameter packing.
"""
import glob
import json
import os
import re

import torch

import cudrv

DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16}
# Index of each logical dimension in a rank-4 tensor of the layout.
DIM_INDEX = {"bshd": {"batch": 0, "seq": 1, "head": 2, "dim": 3},
             "bhsd": {"batch": 0, "head": 1, "seq": 2, "dim": 3}}


def evaluate(expr, symbols):
    """Shape expression: + - * / (integer division), ceildiv, min, max."""
    if isinstance(expr, (int, float)):
        return expr
    py = re.sub(r"(?<![/])/(?![/])", "//", str(expr))
    env = {"ceildiv": lambda a, b: -(-a // b), "min": min, "max": max, "__builtins__": {}}
    env.update(symbols)
    v = eval(py, env)  # noqa: S307 - our own bundle files
    return v


class Bundle:
    def __init__(self, json_path):
        with open(json_path) as f:
            self.meta = json.load(f)
        assert self.meta["format"] == "fa-kernel-bundle" and self.meta["version"] == 1
        self.path = json_path
        self.cfg = self.meta["config"]
        cubin = os.path.join(os.path.dirname(json_path), self.meta["cubin"])
        self.module = cudrv.Module(cubin)
        self.smem = self.meta["shared_memory_bytes"]
        self.fn = self.module.function(self.meta["kernel"], smem=self.smem)
        self.name = self.meta["kernel"]
        self._cache = {}

    def symbols(self, q, k):
        idx = DIM_INDEX[self.cfg["layout"]]
        return {"batch": q.shape[idx["batch"]], "heads_q": q.shape[idx["head"]],
                "heads_kv": k.shape[idx["head"]], "seq_q": q.shape[idx["seq"]],
                "seq_k": k.shape[idx["seq"]], "head_dim": q.shape[idx["dim"]],
                "head_dim_v": q.shape[idx["dim"]], "num_sms": 132}

    def _tensor_map(self, p, t):
        idx = DIM_INDEX[self.cfg["layout"]]
        order = [idx[d] for d in p["dims"]]
        dims = [t.shape[i] for i in order]
        es = t.element_size()
        strides = [t.stride(i) * es for i in order[1:]]
        box = list(p["box"]) + [1] * (len(dims) - len(p["box"]))
        return cudrv.TensorMap(t.data_ptr(), p["dtype"], dims, strides, box, p["swizzle"])

    def prepare(self, q, k, v, o, lse=None):
        """Encodes the tensor maps and packs parameters once; returns a launcher."""
        sym = self.symbols(q, k)
        operands = {"query": q, "key": k, "value": v, "output": o, "lse": lse}
        params = []
        for p in self.meta["params"]:
            kind = p["kind"]
            if kind == "tensor_map":
                params.append(self._tensor_map(p, operands[p["operand"]]))
            elif kind == "ptr":
                params.append(("ptr", operands[p["operand"]].data_ptr()))
            elif kind in ("i32", "i64"):
                params.append((kind, int(evaluate(p["value"], sym))))
            elif kind == "f32":
                params.append(("f32", float(evaluate(p["value"], sym))))
            else:
                raise ValueError(f"unknown param kind {kind}")
        grid = [int(evaluate(g, sym)) for g in self.meta["grid"]]
        block = self.meta["block"]
        fn, smem = self.fn, self.smem

        def launch(stream=0):
            fn(grid, block, smem, params, stream)
        return launch

    def __call__(self, q, k, v, o, lse=None):
        self.prepare(q, k, v, o, lse)(torch.cuda.current_stream().cuda_stream)


def load_all(directory):
    return [Bundle(p) for p in sorted(glob.glob(os.path.join(directory, "*.json")))]


def find(bundles, dtype="bf16", head_dim=128, layout="bshd", causal=False,
         mask_alignment="top_left", return_lse=True, tag="m128n128s2o_"):
    for b in bundles:
        c = b.cfg
        if (c["dtype"] == dtype and c["head_dim"] == head_dim and c["layout"] == layout
                and c["causal"] == causal and c["return_lse"] == return_lse
                and (not causal or c["mask_alignment"] == mask_alignment)
                and (b.name + "_").find(tag) >= 0):
            return b
    raise KeyError(f"no bundle for {dtype} d{head_dim} {layout} causal={causal} {mask_alignment} {tag}")
