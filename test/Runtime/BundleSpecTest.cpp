//===- BundleSpecTest.cpp - Bundle loading and validation -----------------===//
#include "TestUtil.h"

using namespace fa::runtime;
using namespace fa::runtime::test;

namespace {

/// Status of parsing the example bundle with one textual edit.
Status specWith(const std::string &from, const std::string &to) {
  Expected<BundleSpec> s =
      parseBundleSpec(replaceOnce(exampleBundleText(), from, to), "/base");
  return s.ok() ? Status::success() : s.status();
}

const ErrorCode kInvalid = ErrorCode::InvalidBundle;

} // namespace

TEST(BundleSpec, bundle_example_parses) {
  Expected<BundleSpec> spec = parseBundleSpec(exampleBundleText(), "/base");
  EXPECT_OK(spec);
  if (!spec.ok())
    return;
  EXPECT_EQ(spec->kernel, std::string("fa_fwd_bf16_d128"));
  EXPECT_EQ(spec->cubinPath, std::string("/base/stub_kernels.cubin"));
  EXPECT_EQ(spec->chip, std::string("sm_90a"));
  EXPECT_EQ(spec->chipMajor, 9);
  EXPECT_EQ(spec->chipMinor, 0);
  EXPECT_EQ(spec->chipSuffix, 'a');
  EXPECT_EQ(spec->op, std::string("attention_fwd"));
  EXPECT_TRUE(spec->config.dtype == DType::BF16);
  EXPECT_TRUE(spec->config.outDType == DType::BF16);
  EXPECT_TRUE(spec->config.layout == Layout::BSHD);
  EXPECT_EQ(spec->config.headDim, 128);
  EXPECT_EQ(spec->config.headDimV, 128);
  EXPECT_TRUE(spec->config.returnLse);
  EXPECT_EQ(spec->block[0], 384u);
  EXPECT_EQ(spec->cluster[0] * spec->cluster[1] * spec->cluster[2], 1u);
  EXPECT_EQ(spec->sharedMemoryBytes, 197632);
  EXPECT_EQ(spec->grid[0].text(), std::string("ceildiv(seq_q, 128)"));
  EXPECT_EQ(spec->params.size(), size_t(7));
  const ParamSpec &q = spec->params[0];
  EXPECT_TRUE(q.kind == ParamKind::TensorMap);
  EXPECT_EQ(q.operand, std::string("query"));
  EXPECT_EQ(q.box.size(), size_t(2));
  EXPECT_EQ(q.dims[1], std::string("seq"));
  EXPECT_TRUE(q.swizzle == Swizzle::B128);
  EXPECT_TRUE(q.l2Promotion == L2Promotion::B128); // the default
  EXPECT_TRUE(spec->params[2].kind == ParamKind::Ptr);
  EXPECT_EQ(spec->params[2].align, 2); // bf16 element size by default
  EXPECT_TRUE(spec->params[6].kind == ParamKind::F32);
  std::string req;
  for (const auto &r : spec->requiredOperands)
    req += r + ",";
  EXPECT_EQ(req, std::string("query,key,value,output,lse,"));
  EXPECT_EQ(spec->configJson.substr(0, 40),
           std::string(R"({"dtype":"bf16","out_dtype":"bf16","layo)"));
  EXPECT_TRUE(spec->json.find("\"kernel\":\"fa_fwd_bf16_d128\"") != std::string::npos);
}

TEST(BundleSpec, bundle_optional_fields) {
  // out_dtype, head_dim_v, cluster, return_lse, l2_promotion default; numbers
  // may stand for expressions; unknown top-level and config keys are kept.
  std::string text = exampleBundleText();
  text = replaceOnce(text, R"("out_dtype": "bf16",)", "");
  text = replaceOnce(text, R"("head_dim_v": 128,)", R"("compiler_note": "x",)");
  text = replaceOnce(text, R"("cluster": [1, 1, 1],)", R"("source_hash": 7,)");
  text = replaceOnce(text, R"("heads_q", "batch"])", R"(2, "batch"])");
  text = replaceOnce(text, R"({"kind": "i32", "value": "seq_k"})",
                     R"({"kind": "i32", "value": 5}, {"kind": "f32", "value": 0.25},
                        {"kind": "i64", "value": "batch * seq_q"})");
  text = replaceOnce(text, R"("return_lse": true)", R"("return_lse": false)");
  Expected<BundleSpec> spec = parseBundleSpec(text, "");
  EXPECT_OK(spec);
  if (!spec.ok())
    return;
  EXPECT_TRUE(spec->config.outDType == DType::BF16);
  EXPECT_EQ(spec->config.headDimV, 128);
  EXPECT_EQ(spec->cubinPath, std::string("stub_kernels.cubin"));
  EXPECT_EQ(spec->grid[1].text(), std::string("2"));
  EXPECT_EQ(spec->params.size(), size_t(9));
  EXPECT_TRUE(spec->params[5].kind == ParamKind::I32);
  EXPECT_TRUE(spec->params[6].kind == ParamKind::F32 && spec->params[6].value.isFloat());
  EXPECT_TRUE(spec->params[7].kind == ParamKind::I64);
  // lse is still required: a ptr param names it.
  EXPECT_EQ(spec->requiredOperands.size(), size_t(5));
}

TEST(BundleSpec, bundle_top_level_errors) {
  EXPECT_ERROR(parseBundleSpec("[]", ""), kInvalid, "bundle: expected a JSON object, got array");
  EXPECT_ERROR(parseBundleSpec("{", ""), ErrorCode::Parse, "line 1, column 2");
  EXPECT_ERROR(specWith(R"("format": "fa-kernel-bundle",)", ""), kInvalid,
              "bundle: missing field \"format\"");
  EXPECT_ERROR(specWith(R"("fa-kernel-bundle")", R"("other")"), kInvalid,
              "format: \"other\" is not \"fa-kernel-bundle\"");
  EXPECT_ERROR(specWith(R"("version": 1)", R"("version": 2)"), kInvalid,
              "version: unsupported bundle version 2 (this runtime reads version 1)");
  EXPECT_ERROR(specWith(R"("version": 1)", R"("version": "1")"), kInvalid,
              "version: expected an integer, got string");
  EXPECT_ERROR(specWith(R"("version": 1,)", ""), kInvalid, "missing field \"version\"");
  EXPECT_ERROR(specWith(R"("sm_90a")", R"("sm90")"), kInvalid,
              "chip: \"sm90\" is not of the form sm_<NN>[a|f]");
  EXPECT_ERROR(specWith(R"("sm_90a")", R"("sm_9")"), kInvalid, "is not of the form");
  EXPECT_ERROR(specWith(R"("sm_90a")", R"("sm_90ab")"), kInvalid, "is not of the form");
  EXPECT_ERROR(specWith(R"("sm_90a")", "90"), kInvalid, "chip: expected a string, got number");
  EXPECT_ERROR(specWith(R"("kernel": "fa_fwd_bf16_d128",)", ""), kInvalid,
              "missing field \"kernel\"");
  EXPECT_ERROR(specWith(R"("fa_fwd_bf16_d128")", R"("")"), kInvalid,
              "kernel: must not be empty");
  EXPECT_ERROR(specWith(R"("cubin": "stub_kernels.cubin",)", ""), kInvalid,
              "missing field \"cubin\"");
  EXPECT_ERROR(specWith(R"("cubin": "stub_kernels.cubin")", R"("cubin": null)"),
              kInvalid, "cubin: expected a string, got null");
  EXPECT_ERROR(specWith(R"("op": "attention_fwd",)", ""), kInvalid,
              "missing field \"op\"");
  EXPECT_ERROR(specWith(R"("config": {)", R"("config": 5, "x": {)"), kInvalid,
              "config: expected an object, got number");
}

TEST(BundleSpec, bundle_config_errors) {
  EXPECT_ERROR(specWith(R"("dtype": "bf16", "out_dtype")", R"("out_dtype")"),
              kInvalid, "config: missing field \"dtype\"");
  EXPECT_ERROR(specWith(R"("dtype": "bf16", "out)", R"("dtype": "bf17", "out)"),
              kInvalid, "config.dtype: unknown dtype \"bf17\" (known: f32, f16, bf16");
  EXPECT_ERROR(specWith(R"("out_dtype": "bf16")", R"("out_dtype": 16)"), kInvalid,
              "config.out_dtype: expected a string, got number");
  EXPECT_ERROR(specWith(R"("layout": "bshd")", R"("layout": "sbhd")"), kInvalid,
              "config.layout: unknown layout \"sbhd\" (known: bshd, bhsd)");
  EXPECT_ERROR(specWith(R"("layout": "bshd",)", ""), kInvalid,
              "config: missing field \"layout\"");
  EXPECT_ERROR(specWith(R"("head_dim": 128)", R"("head_dim": 0)"), kInvalid,
              "config.head_dim: value 0 is out of range");
  EXPECT_ERROR(specWith(R"("head_dim": 128)", R"("head_dim": "128")"), kInvalid,
              "config.head_dim: expected an integer, got string");
  EXPECT_ERROR(specWith(R"("head_dim": 128)", R"("head_dim": 128.5)"), kInvalid,
              "config.head_dim: expected an integer, got number");
  EXPECT_ERROR(specWith(R"("head_dim_v": 128)", R"("head_dim_v": -1)"), kInvalid,
              "config.head_dim_v: value -1 is out of range");
  EXPECT_ERROR(specWith(R"("return_lse": true)", R"("return_lse": "yes")"), kInvalid,
              "config.return_lse: expected a boolean, got string");
  EXPECT_ERROR(specWith(R"("causal": false)", R"("causal": 0)"), kInvalid,
              "config.causal: expected a boolean, got number");
  EXPECT_ERROR(specWith(R"("top_left")", R"("center")"), kInvalid,
              "config.mask_alignment: unknown alignment \"center\"");
  EXPECT_ERROR(specWith(R"("window": null)", R"("window": [1])"), kInvalid,
              "config.window: expected null or [left, right]");
  EXPECT_OK(specWith(R"("window": null)", R"("window": [128, null])"));
  EXPECT_ERROR(specWith(R"("softcap": null)", R"("softcap": "x")"), kInvalid,
              "config.softcap: expected a number or null, got string");
  EXPECT_ERROR(specWith(R"("scale": 0.08838834764831845)", R"("scale": [])"), kInvalid,
              "config.scale: expected a number or null, got array");
  // MLIR's spelling of fp8 is accepted; the tensor map params still say bf16.
  EXPECT_ERROR(specWith(R"("dtype": "bf16", "out)", R"("dtype": "f8E4M3FN", "out)"),
              kInvalid, "params[0].dtype: \"bf16\" does not match operand \"query\", "
                        "whose dtype is f8e4m3fn");
}

TEST(BundleSpec, bundle_launch_shape_errors) {
  EXPECT_ERROR(specWith("[384, 1, 1]", "[384, 1]"), kInvalid,
              "block: expected an array of 3 positive integers");
  EXPECT_ERROR(specWith("[384, 1, 1]", "[0, 1, 1]"), kInvalid,
              "block[0]: expected a positive integer");
  EXPECT_ERROR(specWith("[384, 1, 1]", "[2048, 1, 1]"), kInvalid,
              "block: has 2048 elements; at most 1024 are allowed");
  EXPECT_ERROR(specWith(R"("block": [384, 1, 1],)", ""), kInvalid,
              "bundle: missing field \"block\"");
  EXPECT_ERROR(specWith("[1, 1, 1]", "[4, 4, 2]"), kInvalid,
              "cluster: has 32 elements; at most 16 are allowed");
  EXPECT_ERROR(specWith("[1, 1, 1]", "[1, \"2\", 1]"), kInvalid,
              "cluster[1]: expected a positive integer");
  EXPECT_ERROR(specWith("197632", "-1"), kInvalid,
              "shared_memory_bytes: value -1 is out of range");
  EXPECT_ERROR(specWith(R"("shared_memory_bytes": 197632,)", ""), kInvalid,
              "missing field \"shared_memory_bytes\"");
  EXPECT_ERROR(specWith(R"(, "heads_q", "batch"])", "]"), kInvalid,
              "grid: expected an array of 3 integer expressions");
  EXPECT_ERROR(specWith(R"~("ceildiv(seq_q, 128)")~", R"~("ceildiv(seq_q 128)")~"), kInvalid,
              "grid[0]: expression \"ceildiv(seq_q 128)\": ceildiv() takes 2 arguments");
  EXPECT_ERROR(specWith(R"("heads_q", "batch"])", R"("heads_q * 0.5", "batch"])"),
              kInvalid, "grid[1]: expression \"heads_q * 0.5\" has a float value");
  EXPECT_ERROR(specWith(R"("heads_q", "batch"])", R"("heads_q", true])"), kInvalid,
              "grid[2]: expected an expression string or a number, got boolean");
  EXPECT_ERROR(specWith(R"("heads_q", "batch"])", R"("heads_q", 1.5])"), kInvalid,
              "grid[2]: expected an integer or an integer expression, got a float");
  EXPECT_ERROR(specWith(R"("heads_q", "batch"])", R"("heads", "batch"])"), kInvalid,
              "grid[1]: expression \"heads\": unknown symbol 'heads'");
}

TEST(BundleSpec, bundle_param_errors) {
  const std::string q =
      R"({"kind": "tensor_map", "operand": "query", "box": [64, 128],
     "dims": ["dim", "seq", "head", "batch"], "swizzle": "128B", "dtype": "bf16"})";
  auto withQ = [&](const std::string &replacement) {
    return specWith(q, replacement);
  };
  EXPECT_ERROR(specWith(R"("params": [)", R"("params": 3, "x": [)"), kInvalid,
              "params: expected an array, got number");
  EXPECT_ERROR(withQ("7"), kInvalid, "params[0]: expected an object, got number");
  EXPECT_ERROR(withQ(R"({"operand": "query"})"), kInvalid,
              "params[0]: missing field \"kind\"");
  EXPECT_ERROR(withQ(R"({"kind": "tensor"})"), kInvalid,
              "params[0].kind: unknown parameter kind \"tensor\" (known: tensor_map, "
              "tensor_map_global, ptr, i32, i64, f32)");
  EXPECT_ERROR(withQ(R"({"kind": "ptr"})"), kInvalid,
              "params[0]: missing field \"operand\"");
  EXPECT_ERROR(withQ(R"({"kind": "ptr", "operand": "queries"})"), kInvalid,
              "params[0].operand: unknown operand \"queries\" (known: query, key");
  EXPECT_ERROR(withQ(R"({"kind": "ptr", "operand": "query", "align": 3})"), kInvalid,
              "params[0].align: must be a power of two");
  EXPECT_ERROR(withQ(R"({"kind": "ptr", "operand": "query", "alignment": 16})"), kInvalid,
              "params[0].alignment: unknown field (allowed here: kind, operand, align)");
  EXPECT_ERROR(withQ(R"({"kind": "i32"})"), kInvalid, "params[0]: missing field \"value\"");
  EXPECT_ERROR(withQ(R"({"kind": "i32", "value": "seq_q * 1.5"})"), kInvalid,
              "params[0].value: expression \"seq_q * 1.5\" has a float value");
  EXPECT_ERROR(withQ(R"({"kind": "i64", "value": 1.5})"), kInvalid,
              "params[0].value: expected an integer or an integer expression, got a float");
  EXPECT_ERROR(withQ(R"({"kind": "f32", "value": "foo * 2"})"), kInvalid,
              "params[0].value: expression \"foo * 2\": unknown symbol 'foo'");
  EXPECT_ERROR(withQ(R"({"kind": "f32", "value": null})"), kInvalid,
              "params[0].value: expected an expression string or a number, got null");
  EXPECT_ERROR(withQ(R"({"kind": "i32", "value": "1", "operand": "query"})"), kInvalid,
              "params[0].operand: unknown field");
  EXPECT_ERROR(withQ(replaceOnce(q, R"("swizzle": "128B", )", "")), kInvalid,
              "params[0]: missing field \"swizzle\"");
}

