//===- BiasGradTest.cpp - The backward with a bias: grad_bias, dBias ------===//
//
// Inputs/bwd_bias.json is the sm_90a backward sequence of a biased
// fa.attention_grad over the stub cubin: pre, main (which reads the bias
// and adds into the f32 dbias_accum workspace), post, and the dBias kernel
// (dbias_accum -> grad_bias). Its config has "bias": true, "bias_dtype":
// "f32" and "bias_broadcast": []; biasSequence() writes the same five files
// for another broadcast, where dbias_accum's shape and the dBias grid take
// the literal 1 for each broadcast dim.
//
//===----------------------------------------------------------------------===//
#include "FakeCuda.h"
#include "TestUtil.h"

#include "fa/Runtime/ParamPack.h"
#include "fa/Runtime/Sequence.h"

#include <algorithm>
#include <cstring>

using namespace fa::runtime;
using namespace fa::runtime::test;

namespace {

const char *const kFiles[] = {"bwd_bias.json", "bwd_bias_pre.json",
                              "bwd_bias_main.json", "bwd_bias_post.json",
                              "bwd_bias_dbias.json"};
const char *const kNoBroadcast = "\"bias_broadcast\": []";
const char *const kFullAccum = R"(["batch", "heads_q", "seq_q", "seq_k"])";
const char *const kFullGrid = R"(["seq_q", "heads_q", "batch"])";

/// The bias sequence broadcast along batch and/or head (config.bias_broadcast
/// in all five documents, the literal 1 in dbias_accum's shape and the dBias
/// grid), written to `dir`; returns the sequence's path.
std::string biasSequence(const TempDir &dir, bool batch, bool head) {
  std::string list = std::string(batch ? "\"batch\"" : "") +
                     (batch && head ? ", " : "") + (head ? "\"head\"" : "");
  std::string accum = std::string("[\"") + (batch ? "1" : "batch") + "\", \"" +
                      (head ? "1" : "heads_q") + "\", \"seq_q\", \"seq_k\"]";
  std::string grid = std::string("[\"seq_q\", \"") + (head ? "1" : "heads_q") +
                     "\", \"" + (batch ? "1" : "batch") + "\"]";
  for (const char *name : kFiles) {
    std::string text = replaceOnce(readInput(name), kNoBroadcast,
                                   "\"bias_broadcast\": [" + list + "]");
    if (text.find(kFullAccum) != std::string::npos)
      text = replaceOnce(text, kFullAccum, accum);
    if (text.find(kFullGrid) != std::string::npos)
      text = replaceOnce(text, kFullGrid, grid);
    std::ofstream(dir.path() + "/" + name) << text;
  }
  std::ofstream(dir.path() + "/stub_kernels.cubin", std::ios::binary)
      << readInput("stub_kernels.cubin");
  return dir.path() + "/bwd_bias.json";
}

std::unique_ptr<Sequence> load(const std::string &path) {
  Expected<std::unique_ptr<Sequence>> s = Sequence::load(path);
  EXPECT_OK(s);
  return s.ok() ? std::move(*s) : nullptr;
}

std::unique_ptr<Sequence> loaded() {
  return load(inputsDir() + "/bwd_bias.json");
}

/// The dBias kernel alone, its config changed from `from` to `to`.
Expected<std::unique_ptr<Bundle>> dbiasKernel(const std::string &from = "",
                                              const std::string &to = "") {
  std::string text = readInput("bwd_bias_dbias.json");
  if (!from.empty())
    text = replaceOnce(text, from, to);
  return bundleFromText(text);
}

Status configError(const std::string &field) {
  return dbiasKernel(kNoBroadcast, field).status();
}

// bshd, bf16, d=128: batch 2, seq_q 1000, seq_k 333, heads_q 16, heads_kv 4.
const int64_t kB = 2, kH = 16, kSq = 1000, kSk = 333;

TensorArg biasTensor(const std::string &role, int64_t batch, int64_t heads,
                     uint64_t data) {
  return tensor(role, DType::F32, {batch, heads, kSq, kSk}, data);
}

/// The backward's operands with a bias of [batch, heads, Sq, Sk] and its
/// gradient of the same shape.
std::vector<TensorArg> biasTensors(int64_t batch = kB, int64_t heads = kH) {
  std::vector<TensorArg> t = exampleTensors(kSq, kSk);
  t.push_back(tensor("grad_output", DType::BF16, {kB, kSq, kH, 128}, 0x11000000));
  t.push_back(tensor("grad_query", DType::BF16, {kB, kSq, kH, 128}, 0x12000000));
  t.push_back(tensor("grad_key", DType::BF16, {kB, kSk, 4, 128}, 0x13000000));
  t.push_back(tensor("grad_value", DType::BF16, {kB, kSk, 4, 128}, 0x14000000));
  t.push_back(biasTensor("bias", batch, heads, 0x15000000));
  t.push_back(biasTensor("grad_bias", batch, heads, 0x16000000));
  return t;
}

/// dq_accum (1024 padded rows) and lse_log2 of the example sizes.
const int64_t kDqAccumBytes = kB * kH * 1024 * 128 * 4;
const int64_t kLseLog2Bytes = kB * kH * 1024 * 4;
int64_t dbiasAccumBytes(int64_t batch, int64_t heads) {
  return batch * heads * kSq * kSk * 4;
}

TensorMapEncoder noEncode() {
  return [](const TensorMapRequest &, void *) { return Status::success(); };
}

/// The fake driver with the parameter sizes of the stub cubin's kernels.
FakeCudaState *useFakeBiasDriver() {
  FakeCudaState *s = useFakeDriver();
  const struct {
    const char *name;
    std::vector<size_t> sizes;
  } kernels[] = {{"helper_kernel", {8, 8}},
                 {"fa_bwd_bias_main", {128, 8, 8, 8, 8, 8, 8, 4, 4, 4}},
                 {"fa_bwd_dbias", {8, 8, 8, 8, 8, 4, 4}}};
  for (int i = 0; i < 3; ++i) {
    std::strcpy(s->functions[i].name, kernels[i].name);
    for (size_t j = 0; j < kernels[i].sizes.size(); ++j)
      s->functions[i].paramSizes[j] = kernels[i].sizes[j];
  }
  return s;
}

} // namespace

