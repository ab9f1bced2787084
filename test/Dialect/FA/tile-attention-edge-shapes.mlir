// RUN: fa-opt %s -split-input-file --fa-tile-attention | FileCheck %s
// RUN: fa-opt %s -split-input-file --fa-cpu-pipeline -o /dev/null

// Valid shapes at the edges. Head dim 1 keeps its unit dim in the tiles.
// CHECK-LABEL: func.func @head_dim_1
// CHECK-NOT:     fa.attention
// CHECK:         scf.forall
// CHECK:           tensor<?x1xf32>
func.func @head_dim_1(%q: tensor<1x2x16x1xf32>, %k: tensor<1x1x20x1xf32>, %v: tensor<1x1x20x1xf32>) -> (tensor<1x2x16x1xf32>, tensor<1x2x16xf32>) {
  %o, %l = fa.attention %q, %k, %v : tensor<1x2x16x1xf32>, tensor<1x1x20x1xf32>, tensor<1x1x20x1xf32> {causal} -> tensor<1x2x16x1xf32>, tensor<1x2x16xf32>
  return %o, %l : tensor<1x2x16x1xf32>, tensor<1x2x16xf32>
}

// -----

// CHECK-LABEL: func.func @head_dim_1_backward
// CHECK-NOT:     fa.attention_grad
// CHECK:         scf.forall
func.func @head_dim_1_backward(%do: tensor<1x2x16x1xf32>, %q: tensor<1x2x16x4xf32>, %k: tensor<1x1x20x4xf32>, %v: tensor<1x1x20x1xf32>, %o: tensor<1x2x16x1xf32>, %l: tensor<1x2x16xf32>) -> (tensor<1x2x16x4xf32>, tensor<1x1x20x4xf32>, tensor<1x1x20x1xf32>) {
  %dq, %dk, %dv = fa.attention_grad %do, %q, %k, %v, %o, %l : tensor<1x2x16x1xf32>, tensor<1x2x16x4xf32>, tensor<1x1x20x4xf32>, tensor<1x1x20x1xf32>, tensor<1x2x16x1xf32>, tensor<1x2x16xf32> -> tensor<1x2x16x4xf32>, tensor<1x1x20x4xf32>, tensor<1x1x20x1xf32>
  return %dq, %dk, %dv : tensor<1x2x16x4xf32>, tensor<1x1x20x4xf32>, tensor<1x1x20x1xf32>
}

// -----

// No row (batch 0): every gradient is 0, also the broadcast bias's (a sum
// over nothing); no loop nest is built.
// CHECK-LABEL: func.func @backward_batch_0
// CHECK-NOT:     scf.forall
// CHECK:         %[[E:.+]] = tensor.empty() : tensor<1x1x16x16xf32>
// CHECK:         %[[Z:.+]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[DB:.+]] = linalg.fill ins(%[[Z]] : f32) outs(%[[E]] : tensor<1x1x16x16xf32>)
// CHECK:         return %[[DB]]
func.func @backward_batch_0(%do: tensor<0x2x16x8xf32>, %q: tensor<0x2x16x8xf32>, %k: tensor<0x2x16x8xf32>, %v: tensor<0x2x16x8xf32>, %o: tensor<0x2x16x8xf32>, %l: tensor<0x2x16xf32>, %b: tensor<1x1x16x16xf32>) -> tensor<1x1x16x16xf32> {
  %dq, %dk, %dv, %db = fa.attention_grad %do, %q, %k, %v, %o, %l : tensor<0x2x16x8xf32>, tensor<0x2x16x8xf32>, tensor<0x2x16x8xf32>, tensor<0x2x16x8xf32>, tensor<0x2x16x8xf32>, tensor<0x2x16xf32> bias(%b : tensor<1x1x16x16xf32>) -> tensor<0x2x16x8xf32>, tensor<0x2x16x8xf32>, tensor<0x2x16x8xf32>, tensor<1x1x16x16xf32>
  return %db : tensor<1x1x16x16xf32>
}

// -----