TEST(BundleSpec, bundle_tensor_map_errors) {
  const std::string q =
      R"({"kind": "tensor_map", "operand": "query", "box": [64, 128],
     "dims": ["dim", "seq", "head", "batch"], "swizzle": "128B", "dtype": "bf16"})";
  auto withQ = [&](const std::string &from, const std::string &to) {
    return specWith(q, replaceOnce(q, from, to));
  };
  EXPECT_ERROR(withQ("[64, 128]", "[64, 128, 1, 1, 1]"), kInvalid,
              "params[0].box: expected an array of 1 to 4 positive integers");
  EXPECT_ERROR(withQ("[64, 128]", "[]"), kInvalid, "params[0].box: expected an array of 1 to 4");
  EXPECT_ERROR(withQ("[64, 128]", "[64, 0]"), kInvalid,
              "params[0].box: box sizes must be integers in [1, 256]");
  EXPECT_ERROR(withQ("[64, 128]", "[64, 257]"), kInvalid, "in [1, 256]");
  EXPECT_ERROR(withQ("[64, 128]", "[128, 128]"), kInvalid,
              "params[0].box: the inner box extent (256 bytes) exceeds the 128B swizzle span");
  EXPECT_ERROR(withQ("[64, 128]", "[4, 128]"), kInvalid,
              "the inner box extent (4 x bf16 = 8 bytes) must be a multiple of 16 bytes");
  EXPECT_ERROR(withQ(R"("128B")", R"("32B")"), kInvalid,
              "(128 bytes) exceeds the 32B swizzle span");
  EXPECT_OK(withQ(R"("128B")", R"("none")"));
  EXPECT_ERROR(withQ(R"("128B")", R"("256B")"), kInvalid,
              "params[0].swizzle: unknown swizzle \"256B\" (known: none, 32B, 64B, 128B)");
  EXPECT_ERROR(withQ(R"(["dim", "seq", "head", "batch"])", R"(["dim", "seq", "head"])"),
              kInvalid, "params[0].dims: must list all 4 dimensions of operand \"query\"");
  EXPECT_ERROR(withQ(R"(["dim", "seq", "head", "batch"])",
                    R"(["seq", "dim", "head", "batch"])"),
              kInvalid,
              "params[0].dims: the first (innermost) dimension must be \"dim\"");
  EXPECT_ERROR(withQ(R"(["dim", "seq", "head", "batch"])",
                    R"(["dim", "sequence", "head", "batch"])"),
              kInvalid,
              "params[0].dims: \"sequence\" is not a dimension of operand \"query\" "
              "(its dims: batch, seq, head, dim)");
  EXPECT_ERROR(withQ(R"(["dim", "seq", "head", "batch"])",
                    R"(["dim", "seq", "seq", "batch"])"),
              kInvalid, "params[0].dims: duplicate dimension \"seq\"");
  EXPECT_ERROR(withQ(R"(["dim", "seq", "head", "batch"])", R"("dim")"), kInvalid,
              "params[0].dims: expected an array of dimension names, got string");
  EXPECT_ERROR(withQ(R"("dtype": "bf16")", R"("dtype": "f16")"), kInvalid,
              "params[0].dtype: \"f16\" does not match operand \"query\", whose dtype is bf16");
  EXPECT_ERROR(withQ(R"("dtype": "bf16")", R"("dtype": "bf16", "l2_promotion": "512B")"),
              kInvalid, "params[0].l2_promotion: unknown L2 promotion \"512B\"");
  EXPECT_ERROR(withQ(R"("dtype": "bf16")", R"("dtype": "bf16", "swizle": "none")"),
              kInvalid, "params[0].swizle: unknown field");
  // lse is [batch, head, seq]: its contiguous dim is seq.
  EXPECT_OK(withQ(R"("operand": "query", "box": [64, 128],
     "dims": ["dim", "seq", "head", "batch"], "swizzle": "128B", "dtype": "bf16")",
                 R"("operand": "lse", "box": [32],
     "dims": ["seq", "head", "batch"], "swizzle": "128B", "dtype": "f32")"));
}