//===----------------------------------------------------------------------===//
// config.bias and config.bias_broadcast
//===----------------------------------------------------------------------===//

TEST(BiasGrad, sequence_loads) {
  std::unique_ptr<Sequence> s = loaded();
  ASSERT_TRUE(s != nullptr);
  EXPECT_EQ(s->kernels().size(), size_t(4));
  EXPECT_EQ(s->kernelNames(),
            std::string("helper_kernel,fa_bwd_bias_main,helper_kernel,fa_bwd_dbias"));
  // The op's operands with a bias: bias and grad_bias after the nine.
  EXPECT_EQ(joined(s->requiredOperands()),
            std::string("query,key,value,output,lse,grad_output,grad_query,"
                        "grad_key,grad_value,bias,grad_bias"));
  const BundleConfig &c = s->kernels()[3]->spec().config;
  EXPECT_TRUE(c.bias);
  EXPECT_EQ(c.biasDType, DType::F32);
  ASSERT_TRUE(c.biasBroadcast.has_value());
  EXPECT_FALSE((*c.biasBroadcast)[0]);
  EXPECT_FALSE((*c.biasBroadcast)[1]);
}

TEST(BiasGrad, bias_broadcast_forms) {
  const struct {
    const char *json;
    bool batch, head;
  } forms[] = {{"[]", false, false},
               {"[\"batch\"]", true, false},
               {"[\"head\"]", false, true},
               {"[\"batch\", \"head\"]", true, true}};
  for (const auto &f : forms) {
    Expected<std::unique_ptr<Bundle>> b =
        dbiasKernel(kNoBroadcast, std::string("\"bias_broadcast\": ") + f.json);
    ASSERT_OK(b);
    const BundleConfig &c = (*b)->spec().config;
    ASSERT_TRUE(c.biasBroadcast.has_value()) << f.json;
    EXPECT_EQ((*c.biasBroadcast)[0], f.batch) << f.json;
    EXPECT_EQ((*c.biasBroadcast)[1], f.head) << f.json;
  }
  // Absent: the forward bundles' form (each dim 1 or full).
  Expected<std::unique_ptr<Bundle>> b = dbiasKernel(", " + std::string(kNoBroadcast), "");
  ASSERT_OK(b);
  EXPECT_TRUE((*b)->spec().config.bias);
  EXPECT_FALSE((*b)->spec().config.biasBroadcast.has_value());
}

