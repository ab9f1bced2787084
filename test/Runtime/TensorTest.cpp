//===- TensorTest.cpp - Operand checks and shape symbols ------------------===//
#include "TestUtil.h"

using namespace fa::runtime;
using namespace fa::runtime::test;

namespace {

const ErrorCode kTensor = ErrorCode::Tensor;

BundleSpec exampleSpec(const std::string &from = "", const std::string &to = "") {
  std::string text = exampleBundleText();
  if (!from.empty())
    text = replaceOnce(text, from, to);
  Expected<BundleSpec> spec = parseBundleSpec(text, "");
  EXPECT_OK(spec);
  return spec.ok() ? *spec : BundleSpec();
}

Status check(const std::vector<TensorArg> &tensors, const BundleSpec &spec) {
  Expected<OperandSet> set = checkOperands(spec, tensors, 132);
  return set.ok() ? Status::success() : set.status();
}

/// The example tensors with one edit applied to the operand `role`.
template <typename Edit>
Status checkEdited(const std::string &role, Edit edit,
                   const BundleSpec &spec = exampleSpec()) {
  std::vector<TensorArg> tensors = exampleTensors();
  edit(find(tensors, role));
  return check(tensors, spec);
}

} // namespace

TEST(Tensor, tensor_symbols_bshd) {
  BundleSpec spec = exampleSpec();
  std::vector<TensorArg> tensors = exampleTensors();
  Expected<OperandSet> set = checkOperands(spec, tensors, 132);
  EXPECT_OK(set);
  if (!set.ok())
    return;
  const SymbolTable &s = set->symbols;
  EXPECT_EQ(*s.get(Symbol::Batch), 2);
  EXPECT_EQ(*s.get(Symbol::SeqQ), 1000);
  EXPECT_EQ(*s.get(Symbol::SeqK), 333);
  EXPECT_EQ(*s.get(Symbol::HeadsQ), 16);
  EXPECT_EQ(*s.get(Symbol::HeadsKV), 4);
  EXPECT_EQ(*s.get(Symbol::HeadDim), 128);
  EXPECT_EQ(*s.get(Symbol::HeadDimV), 128);
  EXPECT_EQ(*s.get(Symbol::NumSMs), 132);
  EXPECT_EQ(set->byRole.size(), size_t(5));
  EXPECT_TRUE(set->byRole.at("key") == &tensors[1]);
  // Without a device, num_sms stays unset.
  EXPECT_TRUE(!checkOperands(spec, tensors, -1)->symbols.get(Symbol::NumSMs));
}

TEST(Tensor, tensor_symbols_bhsd) {
  BundleSpec spec = exampleSpec(R"("layout": "bshd")", R"("layout": "bhsd")");
  std::vector<TensorArg> tensors = {
      tensor("query", DType::BF16, {2, 16, 1000, 128}, 0x10000000),
      tensor("key", DType::BF16, {2, 4, 333, 128}, 0x20000000),
      tensor("value", DType::BF16, {2, 4, 333, 128}, 0x30000000),
      tensor("output", DType::BF16, {2, 16, 1000, 128}, 0x40000000),
      tensor("lse", DType::F32, {2, 16, 1000}, 0x50000000),
  };
  Expected<OperandSet> set = checkOperands(spec, tensors, 132);
  EXPECT_OK(set);
  if (set.ok()) {
    EXPECT_EQ(*set->symbols.get(Symbol::SeqQ), 1000);
    EXPECT_EQ(*set->symbols.get(Symbol::HeadsKV), 4);
  }
  // bshd-shaped tensors under a bhsd bundle disagree somewhere.
  EXPECT_ERROR(check(exampleTensors(), spec), kTensor,
              "operand 'lse': dimension 1 (head) is 16, expected 1000 (heads_q, from 'query')");
}

TEST(Tensor, tensor_presence_errors) {
  BundleSpec spec = exampleSpec();
  std::vector<TensorArg> t = exampleTensors();
  t.erase(t.begin() + 2); // value
  EXPECT_ERROR(check(t, spec), kTensor,
              "missing operand 'value' (this attention_fwd bundle needs: query, key, "
              "value, output, lse)");
  t = exampleTensors();
  t.push_back(t[0]);
  EXPECT_ERROR(check(t, spec), kTensor, "operand 'query': passed more than once");
  t = exampleTensors();
  t[0].role = "querry";
  EXPECT_ERROR(check(t, spec), kTensor,
              "unknown operand role 'querry' (known: query, key, value, output, lse, bias");
  t[0].role = "";
  EXPECT_ERROR(check(t, spec), kTensor, "an operand has no role");
  // A known but unused role is checked like the others.
  t = exampleTensors();
  t.push_back(tensor("grad_output", DType::BF16, {2, 1000, 16, 128}, 0x60000000));
  EXPECT_OK(check(t, spec));
  t.back().sizes[1] = 999;
  EXPECT_ERROR(check(t, spec), kTensor,
              "operand 'grad_output': dimension 1 (seq) is 999, expected 1000 (seq_q, "
              "from 'query')");
}