TEST(BundleSpec, bundle_scratch) {
  const std::string scratch =
      R"("scratch": [{"name": "dq_accum", "dtype": "f32",
          "dims": ["batch", "head", "seq", "dim"],
          "shape": ["batch", "heads_q", "ceildiv(seq_q, 64) * 64", "head_dim"]}],
        "params": [)";
  Expected<BundleSpec> spec = parseBundleSpec(
      replaceOnce(exampleBundleText(), R"("params": [)", scratch), "");
  EXPECT_OK(spec);
  if (spec.ok()) {
    EXPECT_EQ(spec->scratch.size(), size_t(1));
    EXPECT_EQ(spec->requiredOperands.back(), std::string("dq_accum"));
    EXPECT_TRUE(operandDType(*spec, "dq_accum") == DType::F32);
    EXPECT_EQ(operandDims(*spec, "dq_accum").size(), size_t(4));
  }
  auto withScratch = [&](const std::string &from, const std::string &to) {
    return specWith(R"("params": [)", replaceOnce(scratch, from, to));
  };
  EXPECT_ERROR(withScratch(R"("dq_accum")", R"("query")"), kInvalid,
              "scratch[0].name: \"query\" is a standard operand role");
  EXPECT_ERROR(withScratch(R"("dq_accum")", R"("dq-accum")"), kInvalid,
              "scratch[0].name: \"dq-accum\" is not an identifier");
  EXPECT_ERROR(withScratch(R"("f32")", R"("float")"), kInvalid,
              "scratch[0].dtype: unknown dtype \"float\"");
  EXPECT_ERROR(withScratch(R"(, "head_dim"])", "]"), kInvalid,
              "scratch[0].shape: expected one integer expression per entry of \"dims\"");
  EXPECT_ERROR(withScratch(R"("dims": ["batch", "head", "seq", "dim"],)", ""), kInvalid,
              "scratch[0]: missing field \"dims\"");
  EXPECT_ERROR(withScratch(R"("batch", "head", "seq", "dim")",
                          R"("batch", "head", "seq", "seq")"),
              kInvalid, "scratch[0].dims: duplicate dimension \"seq\"");
  EXPECT_ERROR(withScratch(R"("ceildiv(seq_q, 64) * 64")", R"("seq_q / 2.0")"), kInvalid,
              "scratch[0].shape[2]: expression \"seq_q / 2.0\" has a float value");
  EXPECT_ERROR(withScratch(R"("dtype": "f32",)", R"("dtype": "f32", "zero": true,)"),
              kInvalid, "scratch[0].zero: unknown field");
  EXPECT_ERROR(specWith(R"("params": [)",
                       R"("scratch": [{"name": "a", "dtype": "f32", "dims": ["x"], "shape": [1]},
                                      {"name": "a", "dtype": "f32", "dims": ["x"], "shape": [1]}],
                          "params": [)"),
              kInvalid, "scratch[1].name: duplicate scratch name \"a\"");
  EXPECT_ERROR(specWith(R"("params": [)", R"("scratch": {}, "params": [)"), kInvalid,
              "scratch: expected an array, got object");
}

