//===- ParamPackTest.cpp - Parameter layout, packing and the grid ---------===//
#include "TestUtil.h"

#include "fa/Runtime/CudaTypes.h"

#include <cstring>

using namespace fa::runtime;
using namespace fa::runtime::test;

namespace {

/// Stands in for cuTensorMapEncodeTiled: records the requests and fills the
/// descriptor with a byte pattern naming the parameter.
struct FakeEncoder {
  std::vector<TensorMapRequest> requests;
  Status result;
  TensorMapEncoder fn() {
    return [this](const TensorMapRequest &r, void *out) {
      requests.push_back(r);
      if (reinterpret_cast<uintptr_t>(out) % 64 != 0)
        return Status::error(ErrorCode::Internal, "descriptor not 64-byte aligned");
      std::memset(out, 0xA0 + static_cast<int>(r.paramIndex), 128);
      return result;
    };
  }
};

BundleSpec specFrom(const std::string &text) {
  Expected<BundleSpec> spec = parseBundleSpec(text, "");
  EXPECT_OK(spec);
  return spec.ok() ? *spec : BundleSpec();
}

BundleSpec exampleSpec() { return specFrom(exampleBundleText()); }

template <typename T> T readAt(const PackedParams &p, size_t offset) {
  T v;
  std::memcpy(&v, p.bytes() + offset, sizeof(T));
  return v;
}

std::vector<ParamSpec> paramsOfKinds(std::initializer_list<ParamKind> kinds) {
  std::vector<ParamSpec> out;
  for (ParamKind k : kinds) {
    ParamSpec p;
    p.kind = k;
    out.push_back(p);
  }
  return out;
}

} // namespace

TEST(ParamPack, pack_layout_offsets) {
  size_t total = 0;
  std::vector<ParamSlot> slots = layoutParams(exampleSpec().params, &total);
  const size_t offsets[] = {0, 128, 256, 264, 272, 276, 280};
  const size_t sizes[] = {128, 128, 8, 8, 4, 4, 4};
  EXPECT_EQ(slots.size(), size_t(7));
  for (size_t i = 0; i < slots.size() && i < 7; ++i) {
    EXPECT_EQ(slots[i].offset, offsets[i]);
    EXPECT_EQ(slots[i].size, sizes[i]);
  }
  EXPECT_EQ(total, size_t(284));

  // Padding before 8-byte and 64-byte aligned parameters.
  using K = ParamKind;
  slots = layoutParams(paramsOfKinds({K::I32, K::TensorMap, K::F32, K::Ptr, K::I32,
                                      K::I64, K::TensorMapGlobal, K::I32}),
                       &total);
  const size_t offsets2[] = {0, 64, 192, 200, 208, 216, 224, 232};
  for (size_t i = 0; i < 8; ++i)
    EXPECT_EQ(slots[i].offset, offsets2[i]);
  EXPECT_EQ(slots[1].align, size_t(64));
  EXPECT_EQ(slots[6].size, size_t(8)); // tensor_map_global is a pointer
  EXPECT_EQ(total, size_t(236));
  layoutParams({}, &total);
  EXPECT_EQ(total, size_t(0));
}

TEST(ParamPack, pack_example_bytes) {
  Expected<std::unique_ptr<Bundle>> bundle = bundleFromText(exampleBundleText());
  EXPECT_OK(bundle);
  if (!bundle.ok())
    return;
  std::vector<TensorArg> tensors = exampleTensors();
  FakeEncoder enc;
  Expected<LaunchPlan> plan = (*bundle)->plan(tensors, 132, enc.fn());
  EXPECT_OK(plan);
  if (!plan.ok())
    return;
  EXPECT_TRUE(!plan->empty);
  EXPECT_EQ(plan->grid[0], 8u); // ceildiv(1000, 128)
  EXPECT_EQ(plan->grid[1], 16u);
  EXPECT_EQ(plan->grid[2], 2u);
  const PackedParams &p = plan->params;
  EXPECT_EQ(p.size, size_t(284));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p.bytes()) % 128, uintptr_t(0));
  EXPECT_EQ(int(readAt<uint8_t>(p, 0)), 0xA0);
  EXPECT_EQ(int(readAt<uint8_t>(p, 127)), 0xA0);
  EXPECT_EQ(int(readAt<uint8_t>(p, 128)), 0xA1);
  EXPECT_EQ(readAt<uint64_t>(p, 256), uint64_t(0x40000000)); // output
  EXPECT_EQ(readAt<uint64_t>(p, 264), uint64_t(0x50000000)); // lse
  EXPECT_EQ(readAt<int32_t>(p, 272), 1000);
  EXPECT_EQ(readAt<int32_t>(p, 276), 333);
  EXPECT_EQ(readAt<float>(p, 280), float(1.4426950408889634 * 0.08838834764831845));
  std::vector<void *> kp = p.kernelParams();
  EXPECT_EQ(kp.size(), size_t(7));
  EXPECT_TRUE(kp[4] == p.bytes() + 272);
  EXPECT_TRUE(p.globalMaps.empty());
}

