//===- BundleFuzzer.cpp - libFuzzer target over the bundle loader ---------===//
//
// Each input is tried four ways: as bundle JSON (parse, validate, and for a
// valid bundle plan a launch with operands of the shapes it asks for, packing
// tensor maps with a fake encoder), as kernel-sequence JSON (the document's
// own checks; its kernel files are not read), as a device image (the cubin
// checks), and as a shape expression. Any crash, sanitizer report, leak or timeout is a
// bug; errors (Status) are the expected outcome for bad input.
//
//===----------------------------------------------------------------------===//
#include "fa/Runtime/Bundle.h"
#include "fa/Runtime/Expr.h"
#include "fa/Runtime/Sequence.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

using namespace fa::runtime;

namespace {

/// Sizes of a launch; the input's last byte picks one, so that mutations
/// also reach empty tensors and strides that overflow.
struct Shapes {
  int64_t batch, seqQ, seqK, headsQ, headsKV;
  int64_t outerStride; // 0: contiguous; else the outermost stride of query
  // Paged caches and appends.
  int64_t numPages, pageSize, maxPages, seqNew;
  int64_t numSeqs; // ragged batches: cu_seqlens_q/k have numSeqs + 1 entries
};

const Shapes kShapes[] = {
    {2, 100, 70, 4, 2, 0, 9, 16, 5, 3, 3},
    {1, 0, 5, 2, 1, 0, 0, 64, 0, 0, 0},
    {3, 17, 33, 8, 8, int64_t(1) << 62, 40, 128, 13, 17, 7},
    {1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1},
};

int64_t dimSize(const std::string &role, const std::string &dim,
                const BundleSpec &spec, const Shapes &s) {
  bool isNew = role == "key_new" || role == "value_new";
  bool paged = role == "key_cache" || role == "value_cache";
  bool kv = role == "key" || role == "value" || role == "grad_key" ||
            role == "grad_value" || isNew || paged;
  bool vLike = role == "value" || role == "output" || role == "grad_value" ||
               role == "grad_output" || role == "value_new" ||
               role == "value_cache";
  if (dim == "batch")
    return s.batch;
  if (dim == "seq")
    return isNew ? s.seqNew : kv ? s.seqK : s.seqQ;
  if (dim == "page")
    return paged ? s.numPages : s.maxPages;
  if (dim == "row")
    return s.pageSize;
  if (dim == "seq_bound")
    return s.numSeqs + 1;
  if (dim == "seq_q")
    return s.seqQ;
  if (dim == "seq_k")
    return s.seqK;
  if (dim == "head")
    return kv || role.find("descale") != std::string::npos ? s.headsKV
                                                           : s.headsQ;
  if (dim == "dim")
    return vLike ? spec.config.headDimV : spec.config.headDim;
  return 1;
}

SymbolTable symbolsFor(const BundleSpec &spec, const Shapes &s) {
  SymbolTable t;
  t.set(Symbol::Batch, s.batch);
  t.set(Symbol::SeqQ, s.seqQ);
  t.set(Symbol::SeqK, s.seqK);
  t.set(Symbol::HeadsQ, s.headsQ);
  t.set(Symbol::HeadsKV, s.headsKV);
  t.set(Symbol::HeadDim, spec.config.headDim);
  t.set(Symbol::HeadDimV, spec.config.headDimV);
  t.set(Symbol::NumSMs, 132);
  t.set(Symbol::NumPages, s.numPages);
  t.set(Symbol::PageSize, s.pageSize);
  t.set(Symbol::MaxPages, s.maxPages);
  t.set(Symbol::SeqNew, s.seqNew);
  t.set(Symbol::NumSeqs, s.numSeqs);
  return t;
}

TensorArg operandFor(const BundleSpec &spec, const std::string &role,
                     const Shapes &s, uint64_t address) {
  TensorArg t;
  t.role = role;
  t.data = address;
  t.dtype = operandDType(spec, role).value_or(DType::F32);
  const ScratchSpec *scratch = nullptr;
  for (const ScratchSpec &candidate : spec.scratch)
    if (candidate.name == role)
      scratch = &candidate;
  std::vector<std::string> dims = operandDims(spec, role);
  for (size_t i = 0; i < dims.size(); ++i) {
    int64_t size = dimSize(role, dims[i], spec, s);
    if (scratch && i < scratch->shape.size()) {
      Expected<int64_t> v = scratch->shape[i].evalInt(symbolsFor(spec, s));
      size = v.ok() && *v >= 0 && *v < (int64_t(1) << 20) ? *v : 1;
    }
    t.sizes.push_back(size);
  }
  t.strides.assign(t.sizes.size(), 1);
  for (size_t i = t.sizes.size(); i-- > 1;)
    t.strides[i - 1] = t.strides[i] * (t.sizes[i] > 0 ? t.sizes[i] : 1);
  if (role == "query" && s.outerStride && !t.strides.empty())
    t.strides[0] = s.outerStride;
  return t;
}

void fuzzBundle(const std::string &text, uint8_t selector) {
  // A PTX image that defines whatever kernel the JSON names, so that valid
  // bundles get past the image check to the launch plan.
  Expected<BundleSpec> spec = parseBundleSpec(text, "");
  if (!spec.ok())
    return;
  std::string ptx = ".version 8.0\n.target sm_90a\n.entry " + spec->kernel +
                    "(\n)\n";
  Expected<std::unique_ptr<Bundle>> bundle = Bundle::fromMemory(text, "", ptx);
  if (!bundle.ok())
    return;
  const Shapes &s = kShapes[selector % (sizeof(kShapes) / sizeof(kShapes[0]))];
  std::vector<TensorArg> tensors;
  uint64_t address = 0x10000000;
  for (const std::string &role : spec->requiredOperands) {
    tensors.push_back(operandFor(*spec, role, s, address));
    address += 0x10000000;
  }
  TensorMapEncoder encoder = [](const TensorMapRequest &, void *out) {
    std::memset(out, 0, 128);
    return Status::success();
  };
  (void)(*bundle)->plan(tensors, 132, encoder);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  fuzzBundle(text, size ? data[size - 1] : 0);
  (void)parseSequenceSpec(text, "");
  (void)checkCubinImage(text, "fa_fwd", "fuzz-input");
  Expected<Expr> e = Expr::parse(text);
  if (e.ok())
    (void)e->evalFloat(SymbolTable());
  return 0;
}