TEST(BiasGrad, error_bias_broadcast_not_an_array) {
  const char *expected = "config.bias_broadcast: expected an array of the bias "
                         "dims that broadcast: [], [\"batch\"], [\"head\"] or "
                         "[\"batch\", \"head\"], got ";
  EXPECT_ERROR(configError("\"bias_broadcast\": \"batch\""),
               ErrorCode::InvalidBundle, std::string(expected) + "string");
  EXPECT_ERROR(configError("\"bias_broadcast\": {}"), ErrorCode::InvalidBundle,
               std::string(expected) + "object");
  EXPECT_ERROR(configError("\"bias_broadcast\": null"), ErrorCode::InvalidBundle,
               std::string(expected) + "null");
  EXPECT_ERROR(configError("\"bias_broadcast\": 2"), ErrorCode::InvalidBundle,
               std::string(expected) + "number");
  EXPECT_ERROR(configError(R"("bias_broadcast": ["batch", "head", "batch"])"),
               ErrorCode::InvalidBundle, std::string(expected) + "an array of 3 entries");
  EXPECT_ERROR(configError(R"("bias_broadcast": [0])"), ErrorCode::InvalidBundle,
               "config.bias_broadcast[0]: expected an array of the bias dims");
  EXPECT_ERROR(configError(R"("bias_broadcast": ["batch", null])"),
               ErrorCode::InvalidBundle, "config.bias_broadcast[1]: expected");
}

TEST(BiasGrad, error_bias_broadcast_unknown_dim) {
  EXPECT_ERROR(configError(R"("bias_broadcast": ["seq_q"])"),
               ErrorCode::InvalidBundle,
               "config.bias_broadcast[0]: unknown bias dim \"seq_q\" (known: "
               "batch, head)");
  EXPECT_ERROR(configError(R"("bias_broadcast": ["batch", "heads"])"),
               ErrorCode::InvalidBundle,
               "config.bias_broadcast[1]: unknown bias dim \"heads\"");
  EXPECT_ERROR(configError(R"("bias_broadcast": ["Batch"])"),
               ErrorCode::InvalidBundle,
               "config.bias_broadcast[0]: unknown bias dim \"Batch\"");
}

TEST(BiasGrad, error_bias_broadcast_order_and_duplicates) {
  EXPECT_ERROR(configError(R"("bias_broadcast": ["head", "batch"])"),
               ErrorCode::InvalidBundle,
               "config.bias_broadcast[1]: \"batch\" must come before \"head\" "
               "(the order is batch, head)");
  EXPECT_ERROR(configError(R"("bias_broadcast": ["batch", "batch"])"),
               ErrorCode::InvalidBundle,
               "config.bias_broadcast[1]: duplicate bias dim \"batch\"");
  EXPECT_ERROR(configError(R"("bias_broadcast": ["head", "head"])"),
               ErrorCode::InvalidBundle,
               "config.bias_broadcast[1]: duplicate bias dim \"head\"");
}

TEST(BiasGrad, error_bias_broadcast_without_bias) {
  const char *msg = "config.bias_broadcast: is only allowed with \"bias\": "
                    "true (the kernel reads no bias)";
  EXPECT_ERROR(dbiasKernel("\"bias\": true", "\"bias\": false"),
               ErrorCode::InvalidBundle, msg);
  // "bias" absent is false; even the empty list says the kernel has one.
  EXPECT_ERROR(dbiasKernel("\"bias\": true, ", ""), ErrorCode::InvalidBundle, msg);
}

TEST(BiasGrad, error_bias_not_a_boolean) {
  EXPECT_ERROR(dbiasKernel("\"bias\": true", "\"bias\": \"yes\""),
               ErrorCode::InvalidBundle, "config.bias: expected a boolean, got string");
  EXPECT_ERROR(dbiasKernel("\"bias\": true", "\"bias\": 1"),
               ErrorCode::InvalidBundle, "config.bias: expected a boolean, got number");
}