TEST(BundleSpec, bundle_load_files) {
  const std::string dir = inputsDir();
  Expected<std::unique_ptr<Bundle>> good = Bundle::load(dir + "/attention_fwd.json");
  EXPECT_OK(good);
  if (good.ok()) {
    EXPECT_EQ((*good)->kernelName(), std::string("fa_fwd_bf16_d128"));
    EXPECT_EQ((*good)->spec().cubinPath, dir + "/stub_kernels.cubin");
    EXPECT_EQ((*good)->spec().jsonPath, dir + "/attention_fwd.json");
    EXPECT_TRUE((*good)->cubin().size() > 1000);
    EXPECT_TRUE((*good)->configJson().find("\"layout\":\"bshd\"") != std::string::npos);
  }
  EXPECT_ERROR(Bundle::load(dir + "/no_such_bundle.json"), ErrorCode::Io,
              "cannot read '" + dir + "/no_such_bundle.json': No such file");
  EXPECT_ERROR(Bundle::load(dir + "/bad_syntax.json"), ErrorCode::Parse,
              "bundle '" + dir + "/bad_syntax.json': parse error at line 17, column 11: "
              "syntax error while parsing object");
  EXPECT_ERROR(Bundle::load(dir + "/missing_cubin.json"), ErrorCode::Io,
              "field \"cubin\": cannot read '" + dir + "/does_not_exist.cubin'");
  EXPECT_ERROR(Bundle::load(dir + "/not_a_cubin.json"), ErrorCode::InvalidBundle,
              "not_a_cubin.txt': neither an ELF cubin, a fatbin nor PTX text");
  EXPECT_ERROR(Bundle::load(dir + "/wrong_kernel.json"), ErrorCode::InvalidBundle,
              "defines no kernel named \"fa_fwd_missing\" (its functions: ");
  EXPECT_ERROR(Bundle::load(dir + "/wrong_kernel.json"), ErrorCode::InvalidBundle,
              "fa_fwd_bf16_d128");
}

