// RUN: fa-opt %s --fa-nvvm-pipeline="chip=sm_90a format=isa" | FileCheck %s
// RUN: rm -rf %t && fa-opt %s --fa-nvvm-pipeline="format=isa bundle-dir=%t" -o /dev/null
// RUN: FileCheck %s --check-prefix=JSON --input-file=%t/fa_fwd_bf16_d128_bhsd_causal_lse_m128n128s2o.json
// RUN: FileCheck %s --check-prefix=ISA --input-file=%t/fa_fwd_bf16_d128_bhsd_causal_lse_m128n128s2o.ptx
// RUN: rm -rf %t.fc && fa-compile %s -o %t.fc --format=isa --stages=3
// RUN: FileCheck %s --check-prefix=FC --input-file=%t.fc/fa_fwd_bf16_d128_bhsd_causal_lse_m128n128s3o.json

// The whole path to PTX; the kernel is serialized into a gpu.binary and the
// fa.attention op keeps a reference to it.

// CHECK: fa.attention {{.*}}fa.kernel = @fa_fwd_bf16_d128_bhsd_causal_lse_m128n128s2o::@fa_fwd_bf16_d128_bhsd_causal_lse_m128n128s2o
// CHECK: gpu.binary @fa_fwd_bf16_d128_bhsd_causal_lse_m128n128s2o [#gpu.object<#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">, {{.*}}assembly = "
// CHECK-SAME: .target sm_90a
// CHECK-SAME: setmaxnreg.dec.sync.aligned.u32 \0924;
// CHECK-SAME: cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK-SAME: setmaxnreg.inc.sync.aligned.u32 \09240;
// CHECK-SAME: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16

// Keys come out sorted.
// JSON: "block": [
// JSON-NEXT: 384,
// JSON: "chip": "sm_90a",
// JSON: "causal": true,
// JSON: "layout": "bhsd",
// JSON: "return_lse": true,
// JSON: "cubin": "fa_fwd_bf16_d128_bhsd_causal_lse_m128n128s2o.ptx",
// JSON: "format": "fa-kernel-bundle",
// JSON: "grid": [
// JSON-NEXT: "min(ceildiv(seq_q, 128) * heads_q * batch, max(num_sms, ceildiv(seq_q, 128) * heads_q * batch * min(1, seq_q / 4096)))",
// JSON-NEXT: 1,
// JSON-NEXT: 1
// JSON: "kernel": "fa_fwd_bf16_d128_bhsd_causal_lse_m128n128s2o",
// JSON: "op": "attention_fwd",
// JSON: "box": [
// JSON-NEXT: 64,
// JSON-NEXT: 128
// JSON: "kind": "tensor_map",
// JSON-NEXT: "operand": "query",
// JSON-NEXT: "swizzle": "128B"
// JSON: "operand": "key",
// JSON: "operand": "value",
// JSON: "kind": "ptr",
// JSON-NEXT: "operand": "output"
// JSON: "kind": "ptr",
// JSON-NEXT: "operand": "lse"
// JSON: "value": "seq_q"
// JSON: "value": "seq_k"
// JSON: "value": "heads_q / heads_kv"
// JSON: "ptx": true,
// JSON: "shared_memory_bytes": 164944,
// JSON: "version": 1

// ISA: .entry fa_fwd_bf16_d128_bhsd_causal_lse_m128n128s2o(
// ISA: .param .align 64 .b8 fa_fwd_bf16_d128_bhsd_causal_lse_m128n128s2o_param_0[128]
// ISA: .maxntid 384, 1, 1
// ISA: .minnctapersm 1
// ISA: mbarrier.try_wait.parity.shared.b64
// The row max stays max.f32 (arith-expand would have made it setp + selp).
// ISA: max.f32
// ISA: ex2.approx.ftz.f32
// ISA: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.+}}, p, 1, 1, 1;

// FC: "shared_memory_bytes": 230512

func.func @attn(%q: tensor<?x16x?x128xbf16>, %k: tensor<?x16x?x128xbf16>, %v: tensor<?x16x?x128xbf16>) -> (tensor<?x16x?x128xbf16>, tensor<?x16x?xf32>) {
  %o, %lse = fa.attention %q, %k, %v : tensor<?x16x?x128xbf16>, tensor<?x16x?x128xbf16>, tensor<?x16x?x128xbf16> {causal} -> tensor<?x16x?x128xbf16>, tensor<?x16x?xf32>
  return %o, %lse : tensor<?x16x?x128xbf16>, tensor<?x16x?xf32>
}