TEST(BiasGrad, error_sequence_and_kernel_disagree) {
  // Each kernel checks bias and grad_bias with its own config.
  std::string text = replaceOnce(readInput("bwd_bias.json"), kNoBroadcast,
                                 "\"bias_broadcast\": [\"batch\"]");
  EXPECT_ERROR(Sequence::fromText(text, inputsDir()), ErrorCode::InvalidBundle,
               "kernels[0].config.bias_broadcast: [] differs from the "
               "sequence's [batch]");
  text = replaceOnce(readInput("bwd_bias.json"), ", \"bias_broadcast\": []", "");
  EXPECT_ERROR(Sequence::fromText(text, inputsDir()), ErrorCode::InvalidBundle,
               "kernels[0].config.bias_broadcast: [] differs from the "
               "sequence's absent");
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  std::string path = biasSequence(dir, true, true);
  std::ofstream(dir.path() + "/bwd_bias_post.json") << readInput("bwd_bias_post.json");
  EXPECT_ERROR(Sequence::load(path), ErrorCode::InvalidBundle,
               "kernels[2].config.bias_broadcast: [] differs from the "
               "sequence's [batch, head]");
}

//===----------------------------------------------------------------------===//
// The grad_bias role
//===----------------------------------------------------------------------===//

TEST(BiasGrad, grad_bias_role) {
  EXPECT_TRUE(isStandardRole("grad_bias"));
  Expected<std::unique_ptr<Bundle>> b = dbiasKernel();
  ASSERT_OK(b);
  const BundleSpec &spec = (*b)->spec();
  EXPECT_EQ(operandDims(spec, "grad_bias"),
            (std::vector<std::string>{"batch", "head", "seq_q", "seq_k"}));
  EXPECT_EQ(*operandDType(spec, "grad_bias"), DType::F32);
  // bias_dtype decides both.
  Expected<std::unique_ptr<Bundle>> bf =
      dbiasKernel("\"bias_dtype\": \"f32\"", "\"bias_dtype\": \"bf16\"");
  ASSERT_OK(bf);
  EXPECT_EQ(*operandDType((*bf)->spec(), "grad_bias"), DType::BF16);
  EXPECT_EQ(*operandDType((*bf)->spec(), "bias"), DType::BF16);
  // The kernel's own required operands: what its parameters name.
  EXPECT_EQ(joined(spec.requiredOperands), std::string("dbias_accum,grad_bias"));
  // stride() knows its dims.
  EXPECT_ERROR(dbiasKernel("stride(grad_bias, seq_q)", "stride(grad_bias, seq)"),
               ErrorCode::InvalidBundle,
               "params[4].value: expression \"stride(grad_bias, seq)\": stride(): "
               "operand 'grad_bias' has no dimension 'seq' (its dims: batch, head, "
               "seq_q, seq_k)");
}

TEST(BiasGrad, grad_bias_dtype_rank_and_sizes) {
  std::unique_ptr<Sequence> s = loaded();
  ASSERT_TRUE(s != nullptr);
  EXPECT_OK(s->check(biasTensors(), 132));
  // The operands with grad_bias changed by `edit`.
  auto with = [&](auto edit) {
    std::vector<TensorArg> t = biasTensors();
    edit(find(t, "grad_bias"));
    return s->check(t, 132);
  };
  auto sized = [](std::vector<int64_t> sizes) {
    return [sizes](TensorArg &g) {
      g.sizes = sizes;
      g.strides = contiguousStrides(sizes);
    };
  };
  EXPECT_ERROR(with([](TensorArg &g) { g.dtype = DType::BF16; }), ErrorCode::Tensor,
               "operand 'grad_bias': dtype is bf16, expected f32");
  EXPECT_ERROR(with(sized({kB, kH, kSq})), ErrorCode::Tensor,
               "operand 'grad_bias': expected rank 4 [batch, head, seq_q, seq_k], "
               "got rank 3");
  EXPECT_ERROR(with(sized({kB, kH, kSq, kSk + 1})), ErrorCode::Tensor,
               "operand 'grad_bias': dimension 3 (seq_k) is 334, expected 333 "
               "(seq_k, from 'key')");
  EXPECT_ERROR(with(sized({kB, kH, kSq - 1, kSk})), ErrorCode::Tensor,
               "operand 'grad_bias': dimension 2 (seq_q) is 999, expected 1000 "
               "(seq_q, from 'query')");
  EXPECT_ERROR(with([](TensorArg &g) { g.strides[3] = 2; }), ErrorCode::Tensor,
               "operand 'grad_bias': the innermost dimension (seq_k) must have "
               "stride 1, got 2");
}