TEST(Tensor, tensor_basic_errors) {
  EXPECT_ERROR(checkEdited("query", [](TensorArg &t) {
                t.sizes.pop_back();
                t.strides.pop_back();
              }),
              kTensor, "operand 'query': expected rank 4 [bshd: batch, seq, head, dim], got rank 3");
  EXPECT_ERROR(checkEdited("lse", [](TensorArg &t) {
                t.sizes.push_back(1);
                t.strides.push_back(1);
              }),
              kTensor, "operand 'lse': expected rank 3 [batch, head, seq], got rank 4");
  EXPECT_ERROR(checkEdited("key", [](TensorArg &t) { t.strides.pop_back(); }), kTensor,
              "operand 'key': 4 sizes but 3 strides");
  EXPECT_ERROR(checkEdited("query", [](TensorArg &t) { t.dtype = DType::F16; }), kTensor,
              "operand 'query': dtype is f16, expected bf16");
  EXPECT_ERROR(checkEdited("lse", [](TensorArg &t) { t.dtype = DType::BF16; }), kTensor,
              "operand 'lse': dtype is bf16, expected f32");
  EXPECT_ERROR(checkEdited("value", [](TensorArg &t) { t.sizes[1] = -1; }), kTensor,
              "operand 'value': dimension 1 (seq) has negative size -1");
  EXPECT_ERROR(checkEdited("value", [](TensorArg &t) { t.strides[0] = -5; }), kTensor,
              "operand 'value': dimension 0 (batch) has negative stride -5");
  EXPECT_ERROR(checkEdited("output", [](TensorArg &t) { t.strides[3] = 2; }), kTensor,
              "operand 'output': the innermost dimension (dim) must have stride 1, got 2");
  EXPECT_ERROR(checkEdited("output", [](TensorArg &t) { t.data = 0; }), kTensor,
              "operand 'output': null data pointer for a non-empty tensor");
  EXPECT_ERROR(checkEdited("lse", [](TensorArg &t) { t.data += 2; }), kTensor,
              "operand 'lse': address 0x50000002 is not aligned to its element size (4 bytes)");
}

TEST(Tensor, tensor_shape_agreement_errors) {
  EXPECT_ERROR(checkEdited("key", [](TensorArg &t) { t.sizes[0] = 3; }), kTensor,
              "operand 'key': dimension 0 (batch) is 3, expected 2 (batch, from 'query')");
  EXPECT_ERROR(checkEdited("key", [](TensorArg &t) { t.sizes[3] = 64; }), kTensor,
              "operand 'key': dimension 3 (dim) is 64, expected 128 (head_dim, from the "
              "bundle config)");
  EXPECT_ERROR(checkEdited("query", [](TensorArg &t) { t.sizes[3] = 64; }), kTensor,
              "operand 'query': dimension 3 (dim) is 64, expected 128 (head_dim");
  EXPECT_ERROR(checkEdited("value", [](TensorArg &t) { t.sizes[1] = 334; }), kTensor,
              "operand 'value': dimension 1 (seq) is 334, expected 333 (seq_k, from 'key')");
  EXPECT_ERROR(checkEdited("value", [](TensorArg &t) { t.sizes[2] = 8; }), kTensor,
              "operand 'value': dimension 2 (head) is 8, expected 4 (heads_kv, from 'key')");
  EXPECT_ERROR(checkEdited("output", [](TensorArg &t) { t.sizes[2] = 8; }), kTensor,
              "operand 'output': dimension 2 (head) is 8, expected 16 (heads_q, from 'query')");
  EXPECT_ERROR(checkEdited("output", [](TensorArg &t) { t.sizes[1] = 1001; }), kTensor,
              "operand 'output': dimension 1 (seq) is 1001, expected 1000 (seq_q");
  EXPECT_ERROR(checkEdited("lse", [](TensorArg &t) { t.sizes[2] = 999; }), kTensor,
              "operand 'lse': dimension 2 (seq) is 999, expected 1000 (seq_q, from 'query')");
  EXPECT_ERROR(checkEdited("lse", [](TensorArg &t) { t.sizes[1] = 4; }), kTensor,
              "operand 'lse': dimension 1 (head) is 4, expected 16 (heads_q");
  // head_dim_v differs from head_dim.
  BundleSpec dv = exampleSpec(R"("head_dim_v": 128)", R"("head_dim_v": 64)");
  EXPECT_ERROR(check(exampleTensors(), dv), kTensor,
              "operand 'value': dimension 3 (dim) is 128, expected 64 (head_dim_v, from "
              "the bundle config)");
  // GQA: heads_q must be a multiple of heads_kv.
  std::vector<TensorArg> t = exampleTensors();
  find(t, "key").sizes[2] = 5;
  find(t, "value").sizes[2] = 5;
  find(t, "key").strides = contiguousStrides(find(t, "key").sizes);
  find(t, "value").strides = contiguousStrides(find(t, "value").sizes);
  EXPECT_ERROR(check(t, exampleSpec()), kTensor,
              "heads_q (16) must be a multiple of heads_kv (5)");
  find(t, "key").sizes[2] = 1; // MQA
  find(t, "value").sizes[2] = 1;
  find(t, "key").strides = contiguousStrides(find(t, "key").sizes);
  find(t, "value").strides = contiguousStrides(find(t, "value").sizes);
  EXPECT_OK(check(t, exampleSpec()));
}