// No key (seq_k 0): every row sees nothing, O = 0 and LSE = -inf; sizes
// that are dynamic come from the query.
// CHECK-LABEL: func.func @forward_no_key
// CHECK-SAME:    (%[[Q:.+]]: tensor<?x2x16x8xf32>
// CHECK-NOT:     scf.forall
// CHECK:         tensor.dim %[[Q]], %{{.+}} : tensor<?x2x16x8xf32>
// CHECK:         %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK:         linalg.fill ins(%[[ZERO]] : f32) outs(%{{.+}} : tensor<?x2x16x8xf32>)
// CHECK:         tensor.dim %[[Q]], %{{.+}} : tensor<?x2x16x8xf32>
// CHECK:         %[[NEGINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK:         linalg.fill ins(%[[NEGINF]] : f32) outs(%{{.+}} : tensor<?x2x16xf32>)
func.func @forward_no_key(%q: tensor<?x2x16x8xf32>, %k: tensor<?x1x0x8xf32>, %v: tensor<?x1x0x8xf32>) -> (tensor<?x2x16x8xf32>, tensor<?x2x16xf32>) {
  %o, %l = fa.attention %q, %k, %v : tensor<?x2x16x8xf32>, tensor<?x1x0x8xf32>, tensor<?x1x0x8xf32> -> tensor<?x2x16x8xf32>, tensor<?x2x16xf32>
  return %o, %l : tensor<?x2x16x8xf32>, tensor<?x2x16xf32>
}

// -----

// A bias whose batch and heads are dynamic is per-batch and per-head.
// CHECK-LABEL: func.func @bias_dynamic_batch_heads
// CHECK-NOT:     fa.attention
// CHECK:         tensor.extract_slice %{{.+}}[%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}] [1, 1, %{{.+}}, %{{.+}}] [1, 1, 1, 1] : tensor<?x?x16x20xf32> to tensor<?x?xf32>
func.func @bias_dynamic_batch_heads(%q: tensor<2x2x16x8xf32>, %k: tensor<2x2x20x8xf32>, %v: tensor<2x2x20x8xf32>, %b: tensor<?x?x16x20xf32>) -> tensor<2x2x16x8xf32> {
  %o = fa.attention %q, %k, %v : tensor<2x2x16x8xf32>, tensor<2x2x20x8xf32>, tensor<2x2x20x8xf32> bias(%b : tensor<?x?x16x20xf32>) -> tensor<2x2x16x8xf32>
  return %o : tensor<2x2x16x8xf32>
}

// -----

// No key with sinks: each row's softmax holds only its sink, so O = 0 and
// LSE = the sink of the row's head (broadcast over batch and rows).
// CHECK-LABEL: func.func @forward_no_key_sinks
// CHECK-SAME:    %[[S:[^:]+]]: tensor<2xf32>
// CHECK-NOT:     scf.forall
// CHECK:         linalg.broadcast ins(%[[S]] : tensor<2xf32>) outs(%{{.+}} : tensor<?x2x16xf32>) dimensions = [0, 2]
func.func @forward_no_key_sinks(%q: tensor<?x2x16x8xf32>, %k: tensor<?x1x0x8xf32>, %v: tensor<?x1x0x8xf32>, %s: tensor<2xf32>) -> (tensor<?x2x16x8xf32>, tensor<?x2x16xf32>) {
  %o, %l = fa.attention %q, %k, %v : tensor<?x2x16x8xf32>, tensor<?x1x0x8xf32>, tensor<?x1x0x8xf32> sinks(%s : tensor<2xf32>) -> tensor<?x2x16x8xf32>, tensor<?x2x16xf32>
  return %o, %l : tensor<?x2x16x8xf32>, tensor<?x2x16xf32>
}

// -----

// An empty backward with sinks: every gradient is 0, d_sinks shaped like
// the (dynamic) sinks.
// CHECK-LABEL: func.func @backward_batch_0_sinks
// CHECK-SAME:    %[[S:[^:]+]]: tensor<?xf32>
// CHECK-NOT:     scf.forall
// CHECK:         tensor.dim %[[S]], %{{.+}} : tensor<?xf32>
// CHECK:         linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<?xf32>)
func.func @backward_batch_0_sinks(%do: tensor<0x2x16x8xf32>, %q: tensor<0x2x16x8xf32>, %k: tensor<0x2x16x8xf32>, %v: tensor<0x2x16x8xf32>, %o: tensor<0x2x16x8xf32>, %l: tensor<0x2x16xf32>, %s: tensor<?xf32>) -> tensor<?xf32> {
  %dq, %dk, %dv, %ds = fa.attention_grad %do, %q, %k, %v, %o, %l : tensor<0x2x16x8xf32>, tensor<0x2x16x8xf32>, tensor<0x2x16x8xf32>, tensor<0x2x16x8xf32>, tensor<0x2x16x8xf32>, tensor<0x2x16xf32> sinks(%s : tensor<?xf32>) -> tensor<0x2x16x8xf32>, tensor<0x2x16x8xf32>, tensor<0x2x16x8xf32>, tensor<?xf32>
  return %ds : tensor<?xf32>
}