TEST(BiasGrad, bias_and_grad_bias_are_required) {
  std::unique_ptr<Sequence> s = loaded();
  ASSERT_TRUE(s != nullptr);
  for (const char *role : {"bias", "grad_bias"}) {
    std::vector<TensorArg> t = biasTensors();
    t.erase(std::find_if(t.begin(), t.end(),
                         [&](const TensorArg &a) { return a.role == role; }));
    EXPECT_ERROR(s->check(t, 132), ErrorCode::Tensor,
                 std::string("missing operand '") + role +
                     "' (this attention_bwd bundle needs: query, key, value, "
                     "output, lse, grad_output, grad_query, grad_key, grad_value, "
                     "bias, grad_bias)");
  }
}

TEST(BiasGrad, required_by_the_op_not_only_by_the_kernels) {
  // config.bias on attention_bwd requires both, whatever the kernels name:
  // the no-bias test sequence with only the flag added.
  std::string text = replaceOnce(readInput("bwd.json"), "\"deterministic\": false",
                                 "\"deterministic\": false, \"bias\": true");
  Expected<std::unique_ptr<Sequence>> s = Sequence::fromText(text, inputsDir());
  ASSERT_OK(s);
  EXPECT_EQ(joined((*s)->requiredOperands()),
            std::string("query,key,value,output,lse,grad_output,grad_query,"
                        "grad_key,grad_value,bias,grad_bias"));
  // Without it neither is required; passed anyway, both are checked (as any
  // standard role that is passed but not required).
  Expected<std::unique_ptr<Sequence>> plain =
      Sequence::fromText(readInput("bwd.json"), inputsDir());
  ASSERT_OK(plain);
  EXPECT_EQ(joined((*plain)->requiredOperands()),
            std::string("query,key,value,output,lse,grad_output,grad_query,"
                        "grad_key,grad_value"));
  std::vector<TensorArg> t = biasTensors();
  find(t, "bias").dtype = DType::BF16; // bias_dtype defaults to out_dtype
  find(t, "grad_bias").dtype = DType::BF16;
  EXPECT_OK((*plain)->check(t, 132));
  find(t, "grad_bias").dtype = DType::F32;
  EXPECT_ERROR((*plain)->check(t, 132), ErrorCode::Tensor,
               "operand 'grad_bias': dtype is f32, expected bf16");
  // Other ops add nothing for the flag.
  EXPECT_EQ(joined(opOperands("attention_bwd_dbias", (*s)->kernels()[0]->spec().config)),
            std::string(""));
}

//===----------------------------------------------------------------------===//
// Broadcast rules
//===----------------------------------------------------------------------===//

TEST(BiasGrad, no_broadcast_needs_full_extents) {
  std::unique_ptr<Sequence> s = loaded();
  ASSERT_TRUE(s != nullptr);
  EXPECT_ERROR(s->check(biasTensors(1, kH), 132), ErrorCode::Tensor,
               "operand 'bias': dimension 0 (batch) is 1, expected 2 (batch, from "
               "'query'); config.bias_broadcast does not list batch, so the kernel "
               "reads it in full");
  std::vector<TensorArg> t = biasTensors();
  find(t, "grad_bias") = biasTensor("grad_bias", kB, 1, 0x16000000);
  EXPECT_ERROR(s->check(t, 132), ErrorCode::Tensor,
               "operand 'grad_bias': dimension 1 (head) is 1, expected 16 "
               "(heads_q, from 'query'); config.bias_broadcast does not list head");
}