TEST(Tensor, tensor_tma_requirements) {
  EXPECT_ERROR(checkEdited("query", [](TensorArg &t) { t.data += 8; }), kTensor,
              "operand 'query': address 0x10000008 is not 16-byte aligned, as TMA "
              "requires (used by params[0] (tensor_map))");
  EXPECT_ERROR(checkEdited("key",
                          [](TensorArg &t) {
                            // Heads padded to 130 elements: 260-byte stride.
                            t.strides = {333 * 4 * 130, 4 * 130, 130, 1};
                          }),
              kTensor,
              "operand 'key': stride of dimension 2 (head) is 130 elements = 260 bytes, "
              "not a multiple of 16 as TMA requires (used by params[1] (tensor_map))");
  EXPECT_ERROR(checkEdited("key",
                          [](TensorArg &t) { t.strides = {int64_t(1) << 40, 512, 128, 1}; }),
              kTensor, "operand 'key': stride of dimension 0 (batch) is too large for TMA");
  // Padded but 16-byte multiple strides are fine, and so is any stride of a
  // size-1 dimension.
  EXPECT_OK(checkEdited("key", [](TensorArg &t) { t.strides = {333 * 4 * 136, 4 * 136, 136, 1}; }));
  std::vector<TensorArg> t = exampleTensors();
  for (TensorArg &x : t)
    x.sizes[0] = 1;
  find(t, "query").strides[0] = 3;
  EXPECT_OK(check(t, exampleSpec()));
  // Pointer operands: element alignment by default, "align" when given.
  EXPECT_OK(checkEdited("output", [](TensorArg &t) { t.data += 2; }));
  BundleSpec aligned = exampleSpec(R"({"kind": "ptr", "operand": "output"})",
                                   R"({"kind": "ptr", "operand": "output", "align": 16})");
  EXPECT_ERROR(checkEdited("output", [](TensorArg &t) { t.data += 2; }, aligned), kTensor,
              "operand 'output': address 0x40000002 is not 16-byte aligned (params[2], ptr)");
}

TEST(Tensor, tensor_bias_broadcast) {
  BundleSpec spec = exampleSpec(R"({"kind": "ptr", "operand": "lse"})",
                                R"({"kind": "ptr", "operand": "lse"}, {"kind": "ptr", "operand": "bias"})");
  std::vector<TensorArg> t = exampleTensors();
  t.push_back(tensor("bias", DType::BF16, {1, 16, 1000, 333}, 0x70000000));
  t.back().strides[0] = 0;
  EXPECT_OK(check(t, spec));
  t.back().sizes = {2, 1, 1000, 333};
  EXPECT_OK(check(t, spec));
  t.back().sizes = {3, 16, 1000, 333};
  EXPECT_ERROR(check(t, spec), kTensor,
              "operand 'bias': dimension 0 (batch) is 3, expected 2 (batch, from 'query') or 1");
  t.back().sizes = {2, 16, 1000, 1};
  EXPECT_ERROR(check(t, spec), kTensor,
              "operand 'bias': dimension 3 (seq_k) is 1, expected 333 (seq_k, from 'key')");
  t.pop_back();
  EXPECT_ERROR(check(t, spec), kTensor, "missing operand 'bias'");
}