TEST(BundleSpec, bundle_cubin_images) {
  const std::string kernel = "fa_fwd_bf16_d128";
  EXPECT_OK(checkCubinImage(readInput("stub_kernels.cubin"), kernel, "x"));
  EXPECT_OK(checkCubinImage(readInput("stub_kernels.cubin"), "helper_kernel", "x"));
  EXPECT_ERROR(checkCubinImage("", kernel, "x"), ErrorCode::InvalidBundle,
              "cubin 'x': the file is empty");
  std::string elf32 = readInput("stub_kernels.cubin");
  elf32[4] = 1;
  EXPECT_ERROR(checkCubinImage(elf32, kernel, "x"), ErrorCode::InvalidBundle,
              "not a 64-bit little-endian ELF");
  std::string truncated = readInput("stub_kernels.cubin").substr(0, 100);
  EXPECT_ERROR(checkCubinImage(truncated, kernel, "x"), ErrorCode::InvalidBundle,
              "corrupt ELF");
  std::string ptx = ".version 8.0\n.target sm_90a\n.visible .entry fa_fwd_bf16_d128(\n)";
  EXPECT_OK(checkCubinImage(ptx, kernel, "x"));
  EXPECT_ERROR(checkCubinImage(ptx, "other", "x"), ErrorCode::InvalidBundle,
              "PTX defines no entry named \"other\" (its entries: fa_fwd_bf16_d128)");
  EXPECT_OK(checkCubinImage(std::string("\x50\xed\x55\xba\x01\x00", 6), kernel, "x"));
}