TEST(BiasGrad, listed_dims_must_be_one) {
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  std::unique_ptr<Sequence> s = load(biasSequence(dir, true, false));
  ASSERT_TRUE(s != nullptr);
  EXPECT_OK(s->check(biasTensors(1, kH), 132));
  EXPECT_ERROR(s->check(biasTensors(kB, kH), 132), ErrorCode::Tensor,
               "operand 'bias': dimension 0 (batch) is 2, expected 1 "
               "(config.bias_broadcast lists batch: the kernel is specialised on "
               "a bias broadcast along it)");
  std::vector<TensorArg> t = biasTensors(1, kH);
  find(t, "grad_bias") = biasTensor("grad_bias", kB, kH, 0x16000000);
  EXPECT_ERROR(s->check(t, 132), ErrorCode::Tensor,
               "operand 'grad_bias': dimension 0 (batch) is 2, expected 1 "
               "(config.bias_broadcast lists batch");
  // head is not listed: full.
  EXPECT_ERROR(s->check(biasTensors(1, 1), 132), ErrorCode::Tensor,
               "operand 'bias': dimension 1 (head) is 1, expected 16 (heads_q, "
               "from 'query'); config.bias_broadcast does not list head");
}

TEST(BiasGrad, every_broadcast_form_checks_and_sizes_its_workspace) {
  for (bool batch : {false, true})
    for (bool head : {false, true}) {
      SCOPED_TRACE(std::string("batch ") + (batch ? "1" : "B") + ", head " +
                   (head ? "1" : "H"));
      TempDir dir;
      ASSERT_FALSE(dir.path().empty());
      std::unique_ptr<Sequence> s = load(biasSequence(dir, batch, head));
      ASSERT_TRUE(s != nullptr);
      int64_t b = batch ? 1 : kB, h = head ? 1 : kH;
      std::vector<TensorArg> t = biasTensors(b, h);
      EXPECT_OK(s->check(t, 132));
      Expected<std::vector<WorkspaceBuffer>> w = s->workspace(t, 132);
      ASSERT_OK(w);
      ASSERT_EQ(w->size(), size_t(3));
      const WorkspaceBuffer &accum = (*w)[2];
      EXPECT_EQ(accum.spec->name, std::string("dbias_accum"));
      EXPECT_EQ(accum.sizes, (std::vector<int64_t>{b, h, kSq, kSk}));
      EXPECT_EQ(accum.strides, contiguousStrides({b, h, kSq, kSk}));
      EXPECT_TRUE(accum.zeroInit);
      Expected<int64_t> bytes = s->workspaceBytes(t, -1);
      ASSERT_OK(bytes);
      EXPECT_EQ(*bytes, kDqAccumBytes + kLseLog2Bytes + dbiasAccumBytes(b, h));
      // The other extent of a dim is refused, as are mismatched gradients.
      if (batch || head) {
        EXPECT_ERROR(s->check(biasTensors(kB, kH), 132), ErrorCode::Tensor,
                     "expected 1 (config.bias_broadcast lists");
      }
      // The dBias kernel's grid takes the literal 1 where it broadcasts.
      Expected<LaunchPlan> plan = s->kernels()[3]->plan(
          [&] {
            std::vector<TensorArg> k = t;
            k.push_back(tensor("dbias_accum", DType::F32, {b, h, kSq, kSk}, 0x70000000));
            return k;
          }(),
          132, noEncode());
      ASSERT_OK(plan);
      EXPECT_EQ(plan->grid, (std::array<uint32_t, 3>{uint32_t(kSq), uint32_t(h),
                                                     uint32_t(b)}));
    }
}

TEST(BiasGrad, without_bias_broadcast_either_extent_but_grad_matches_bias) {
  // A config with "bias": true and no bias_broadcast (the forward bundles'
  // form): each dim 1 or full, and grad_bias in bias's shape.
  Expected<std::unique_ptr<Bundle>> k =
      dbiasKernel(", " + std::string(kNoBroadcast), "");
  ASSERT_OK(k);
  std::vector<TensorArg> t = biasTensors(1, kH);
  t.push_back(tensor("dbias_accum", DType::F32, {kB, kH, kSq, kSk}, 0x70000000));
  EXPECT_OK((*k)->plan(t, 132, noEncode()));
  find(t, "grad_bias") = biasTensor("grad_bias", kB, kH, 0x16000000);
  EXPECT_ERROR((*k)->plan(t, 132, noEncode()), ErrorCode::Tensor,
               "operand 'grad_bias': dimension 0 (batch) is 2, expected 1 (the size "
               "of 'bias' there: grad_bias has bias's shape)");
  find(t, "bias") = biasTensor("bias", kB, 1, 0x15000000);
  EXPECT_ERROR((*k)->plan(t, 132, noEncode()), ErrorCode::Tensor,
               "operand 'grad_bias': dimension 1 (head) is 16, expected 1");
  // grad_bias alone (no bias passed) is checked against the symbols only.
  std::vector<TensorArg> g;
  for (const TensorArg &a : t)
    if (a.role != "bias")
      g.push_back(a);
  EXPECT_OK((*k)->plan(g, 132, noEncode()));
}