TEST(Tensor, tensor_scratch_shapes) {
  BundleSpec spec = exampleSpec(
      R"("params": [)",
      R"("scratch": [{"name": "counters", "dtype": "i32", "dims": ["sm"], "shape": ["num_sms"]},
                     {"name": "dq_accum", "dtype": "f32", "dims": ["batch", "head", "seq", "dim"],
                      "shape": ["batch", "heads_q", "ceildiv(seq_q, 64) * 64", "head_dim"]}],
         "params": [)");
  std::vector<TensorArg> t = exampleTensors();
  t.push_back(tensor("counters", DType::I32, {132}, 0x80000000));
  t.push_back(tensor("dq_accum", DType::F32, {2, 16, 1024, 128}, 0x90000000));
  EXPECT_OK(check(t, spec));
  find(t, "dq_accum").sizes[2] = 1000;
  EXPECT_ERROR(check(t, spec), kTensor,
              "operand 'dq_accum': dimension 2 (seq) is 1000, expected 1024 "
              "(ceildiv(seq_q, 64) * 64)");
  find(t, "dq_accum").sizes[2] = 1024;
  find(t, "counters").dtype = DType::I64;
  EXPECT_ERROR(check(t, spec), kTensor, "operand 'counters': dtype is i64, expected i32");
  find(t, "counters").dtype = DType::I32;
  EXPECT_ERROR(checkOperands(spec, t, -1), ErrorCode::Expression,
              "scratch 'counters' shape[0]: expression \"num_sms\": symbol 'num_sms' has no value");
  t.pop_back();
  EXPECT_ERROR(check(t, spec), kTensor, "missing operand 'dq_accum'");
}

// score_mod/mask_mod captures (docs/BundleFormat.md, *Captures*): required
// operands of the listed dtype and rank, any sizes, read by ptr and stride()
// parameters.
TEST(Tensor, tensor_captures) {
  BundleSpec spec = exampleSpec(
      R"("params": [)",
      R"J("captures": [{"name": "capture0", "dtype": "f32", "dims": ["dim0"]},
                       {"name": "capture1", "dtype": "i32", "dims": ["dim0", "dim1"]}],
         "params": [{"kind": "ptr", "operand": "capture1"},
                    {"kind": "i64", "value": "stride(capture1, dim0)"},)J");
  EXPECT_EQ(joined(spec.requiredOperands),
            "query,key,value,output,lse,capture1,capture0");
  std::vector<TensorArg> t = exampleTensors();
  t.push_back(tensor("capture0", DType::F32, {16}, 0x80000000));
  t.push_back(tensor("capture1", DType::I32, {2, 1000}, 0x90000000));
  Expected<OperandSet> set = checkOperands(spec, t, 132);
  EXPECT_OK(set);
  // Any sizes: the regions index the captures as the user's code says.
  find(t, "capture1").sizes = {1, 7};
  EXPECT_OK(check(t, spec));
  find(t, "capture1").dtype = DType::I64;
  EXPECT_ERROR(check(t, spec), kTensor, "operand 'capture1': dtype is i64, expected i32");
  find(t, "capture1").dtype = DType::I32;
  find(t, "capture0").sizes = {4, 4};
  find(t, "capture0").strides = {4, 1};
  EXPECT_ERROR(check(t, spec), kTensor,
               "operand 'capture0': expected rank 1 [dim0], got rank 2");
  t.pop_back();
  EXPECT_ERROR(check(t, spec), kTensor, "missing operand 'capture1'");
}

TEST(Tensor, tensor_capture_list_errors) {
  auto parse = [](const std::string &captures) {
    std::string text = replaceOnce(exampleBundleText(), R"("params": [)",
                                   R"("captures": )" + captures + R"(, "params": [)");
    return parseBundleSpec(text, "").status();
  };
  EXPECT_ERROR(parse(R"({"name": "c"})"), ErrorCode::InvalidBundle, "captures");
  EXPECT_ERROR(parse(R"([{"name": "bias", "dtype": "f32", "dims": ["d"]}])"),
               ErrorCode::InvalidBundle, "\"bias\" is a standard operand role");
  EXPECT_ERROR(parse(R"([{"name": "c", "dtype": "f32", "dims": ["d"]},
                        {"name": "c", "dtype": "i32", "dims": ["d"]}])"),
               ErrorCode::InvalidBundle, "duplicate captures name \"c\"");
  EXPECT_ERROR(parse(R"([{"name": "c", "dtype": "f32", "dims": []}])"),
               ErrorCode::InvalidBundle, "expected an array of 1 to 8 dimension names");
  EXPECT_ERROR(parse(R"([{"name": "c", "dtype": "f32", "dims": ["d"], "shape": [4]}])"),
               ErrorCode::InvalidBundle, "shape");
}