TEST(ParamPack, pack_tensor_map_requests) {
  Expected<std::unique_ptr<Bundle>> bundle = bundleFromText(exampleBundleText());
  EXPECT_OK(bundle);
  if (!bundle.ok())
    return;
  std::vector<TensorArg> tensors = exampleTensors();
  FakeEncoder enc;
  EXPECT_OK((*bundle)->plan(tensors, 132, enc.fn()));
  EXPECT_EQ(enc.requests.size(), size_t(2));
  if (enc.requests.size() != 2)
    return;
  const TensorMapRequest &q = enc.requests[0];
  EXPECT_EQ(q.paramIndex, size_t(0));
  EXPECT_EQ(q.operand, std::string("query"));
  EXPECT_EQ(q.dataType, cu::CU_TENSOR_MAP_DATA_TYPE_BFLOAT16);
  EXPECT_EQ(q.rank, 4u);
  EXPECT_EQ(q.globalAddress, uint64_t(0x10000000));
  // bshd [2, 1000, 16, 128] seen innermost first as (dim, seq, head, batch).
  EXPECT_EQ(q.globalDim[0], uint64_t(128));
  EXPECT_EQ(q.globalDim[1], uint64_t(1000));
  EXPECT_EQ(q.globalDim[2], uint64_t(16));
  EXPECT_EQ(q.globalDim[3], uint64_t(2));
  EXPECT_EQ(q.globalStrides[0], uint64_t(16 * 128 * 2)); // seq
  EXPECT_EQ(q.globalStrides[1], uint64_t(128 * 2));      // head
  EXPECT_EQ(q.globalStrides[2], uint64_t(1000 * 16 * 128 * 2));
  EXPECT_EQ(q.boxDim[0], 64u);
  EXPECT_EQ(q.boxDim[1], 128u);
  EXPECT_EQ(q.boxDim[2], 1u);
  EXPECT_EQ(q.boxDim[3], 1u);
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(q.elementStrides[i], 1u);
  EXPECT_EQ(q.interleave, cu::CU_TENSOR_MAP_INTERLEAVE_NONE);
  EXPECT_EQ(q.swizzle, cu::CU_TENSOR_MAP_SWIZZLE_128B);
  EXPECT_EQ(q.l2Promotion, cu::CU_TENSOR_MAP_L2_PROMOTION_L2_128B);
  EXPECT_EQ(q.oobFill, cu::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  const TensorMapRequest &k = enc.requests[1];
  EXPECT_EQ(k.globalDim[1], uint64_t(333));
  EXPECT_EQ(k.globalDim[2], uint64_t(4));
  EXPECT_EQ(k.globalStrides[0], uint64_t(4 * 128 * 2));

  // bhsd, f16, 64B swizzle, 256B L2 promotion, a different dims order.
  std::string text = exampleBundleText();
  text = replaceOnce(text, R"("layout": "bshd")", R"("layout": "bhsd")");
  text = replaceOnce(text, R"("dtype": "bf16", "out_dtype": "bf16")",
                     R"("dtype": "f16", "out_dtype": "f16")");
  text = replaceOnce(text,
                     R"("operand": "key",   "box": [64, 128],
     "dims": ["dim", "seq", "head", "batch"], "swizzle": "128B", "dtype": "bf16")",
                     R"("operand": "key", "box": [32, 64, 2],
     "dims": ["dim", "head", "seq", "batch"], "swizzle": "64B", "l2_promotion": "256B")");
  text = replaceOnce(text, R"("swizzle": "128B", "dtype": "bf16")",
                     R"("swizzle": "128B", "dtype": "f16")");
  bundle = bundleFromText(text);
  EXPECT_OK(bundle);
  if (!bundle.ok())
    return;
  tensors = {
      tensor("query", DType::F16, {2, 16, 1000, 128}, 0x10000000),
      tensor("key", DType::F16, {2, 4, 333, 128}, 0x20000000),
      tensor("value", DType::F16, {2, 4, 333, 128}, 0x30000000),
      tensor("output", DType::F16, {2, 16, 1000, 128}, 0x40000000),
      tensor("lse", DType::F32, {2, 16, 1000}, 0x50000000),
  };
  enc.requests.clear();
  EXPECT_OK((*bundle)->plan(tensors, 132, enc.fn()));
  if (enc.requests.size() != 2)
    return;
  const TensorMapRequest &q2 = enc.requests[0];
  EXPECT_EQ(q2.dataType, cu::CU_TENSOR_MAP_DATA_TYPE_FLOAT16);
  EXPECT_EQ(q2.globalStrides[0], uint64_t(128 * 2));              // seq
  EXPECT_EQ(q2.globalStrides[1], uint64_t(1000 * 128 * 2));       // head
  EXPECT_EQ(q2.globalStrides[2], uint64_t(16 * 1000 * 128 * 2));  // batch
  const TensorMapRequest &k2 = enc.requests[1];
  EXPECT_EQ(k2.globalDim[1], uint64_t(4));   // head
  EXPECT_EQ(k2.globalDim[2], uint64_t(333)); // seq
  EXPECT_EQ(k2.globalStrides[0], uint64_t(333 * 128 * 2));
  EXPECT_EQ(k2.globalStrides[1], uint64_t(128 * 2));
  EXPECT_EQ(k2.boxDim[0], 32u);
  EXPECT_EQ(k2.boxDim[1], 64u);
  EXPECT_EQ(k2.boxDim[2], 2u);
  EXPECT_EQ(k2.boxDim[3], 1u);
  EXPECT_EQ(k2.swizzle, cu::CU_TENSOR_MAP_SWIZZLE_64B);
  EXPECT_EQ(k2.l2Promotion, cu::CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
}

TEST(ParamPack, pack_degenerate_dims) {
  Expected<std::unique_ptr<Bundle>> bundle = bundleFromText(exampleBundleText());
  if (!bundle.ok())
    return;
  // Size-1 dims get a dense 16-byte-multiple stride whatever the caller put
  // there; empty dims are described as extent 1.
  std::vector<TensorArg> tensors = exampleTensors(1000, 0);
  TensorArg &q = find(tensors, "query");
  q.sizes = {1, 1000, 1, 128};
  q.strides = {7, 128, 3, 1};
  find(tensors, "output").sizes = {1, 1000, 1, 128};
  find(tensors, "output").strides = contiguousStrides({1, 1000, 1, 128});
  find(tensors, "lse").sizes = {1, 1, 1000};
  TensorArg &k = find(tensors, "key");
  k.sizes = {1, 0, 1, 128};
  find(tensors, "value").sizes = {1, 0, 1, 128};
  FakeEncoder enc;
  EXPECT_OK((*bundle)->plan(tensors, 132, enc.fn()));
  if (enc.requests.size() != 2)
    return;
  const TensorMapRequest &rq = enc.requests[0];
  EXPECT_EQ(rq.globalStrides[0], uint64_t(256));              // seq: as given
  EXPECT_EQ(rq.globalStrides[1], uint64_t(256 * 1000));       // head: substituted
  EXPECT_EQ(rq.globalStrides[2], uint64_t(256 * 1000));       // batch: substituted
  const TensorMapRequest &rk = enc.requests[1];
  EXPECT_EQ(rk.globalDim[1], uint64_t(1)); // seq_k = 0
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(rk.globalStrides[i] % 16, uint64_t(0));
}

TEST(ParamPack, pack_global_tensor_map) {
  std::string text = replaceOnce(exampleBundleText(),
                                 R"({"kind": "tensor_map", "operand": "key")",
                                 R"({"kind": "tensor_map_global", "operand": "key")");
  Expected<std::unique_ptr<Bundle>> bundle = bundleFromText(text);
  EXPECT_OK(bundle);
  if (!bundle.ok())
    return;
  std::vector<TensorArg> tensors = exampleTensors();
  FakeEncoder enc;
  Expected<LaunchPlan> plan = (*bundle)->plan(tensors, 132, enc.fn());
  EXPECT_OK(plan);
  if (!plan.ok())
    return;
  const PackedParams &p = plan->params;
  EXPECT_EQ(p.slots[1].offset, size_t(128));
  EXPECT_EQ(p.slots[1].size, size_t(8));
  EXPECT_EQ(p.slots[2].offset, size_t(136));
  EXPECT_EQ(p.size, size_t(164));
  EXPECT_EQ(p.globalMapParams.size(), size_t(1));
  EXPECT_EQ(p.globalMapParams[0], size_t(1));
  EXPECT_EQ(int(p.globalMaps[0][0]), 0xA1);
  EXPECT_EQ(int(p.globalMaps[0][127]), 0xA1);
  EXPECT_EQ(readAt<uint64_t>(p, 128), uint64_t(0)); // patched at launch
}

TEST(ParamPack, pack_value_errors) {
  std::string base = exampleBundleText();
  auto planWith = [&](const std::string &from, const std::string &to,
                      std::vector<TensorArg> tensors = exampleTensors()) -> Status {
    Expected<std::unique_ptr<Bundle>> b = bundleFromText(replaceOnce(base, from, to));
    if (!b.ok())
      return b.status();
    FakeEncoder enc;
    Expected<LaunchPlan> plan = (*b)->plan(tensors, 132, enc.fn());
    return plan.ok() ? Status::success() : plan.status();
  };
  const std::string seqK = R"({"kind": "i32", "value": "seq_k"})";
  EXPECT_ERROR(planWith(seqK, R"({"kind": "i32", "value": "seq_q * 3000000"})"),
              ErrorCode::Expression,
              "params[5] (i32 \"seq_q * 3000000\"): value 3000000000 does not fit in i32");
  EXPECT_OK(planWith(seqK, R"({"kind": "i64", "value": "seq_q * 3000000"})"));
  EXPECT_ERROR(planWith(seqK, R"({"kind": "f32", "value": 1e300})"), ErrorCode::Expression,
              "does not fit in f32");
  EXPECT_ERROR(planWith(seqK, R"~({"kind": "i32", "value": "seq_q / (seq_k - 333)"})~"),
              ErrorCode::Expression,
              "params[5] (i32 \"seq_q / (seq_k - 333)\"): expression \"seq_q / (seq_k - 333)\": "
              "division by zero");
  EXPECT_ERROR(planWith(R"("heads_q", "batch"])", R"("heads_q * 5000", "batch"])"),
              ErrorCode::Tensor,
              "grid[1]: \"heads_q * 5000\" = 80000 exceeds CUDA's limit of 65535 blocks");
  EXPECT_ERROR(planWith(R"("heads_q", "batch"])", R"("heads_q", "0 - batch"])"),
              ErrorCode::Expression, "grid[2]: \"0 - batch\" = -2 is negative");
  EXPECT_ERROR(planWith(R"("heads_q", "batch"])", R"~("heads_q", "batch / (heads_q - 16)"])~"),
              ErrorCode::Expression, "grid[2]: expression \"batch / (heads_q - 16)\": division by zero");
  // The grid must divide into clusters.
  EXPECT_OK(planWith("[1, 1, 1]", "[2, 1, 1]"));
  EXPECT_ERROR(planWith("[1, 1, 1]", "[2, 1, 1]", exampleTensors(100, 333)), ErrorCode::Tensor,
              "grid[0] = 1 is not a multiple of cluster[0] = 2");
  // Encoder failures name the parameter.
  Expected<std::unique_ptr<Bundle>> b = bundleFromText(base);
  FakeEncoder failing;
  failing.result = Status::error(ErrorCode::Driver, "cuTensorMapEncodeTiled failed: boom");
  std::vector<TensorArg> tensors = exampleTensors();
  EXPECT_ERROR((*b)->plan(tensors, 132, failing.fn()), ErrorCode::Driver,
              "params[0] (tensor_map of 'query'): cuTensorMapEncodeTiled failed: boom");
}

TEST(ParamPack, pack_empty_launch) {
  Expected<std::unique_ptr<Bundle>> b = bundleFromText(exampleBundleText());
  if (!b.ok())
    return;
  std::vector<TensorArg> tensors = exampleTensors(0, 333);
  FakeEncoder enc;
  Expected<LaunchPlan> plan = (*b)->plan(tensors, 132, enc.fn());
  EXPECT_OK(plan);
  EXPECT_TRUE(plan.ok() && plan->empty);
  EXPECT_EQ(plan->grid[0], 0u);
  EXPECT_TRUE(enc.requests.empty()); // nothing is encoded for an empty launch
}

TEST(ParamPack, pack_size_params) {
  // size(operand, dim) packs the size as passed, a broadcast dim's 1
  // included (what a region's tensor.dim of a capture reads).
  std::string text = replaceOnce(
      exampleBundleText(), R"({"kind": "i32", "value": "seq_k"})",
      R"~({"kind": "i32", "value": "seq_k"}, {"kind": "ptr", "operand": "bias"},
          {"kind": "i32", "value": "size(bias, batch)"},
          {"kind": "i32", "value": "size(bias, seq_k) - 1"})~");
  Expected<std::unique_ptr<Bundle>> bundle = bundleFromText(text);
  EXPECT_OK(bundle);
  if (!bundle.ok())
    return;
  std::vector<TensorArg> tensors = exampleTensors();
  tensors.push_back(
      tensor("bias", DType::BF16, {1, 16, 1000, 333}, 0x60000000));
  tensors.back().strides = {99, 1000 * 333, 333, 1};
  FakeEncoder enc;
  Expected<LaunchPlan> plan = (*bundle)->plan(tensors, 132, enc.fn());
  EXPECT_OK(plan);
  if (!plan.ok())
    return;
  const PackedParams &p = plan->params;
  EXPECT_EQ(readAt<int32_t>(p, p.slots[7].offset), 1);
  EXPECT_EQ(readAt<int32_t>(p, p.slots[8].offset), 332);
  // Without the operand it reads, the launch is refused before packing.
  tensors.pop_back();
  EXPECT_ERROR((*bundle)->plan(tensors, 132, enc.fn()), ErrorCode::Tensor,
               "missing operand 'bias'");
}

TEST(ParamPack, pack_stride_params) {
  // The biased kernel's parameters: bias pointer, then the strides of its
  // batch, head and seq_q dims (i64), plus a grid and an i32 that use one.
  std::string text = replaceOnce(
      exampleBundleText(), R"({"kind": "i32", "value": "seq_k"})",
      R"~({"kind": "i32", "value": "seq_k"}, {"kind": "ptr", "operand": "bias"},
          {"kind": "i64", "value": "stride(bias, batch)"},
          {"kind": "i64", "value": "stride(bias, head)"},
          {"kind": "i64", "value": "stride(bias, seq_q)"},
          {"kind": "i32", "value": "stride(query, seq) / head_dim"})~");
  text = replaceOnce(text, R"("heads_q", "batch"])",
                     R"~("heads_q", "batch + stride(bias, batch) * 0"])~");
  Expected<std::unique_ptr<Bundle>> bundle = bundleFromText(text);
  EXPECT_OK(bundle);
  if (!bundle.ok())
    return;
  // Offsets: ..., 276 seq_k, 280 bias, 288/296/304 strides, 312 i32, 316 f32.
  struct Case {
    std::vector<int64_t> sizes, strides;
    int64_t batch, head, seqQ;
  };
  const int64_t dense = 1000 * 333;
  const Case cases[] = {
      {{2, 16, 1000, 333}, contiguousStrides({2, 16, 1000, 333}), 16 * dense, dense, 333},
      // A [.., 1000, 333] window of a [.., 1024, 336] buffer (seq_k padded to
      // 16 bytes) whose heads are not packed either.
      {{2, 16, 1000, 333}, {20 * 1024 * 336, 1024 * 336, 336, 1}, 20 * 1024 * 336,
       1024 * 336, 336},
      // An expanded tensor: stride 0 on a full-size dim stays 0.
      {{2, 16, 1000, 333}, {0, dense, 333, 1}, 0, dense, 333},
      // Broadcast dims (size 1) read 0, whatever stride the caller passed.
      {{1, 16, 1000, 333}, {99, dense, 333, 1}, 0, dense, 333},
      {{2, 1, 1000, 333}, {dense, dense, 333, 1}, dense, 0, 333},
      {{1, 1, 1000, 333}, {dense, dense, 333, 1}, 0, 0, 333},
  };
  for (const Case &c : cases) {
    std::vector<TensorArg> tensors = exampleTensors();
    tensors.push_back(tensor("bias", DType::BF16, c.sizes, 0x60000000));
    tensors.back().strides = c.strides;
    FakeEncoder enc;
    Expected<LaunchPlan> plan = (*bundle)->plan(tensors, 132, enc.fn());
    EXPECT_OK(plan);
    if (!plan.ok())
      continue;
    const PackedParams &p = plan->params;
    EXPECT_EQ(p.slots[7].offset, size_t(288));
    EXPECT_EQ(p.size, size_t(320));
    EXPECT_EQ(readAt<uint64_t>(p, 280), uint64_t(0x60000000));
    EXPECT_EQ(readAt<int64_t>(p, 288), c.batch);
    EXPECT_EQ(readAt<int64_t>(p, 296), c.head);
    EXPECT_EQ(readAt<int64_t>(p, 304), c.seqQ);
    EXPECT_EQ(readAt<int32_t>(p, 312), 16); // query's seq stride 16 * 128
    EXPECT_EQ(plan->grid[2], 2u);
  }
  // seq_q = 1: that dim is broadcast too.
  std::vector<TensorArg> tensors = exampleTensors(1, 333);
  tensors.push_back(tensor("bias", DType::BF16, {2, 16, 1, 333}, 0x60000000));
  FakeEncoder enc;
  Expected<LaunchPlan> plan = (*bundle)->plan(tensors, 132, enc.fn());
  EXPECT_OK(plan);
  if (plan.ok()) {
    EXPECT_EQ(readAt<int64_t>(plan->params, 296), int64_t(333));
    EXPECT_EQ(readAt<int64_t>(plan->params, 304), int64_t(0));
    EXPECT_EQ(readAt<int32_t>(plan->params, 312), 0); // query's seq has size 1
  }

  // Launch-time errors: the operand is required, and values are range checked.
  tensors = exampleTensors();
  EXPECT_ERROR((*bundle)->plan(tensors, 132, enc.fn()), ErrorCode::Tensor,
              "missing operand 'bias' (this attention_fwd bundle needs: query, key, "
              "value, output, lse, bias)");
  Expected<std::unique_ptr<Bundle>> narrow = bundleFromText(replaceOnce(
      exampleBundleText(), R"({"kind": "i32", "value": "seq_k"})",
      R"~({"kind": "i32", "value": "stride(bias, batch)"})~"));
  EXPECT_OK(narrow);
  if (!narrow.ok())
    return;
  tensors.push_back(tensor("bias", DType::BF16, {2, 16, 1000, 333}, 0x60000000));
  tensors.back().strides[0] = int64_t(1) << 33;
  EXPECT_ERROR((*narrow)->plan(tensors, 132, enc.fn()), ErrorCode::Expression,
              "params[5] (i32 \"stride(bias, batch)\"): value 8589934592 does not fit in i32");
  EXPECT_EQ((*narrow)->spec().requiredOperands.back(), std::string("bias"));
}

TEST(ParamPack, pack_stride_in_scratch_shape) {
  // A scratch buffer sized from an operand's stride (checked in
  // checkOperands, before any parameter is packed).
  Expected<std::unique_ptr<Bundle>> bundle = bundleFromText(replaceOnce(
      exampleBundleText(), R"("params": [)",
      R"~("scratch": [{"name": "rows", "dtype": "f32", "dims": ["row"],
                       "shape": ["stride(query, batch) / head_dim"]}],
          "params": [{"kind": "ptr", "operand": "rows"},)~"));
  EXPECT_OK(bundle);
  if (!bundle.ok())
    return;
  std::vector<TensorArg> tensors = exampleTensors();
  tensors.push_back(tensor("rows", DType::F32, {1000 * 16}, 0x70000000));
  FakeEncoder enc;
  EXPECT_OK((*bundle)->plan(tensors, 132, enc.fn()));
  find(tensors, "query").strides = {1024 * 16 * 128, 16 * 128, 128, 1};
  EXPECT_ERROR((*bundle)->plan(tensors, 132, enc.fn()), ErrorCode::Tensor,
              "operand 'rows': dimension 0 (row) is 16000, expected 16384 "
              "(stride(query, batch) / head_dim)");
}