TEST(BiasGrad, expanded_bias_reads_with_stride_zero) {
  // A bias expanded along batch and heads (stride 0) is the full extent to
  // the kernel; stride(bias, ...) passes the 0 on.
  std::unique_ptr<Sequence> s = loaded();
  ASSERT_TRUE(s != nullptr);
  std::vector<TensorArg> t = biasTensors();
  find(t, "bias").strides = {0, 0, kSk, 1};
  EXPECT_OK(s->check(t, 132));
  std::vector<TensorArg> k = t;
  k.push_back(tensor("dq_accum", DType::F32, {kB, kH, 1024, 128}, 0x60000000));
  k.push_back(tensor("lse_log2", DType::F32, {kB, kH, 1024}, 0x68000000));
  k.push_back(tensor("dbias_accum", DType::F32, {kB, kH, kSq, kSk}, 0x70000000));
  Expected<LaunchPlan> plan = s->kernels()[1]->plan(k, 132, noEncode());
  ASSERT_OK(plan);
  EXPECT_EQ(i64Params(s->kernels()[1]->spec(), *plan),
            (std::vector<int64_t>{0, 0, kSk}));
}

//===----------------------------------------------------------------------===//
// Launching (fake driver)
//===----------------------------------------------------------------------===//

TEST(BiasGrad, launch_binds_bias_grad_bias_and_dbias_accum) {
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  FakeCudaState *fake = useFakeBiasDriver();
  // Broadcast along heads: dbias_accum [B, 1, Sq, Sk], dBias grid z = B, y = 1.
  std::unique_ptr<Sequence> s = load(biasSequence(dir, false, true));
  ASSERT_TRUE(s != nullptr);
  std::vector<TensorArg> t = biasTensors(kB, 1);
  EXPECT_OK(s->launch(t, nullptr));
  EXPECT_EQ(kinds(fake),
            std::string("alloc alloc alloc memset32 memset32 launch(helper_kernel) "
                        "launch(fa_bwd_bias_main) launch(helper_kernel) "
                        "launch(fa_bwd_dbias) free free free"));
  ASSERT_EQ(fake->numEvents, 12);
  const FakeEvent *e = fake->events;
  EXPECT_EQ(e[2].count, uint64_t(dbiasAccumBytes(kB, 1)));
  // dq_accum and dbias_accum ("init": "zero") are cleared.
  EXPECT_EQ(e[3].ptr, e[0].ptr);
  EXPECT_EQ(e[4].ptr, e[2].ptr);
  EXPECT_EQ(e[4].count, uint64_t(dbiasAccumBytes(kB, 1) / 4));
  // The main kernel: dq_accum, bias and its strides (0 along the broadcast
  // heads), dbias_accum, seq_q, seq_k, heads_q / heads_kv.
  auto words = [](const FakeEvent &launch, size_t from, size_t to) {
    return std::vector<uint64_t>(launch.paramWords + from, launch.paramWords + to);
  };
  const uint64_t sqsk = kSq * kSk, sk = kSk, sq = kSq;
  EXPECT_EQ(words(e[6], 1, 10),
            (std::vector<uint64_t>{e[0].ptr, 0x15000000, sqsk, 0, sk, e[2].ptr, sq, sk, 4}));
  // The dBias kernel: the same accumulator into the caller's grad_bias.
  EXPECT_EQ(words(e[8], 0, 7),
            (std::vector<uint64_t>{e[2].ptr, 0x16000000, sqsk, 0, sk, sq, sk}));
  EXPECT_EQ(fake->grid[0], uint32_t(kSq));
  EXPECT_EQ(fake->grid[1], 1u);
  EXPECT_EQ(fake->grid[2], uint32_t(kB));
  EXPECT_EQ(fake->block[0], 256u);
  EXPECT_EQ(fake->sharedMem, 0u);
  // Everything allocated is freed after the last kernel.
  EXPECT_EQ(e[9].ptr, e[0].ptr);
  EXPECT_EQ(e[10].ptr, e[1].ptr);
  EXPECT_EQ(e[11].ptr, e[2].ptr);
}