TEST(BundleSpec, bundle_stride_expressions) {
  // The required operands, joined ("query,key,"); empty for an error.
  auto requiredOf = [](const Expected<BundleSpec> &spec) {
    std::string req;
    if (spec.ok())
      for (const auto &r : spec->requiredOperands)
        req += r + ",";
    return req;
  };
  // What the biased GPU kernel takes: the bias pointer and its strides.
  const std::string seqK = R"~({"kind": "i32", "value": "seq_k"})~";
  const std::string biasParams =
      R"~({"kind": "i32", "value": "seq_k"}, {"kind": "ptr", "operand": "bias"},
         {"kind": "i64", "value": "stride(bias, batch)"},
         {"kind": "i64", "value": "stride(bias, head)"},
         {"kind": "i64", "value": "stride(bias, seq_q)"})~";
  Expected<BundleSpec> spec =
      parseBundleSpec(replaceOnce(exampleBundleText(), seqK, biasParams), "");
  EXPECT_OK(spec);
  if (spec.ok()) {
    EXPECT_EQ(spec->params.size(), size_t(11));
    EXPECT_TRUE(spec->params[7].kind == ParamKind::I64);
    EXPECT_EQ(spec->params[7].value.text(), std::string("stride(bias, batch)"));
    EXPECT_EQ(spec->params[9].value.strides().size(), size_t(1));
  }
  // A stride() alone makes its operand required (here bias, and value,
  // which the op requires anyway).
  spec = parseBundleSpec(
      replaceOnce(exampleBundleText(), seqK,
                  R"~({"kind": "i64", "value": "stride(bias, seq_q) + stride(value, seq)"})~"),
      "");
  EXPECT_OK(spec);
  EXPECT_EQ(requiredOf(spec), std::string("query,key,value,output,lse,bias,"));
  // Grid, f32 params and scratch shapes take stride() too; the names in it
  // may be scratch buffers, declared before or after the expression.
  spec = parseBundleSpec(
      replaceOnce(
          replaceOnce(exampleBundleText(), R"~("heads_q", "batch"])~",
                      R"~("heads_q", "stride(tile_counts, tile) + batch"])~"),
          R"~("params": [)~",
          R"~("scratch": [{"name": "partial", "dtype": "f32", "dims": ["tile", "row"],
                          "shape": ["stride(tile_counts, tile)", "stride(query, seq)"]},
                         {"name": "tile_counts", "dtype": "i32", "dims": ["tile", "x"],
                          "shape": [4, 2]}],
             "params": [{"kind": "f32", "value": "stride(partial, tile) * 0.5"},)~"),
      "");
  EXPECT_OK(spec);
  EXPECT_EQ(requiredOf(spec),
            std::string("query,key,value,output,lse,tile_counts,partial,"));

  // Load-time errors name the field.
  auto withValue = [&](const std::string &value) {
    return specWith(seqK, R"~({"kind": "i64", "value": ")~" + value + R"~("})~");
  };
  EXPECT_ERROR(
      withValue("stride(bais, batch)"), kInvalid,
      "params[5].value: expression \"stride(bais, batch)\": stride(): unknown "
      "operand 'bais' (known: query, key, value, output, lse, bias, "
      "grad_output, "
      "grad_query, grad_key, grad_value, grad_bias, sinks, grad_sinks, "
      "query_descale, key_descale, "
      "value_descale, cache_seqlens, key_cache, value_cache, block_table, "
      "key_new, value_new, cu_seqlens_q, cu_seqlens_k, partial_output, "
      "partial_lse) at column 8");
  EXPECT_ERROR(withValue("stride(bias, seq)"), kInvalid,
              "params[5].value: expression \"stride(bias, seq)\": stride(): operand 'bias' "
              "has no dimension 'seq' (its dims: batch, head, seq_q, seq_k) at column 14");
  EXPECT_ERROR(withValue("stride(query, seq_q)"), kInvalid,
              "params[5].value: expression \"stride(query, seq_q)\": stride(): operand "
              "'query' has no dimension 'seq_q' (its dims: batch, seq, head, dim)");
  EXPECT_ERROR(withValue("stride(lse, dim)"), kInvalid,
              "operand 'lse' has no dimension 'dim' (its dims: batch, head, seq)");
  EXPECT_ERROR(withValue("stride(bias)"), kInvalid,
              "params[5].value: expression \"stride(bias)\": stride() takes 2 arguments, "
              "an operand and one of its dimensions; got 1");
  EXPECT_ERROR(withValue("stride(bias, seq_q, seq_k)"), kInvalid,
              "params[5].value: expression \"stride(bias, seq_q, seq_k)\": stride() takes "
              "2 arguments");
  EXPECT_ERROR(withValue("stride(0, seq_q)"), kInvalid,
              "params[5].value: expression \"stride(0, seq_q)\": stride() takes names (an "
              "operand and one of its dimensions), not expressions; expected an operand "
              "name");
  EXPECT_ERROR(withValue("stride(bias, seq_q + 1)"), kInvalid,
              "params[5].value: expression \"stride(bias, seq_q + 1)\": stride() takes "
              "names");
  EXPECT_ERROR(withValue("stride(bias, seq_q"), kInvalid,
              "params[5].value: expression \"stride(bias, seq_q\": stride() takes 2 "
              "arguments, an operand and one of its dimensions; expected ')'");
  EXPECT_ERROR(specWith(R"~("heads_q", "batch"])~", R"~("stride(biass, batch)", "batch"])~"),
              kInvalid, "grid[1]: expression \"stride(biass, batch)\": stride(): unknown "
                        "operand 'biass'");
  EXPECT_ERROR(specWith(R"~("params": [)~",
                       R"~("scratch": [{"name": "acc", "dtype": "f32", "dims": ["row"],
                                       "shape": ["stride(acc, col)"]}],
                          "params": [)~"),
              kInvalid, "scratch[0].shape[0]: expression \"stride(acc, col)\": stride(): "
                        "operand 'acc' has no dimension 'col' (its dims: row)");
  EXPECT_ERROR(
      specWith(R"~("params": [)~",
               R"~("scratch": [{"name": "acc", "dtype": "f32", "dims": ["row"],
                                       "shape": ["stride(acc2, row)"]}],
                          "params": [)~"),
      kInvalid,
      "scratch[0].shape[0]: expression \"stride(acc2, row)\": stride(): "
      "unknown operand 'acc2' (known: query, key, value, output, lse, "
      "bias, grad_output, grad_query, grad_key, grad_value, grad_bias, "
      "sinks, grad_sinks, query_descale, key_descale, value_descale, "
      "cache_seqlens, key_cache, value_cache, block_table, key_new, value_new, "
      "cu_seqlens_q, cu_seqlens_k, partial_output, partial_lse, acc (scratch)) "
      "at column 8");
  // size() makes its operand required and is checked like stride().
  spec = parseBundleSpec(
      replaceOnce(exampleBundleText(), seqK,
                  R"~({"kind": "i32", "value": "size(bias, seq_k)"})~"),
      "");
  EXPECT_OK(spec);
  EXPECT_EQ(requiredOf(spec), std::string("query,key,value,output,lse,bias,"));
  EXPECT_ERROR(
      withValue("size(bias, seq)"), kInvalid,
      "params[5].value: expression \"size(bias, seq)\": size(): operand 'bias' "
      "has no dimension 'seq' (its dims: batch, head, seq_q, seq_k) at column "
      "12");
  EXPECT_ERROR(withValue("size(biass, seq)"), kInvalid,
               "params[5].value: expression \"size(biass, seq)\": size(): "
               "unknown operand "
               "'biass'");
  // stride() is an integer: a float only with a float literal.
  EXPECT_ERROR(withValue("stride(bias, seq_q) * 0.5"), kInvalid,
              "params[5].value: expression \"stride(bias, seq_q) * 0.5\" has a float value");
}
