// RUN: fa-opt %s -split-input-file -verify-diagnostics

func.func @attention_two_inputs(%q: tensor<4x10x8xf32>, %k: tensor<4x10x8xf32>) -> tensor<4x10x8xf32> {
  %0 = tensor.empty() : tensor<4x10x8xf32>
  // expected-error @+1 {{expects ins (query, key, value) or (query, key, value, mask), got 2 inputs}}
  %1 = tm_tensor.attention ins(%q, %k : tensor<4x10x8xf32>, tensor<4x10x8xf32>) outs(%0 : tensor<4x10x8xf32>) -> tensor<4x10x8xf32>
  return %1 : tensor<4x10x8xf32>
}

// -----

func.func @attention_key_batch(%q: tensor<4x10x8xf32>, %k: tensor<2x10x8xf32>, %v: tensor<4x10x8xf32>) -> tensor<4x10x8xf32> {
  %0 = tensor.empty() : tensor<4x10x8xf32>
  // expected-error @+1 {{key and query differ in batch dimension 0}}
  %1 = tm_tensor.attention ins(%q, %k, %v : tensor<4x10x8xf32>, tensor<2x10x8xf32>, tensor<4x10x8xf32>) outs(%0 : tensor<4x10x8xf32>) -> tensor<4x10x8xf32>
  return %1 : tensor<4x10x8xf32>
}

// -----

func.func @attention_head_dim(%q: tensor<4x10x8xf32>, %k: tensor<4x10x16xf32>, %v: tensor<4x10x8xf32>) -> tensor<4x10x8xf32> {
  %0 = tensor.empty() : tensor<4x10x8xf32>
  // expected-error @+1 {{key's head dimension differs from the query's}}
  %1 = tm_tensor.attention ins(%q, %k, %v : tensor<4x10x8xf32>, tensor<4x10x16xf32>, tensor<4x10x8xf32>) outs(%0 : tensor<4x10x8xf32>) -> tensor<4x10x8xf32>
  return %1 : tensor<4x10x8xf32>
}

// -----

func.func @attention_value_seq(%q: tensor<4x10x8xf32>, %k: tensor<4x10x8xf32>, %v: tensor<4x12x8xf32>) -> tensor<4x10x8xf32> {
  %0 = tensor.empty() : tensor<4x10x8xf32>
  // expected-error @+1 {{value's sequence length differs from the key's}}
  %1 = tm_tensor.attention ins(%q, %k, %v : tensor<4x10x8xf32>, tensor<4x10x8xf32>, tensor<4x12x8xf32>) outs(%0 : tensor<4x10x8xf32>) -> tensor<4x10x8xf32>
  return %1 : tensor<4x10x8xf32>
}

// -----

func.func @attention_mask_shape(%q: tensor<4x10x8xf32>, %k: tensor<4x12x8xf32>, %v: tensor<4x12x8xf32>, %m: tensor<4x10x10xi1>) -> tensor<4x10x8xf32> {
  %0 = tensor.empty() : tensor<4x10x8xf32>
  // expected-error @+1 {{mask must be [..., query seq, key seq]}}
  %1 = tm_tensor.attention ins(%q, %k, %v, %m : tensor<4x10x8xf32>, tensor<4x12x8xf32>, tensor<4x12x8xf32>, tensor<4x10x10xi1>) outs(%0 : tensor<4x10x8xf32>) -> tensor<4x10x8xf32>
  return %1 : tensor<4x10x8xf32>
}

// -----

func.func @attention_mask_type(%q: tensor<4x10x8xf32>, %k: tensor<4x10x8xf32>, %v: tensor<4x10x8xf32>, %m: tensor<4x10x10xi8>) -> tensor<4x10x8xf32> {
  %0 = tensor.empty() : tensor<4x10x8xf32>
  // expected-error @+1 {{mask must be i1 or the query's element type}}
  %1 = tm_tensor.attention ins(%q, %k, %v, %m : tensor<4x10x8xf32>, tensor<4x10x8xf32>, tensor<4x10x8xf32>, tensor<4x10x10xi8>) outs(%0 : tensor<4x10x8xf32>) -> tensor<4x10x8xf32>
  return %1 : tensor<4x10x8xf32>
}

// -----

func.func @attention_mixed_types(%q: tensor<4x10x8xf32>, %k: tensor<4x10x8xbf16>, %v: tensor<4x10x8xf32>) -> tensor<4x10x8xf32> {
  %0 = tensor.empty() : tensor<4x10x8xf32>
  // expected-error @+1 {{query, key, value and output must have one float element type}}
  %1 = tm_tensor.attention ins(%q, %k, %v : tensor<4x10x8xf32>, tensor<4x10x8xbf16>, tensor<4x10x8xf32>) outs(%0 : tensor<4x10x8xf32>) -> tensor<4x10x8xf32>
  return %1 : tensor<4x10x8xf32>
}

// -----

func.func @scan_dimension(%x: tensor<3x10xi64>, %o: tensor<3x10xi64>, %a: tensor<3xi64>) {
  // expected-error @+1 {{dimension 2 is out of range for the input's rank 2}}
  %0:2 = tm_tensor.scan dimension(2) inclusive(true) ins(%x : tensor<3x10xi64>) outs(%o, %a : tensor<3x10xi64>, tensor<3xi64>) {
  ^bb0(%arg0: i64, %arg1: i64):
    %1 = arith.addi %arg0, %arg1 : i64
    tm_tensor.yield %1 : i64
  } -> tensor<3x10xi64>, tensor<3xi64>
  return
}

// -----

func.func @scan_accumulator(%x: tensor<3x10xi64>, %o: tensor<3x10xi64>, %a: tensor<10xi64>) {
  // expected-error @+1 {{accumulator shape must be the input's without dimension 1}}
  %0:2 = tm_tensor.scan dimension(1) inclusive(true) ins(%x : tensor<3x10xi64>) outs(%o, %a : tensor<3x10xi64>, tensor<10xi64>) {
  ^bb0(%arg0: i64, %arg1: i64):
    %1 = arith.addi %arg0, %arg1 : i64
    tm_tensor.yield %1 : i64
  } -> tensor<3x10xi64>, tensor<10xi64>
  return
}

// -----

func.func @scan_region(%x: tensor<3x10xi64>, %o: tensor<3x10xi64>, %a: tensor<3xi64>) {
  // expected-error @+1 {{region must take two 'i64' arguments}}
  %0:2 = tm_tensor.scan dimension(1) inclusive(true) ins(%x : tensor<3x10xi64>) outs(%o, %a : tensor<3x10xi64>, tensor<3xi64>) {
  ^bb0(%arg0: i64):
    tm_tensor.yield %arg0 : i64
  } -> tensor<3x10xi64>, tensor<3xi64>
  return
}

// -----

func.func @scan_output(%x: tensor<3x10xi64>, %o: tensor<3x9xi64>, %a: tensor<3xi64>) {
  // expected-error @+1 {{output shape differs from the input's}}
  %0:2 = tm_tensor.scan dimension(1) inclusive(true) ins(%x : tensor<3x10xi64>) outs(%o, %a : tensor<3x9xi64>, tensor<3xi64>) {
  ^bb0(%arg0: i64, %arg1: i64):
    %1 = arith.addi %arg0, %arg1 : i64
    tm_tensor.yield %1 : i64
  } -> tensor<3x9xi64>, tensor<3xi64>
  return
}