TEST(BiasGrad, launch_with_passed_dbias_accum) {
  FakeCudaState *fake = useFakeBiasDriver();
  std::unique_ptr<Sequence> s = loaded();
  ASSERT_TRUE(s != nullptr);
  std::vector<TensorArg> t = biasTensors();
  t.push_back(tensor("dbias_accum", DType::F32, {kB, kH, kSq, kSk}, 0x60000000));
  EXPECT_OK(s->launch(t, nullptr));
  EXPECT_EQ(kinds(fake),
            std::string("alloc alloc memset32 memset32 launch(helper_kernel) "
                        "launch(fa_bwd_bias_main) launch(helper_kernel) "
                        "launch(fa_bwd_dbias) free free"));
  EXPECT_EQ(fake->events[3].ptr, uint64_t(0x60000000)); // zeroed
  EXPECT_EQ(fake->events[7].paramWords[0], uint64_t(0x60000000));
  // A passed one must have the evaluated shape (dense, as every zeroed
  // workspace buffer: SequenceTest).
  find(t, "dbias_accum").sizes[1] = 1;
  EXPECT_ERROR(s->check(t, 132), ErrorCode::Tensor,
               "operand 'dbias_accum': dimension 1 (head) is 1, expected 16 (heads_q)");
}

TEST(BiasGrad, launch_dbias_accum_alloc_failure_frees) {
  FakeCudaState *fake = useFakeBiasDriver();
  std::unique_ptr<Sequence> s = loaded();
  ASSERT_TRUE(s != nullptr);
  fake->allocFailAt = 3;
  EXPECT_ERROR(s->launch(biasTensors(), nullptr), ErrorCode::Driver,
               "workspace 'dbias_accum' (" + std::to_string(dbiasAccumBytes(kB, kH)) +
                   " bytes): cuMemAllocAsync failed: CUDA_ERROR_OUT_OF_MEMORY");
  EXPECT_EQ(kinds(fake), std::string("alloc alloc free free"));
  EXPECT_EQ(fake->launches, 0);
}

TEST(BiasGrad, dbias_accum_size_overflow_is_an_error) {
  // seq_q = seq_k = 2^31 with a bias broadcast along both: every operand's
  // element count fits, but dbias_accum's 2^62 floats do not fit in 2^64
  // bytes.
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  std::unique_ptr<Sequence> s = load(biasSequence(dir, true, true));
  ASSERT_TRUE(s != nullptr);
  auto resized = [](std::vector<TensorArg> t, int64_t batch, int64_t seq) {
    for (TensorArg &a : t) {
      for (size_t i = 0; i < a.sizes.size(); ++i)
        if (a.sizes[i] == kSq || a.sizes[i] == kSk)
          a.sizes[i] = seq;
      if (a.sizes[0] == kB)
        a.sizes[0] = batch;
      // Dense, but 0 for a stride past 2^63 (a dim before a size 0).
      a.strides.assign(a.sizes.size(), 1);
      for (size_t i = a.sizes.size(); i-- > 1;)
        if (__builtin_mul_overflow(a.strides[i], a.sizes[i], &a.strides[i - 1]))
          a.strides[i - 1] = 0;
    }
    return t;
  };
  std::vector<TensorArg> t = resized(biasTensors(1, 1), kB, int64_t(1) << 31);
  EXPECT_ERROR(s->workspaceBytes(t, -1), ErrorCode::Expression,
               "workspace 'dbias_accum': the byte size overflows 64 bits");
  EXPECT_ERROR(s->check(t, 132), ErrorCode::Expression,
               "workspace 'dbias_accum': the byte size overflows 64 bits");
  // Batch 0 and 2^40 rows and keys: nothing has elements, but a dense
  // dbias_accum's head stride (2^80) does not fit.
  s = loaded();
  ASSERT_TRUE(s != nullptr);
  t = resized(biasTensors(), 0, int64_t(1) << 40);
  EXPECT_ERROR(s->workspaceBytes(t, -1), ErrorCode::Expression,
               "workspace 'dbias_accum': the stride of dimension 1 (head) "
               "overflows 64 bits");
}
