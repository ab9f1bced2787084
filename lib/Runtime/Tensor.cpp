//===- Tensor.cpp - Operand checks and shape symbols ----------------------===//
#include "fa/Runtime/Tensor.h"

#include "CheckedMath.h"
#include "Contract.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

namespace fa::runtime {

namespace {

Status tensorError(const std::string &role, const std::string &what) {
  return Status::error(ErrorCode::Tensor, "operand '" + role + "': " + what);
}

std::string joinNames(const std::vector<std::string> &names) {
  std::string out;
  for (const auto &n : names)
    out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::string hexAddress(uint64_t address) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "0x%" PRIx64, address);
  return buf;
}

/// Which shape symbol each logical dimension of a standard role defines
/// (the bundle schema's contract, Contract.h). Null entries are not
/// symbols: a per-block descale's block count is checked against
/// ceildiv(seq, block) once the symbols are bound (bias broadcast dims are
/// handled apart).
std::vector<const char *> symbolsOf(const std::string &role,
                                    const std::string &op,
                                    const BundleConfig &config) {
  std::vector<const char *> out;
  for (const contract::Dim &d : contract::operandDims(role, op, config))
    out.push_back(d.symbol);
  return out;
}

/// Per symbol, the roles that define it (for the message of an expression
/// that reads one no operand of the launch defined: a paged launch has no
/// seq_k, its keys are max_pages * page_size). Built once.
const SymbolTable::Hints &symbolHints() {
  static const SymbolTable::Hints hints = [] {
    std::vector<std::string> definers[kNumSymbols];
    // Both descale forms: per block, query_descale gives heads_q; a
    // combine's output and lse give rows.
    BundleConfig perBlock;
    perBlock.descaleBlock = std::array<int64_t, 2>{1, 1};
    for (const auto &[op, config] :
         {std::pair{std::string(), BundleConfig()}, {std::string(), perBlock},
          {std::string(kCombineOp), BundleConfig()}}) {
      for (const std::string &role : standardRoles())
        for (const char *name : symbolsOf(role, op, config)) {
          if (!name)
            continue;
          std::vector<std::string> &roles = definers[int(*parseSymbol(name))];
          if (std::find(roles.begin(), roles.end(), role) == roles.end())
            roles.push_back(role);
        }
    }
    SymbolTable::Hints out;
    for (int i = 0; i < kNumSymbols; ++i)
      if (!definers[i].empty())
        out[i] = std::string(symbolName(static_cast<Symbol>(i))) +
                 " is read off " + joinNames(definers[i]);
    out[int(Symbol::NumSMs)] =
        "num_sms is the launching device's multiprocessor count, unknown here";
    return out;
  }();
  return hints;
}

/// Binds shape symbols, remembering who set each one for error messages.
class SymbolBinder {
public:
  explicit SymbolBinder(SymbolTable &table) : table_(table) {}

  void preset(Symbol s, int64_t value, std::string source) {
    table_.set(s, value);
    sources_[static_cast<int>(s)] = std::move(source);
  }

  /// `note` ends the message of a size that does not match.
  Status bind(const std::string &role, size_t dimIndex,
              const std::string &dimName, const char *symbolText,
              int64_t size, bool broadcastable,
              const std::string &note = "") {
    Symbol s = *parseSymbol(symbolText);
    std::optional<int64_t> have = table_.get(s);
    if (!have) {
      if (broadcastable && size == 1)
        return Status::success(); // a broadcast dim defines nothing
      preset(s, size, "from '" + role + "'");
      return Status::success();
    }
    if (*have == size || (broadcastable && size == 1))
      return Status::success();
    return tensorError(role, "dimension " + std::to_string(dimIndex) + " (" +
                                 dimName + ") is " + std::to_string(size) +
                                 ", expected " + std::to_string(*have) + " (" +
                                 symbolText + ", " +
                                 sources_[static_cast<int>(s)] + ")" +
                                 (broadcastable ? " or 1" : "") + note);
  }

  /// cu_seqlens_q/k: num_seqs + 1 bounds, so they bind num_seqs to
  /// `entries` - 1 and must agree on it; an empty one bounds nothing.
  Status bindBounds(const std::string &role, int64_t entries) {
    if (entries == 0)
      return tensorError(role, "needs at least one entry (num_seqs + 1 "
                               "sequence bounds), got 0");
    std::optional<int64_t> have = table_.get(Symbol::NumSeqs);
    if (!have) {
      preset(Symbol::NumSeqs, entries - 1, "from '" + role + "'");
      return Status::success();
    }
    if (*have == entries - 1)
      return Status::success();
    return tensorError(role, "has " + std::to_string(entries) +
                                 " entries, expected " +
                                 std::to_string(*have + 1) +
                                 " (num_seqs + 1, num_seqs = " +
                                 std::to_string(*have) + " " +
                                 sources_[int(Symbol::NumSeqs)] + ")");
  }

private:
  SymbolTable &table_;
  std::string sources_[kNumSymbols];
};

/// A `ptr` parameter's `align`: the address and every stride but the
/// innermost (of dims of size > 1), in bytes, are multiples of it, so that
/// every row the kernel reads with wide loads is aligned.
Status checkPtrAlignment(const TensorArg &t,
                         const std::vector<std::string> &dims,
                         const ParamSpec &p, size_t index) {
  std::string where = " (params[" + std::to_string(index) + "], ptr)";
  uint64_t align = static_cast<uint64_t>(p.align);
  if (t.data % align != 0)
    return tensorError(p.operand, "address " + hexAddress(t.data) + " is not " +
                                      std::to_string(align) + "-byte aligned" +
                                      where);
  int64_t elem = dtypeSize(t.dtype);
  for (size_t d = 0; d + 1 < t.sizes.size(); ++d) {
    if (t.sizes[d] <= 1 ||
        (t.strides[d] * elem) % static_cast<int64_t>(align) == 0)
      continue;
    return tensorError(p.operand,
                       "stride of dimension " + std::to_string(d) + " (" +
                           dims[d] + ") is " + std::to_string(t.strides[d]) +
                           " elements, not a multiple of " +
                           std::to_string(align) + " bytes" + where);
  }
  return Status::success();
}

Status checkBasics(const BundleSpec &spec, const TensorArg &t,
                   const std::vector<std::string> &dims) {
  if (t.sizes.size() != t.strides.size())
    return tensorError(t.role, std::to_string(t.sizes.size()) +
                                   " sizes but " +
                                   std::to_string(t.strides.size()) +
                                   " strides");
  if (t.sizes.size() != dims.size()) {
    std::string how = followsLayout(t.role) && spec.op != kCombineOp
                          ? std::string(layoutName(spec.config.layout)) + ": "
                          : "";
    return tensorError(t.role, "expected rank " + std::to_string(dims.size()) +
                                   " [" + how + joinNames(dims) +
                                   "], got rank " +
                                   std::to_string(t.sizes.size()));
  }
  DType want = *operandDType(spec, t.role);
  if (t.dtype != want)
    return tensorError(t.role, std::string("dtype is ") + dtypeName(t.dtype) +
                                   ", expected " + dtypeName(want));
  int64_t numel = 1;
  for (size_t i = 0; i < t.sizes.size(); ++i) {
    if (t.sizes[i] < 0)
      return tensorError(t.role, "dimension " + std::to_string(i) + " (" +
                                     dims[i] + ") has negative size " +
                                     std::to_string(t.sizes[i]));
    if (t.strides[i] < 0)
      return tensorError(t.role, "dimension " + std::to_string(i) + " (" +
                                     dims[i] + ") has negative stride " +
                                     std::to_string(t.strides[i]));
    std::optional<int64_t> product = checkedMul(numel, t.sizes[i]);
    if (!product)
      return tensorError(t.role, "the element count overflows 64 bits");
    numel = *product;
  }
  size_t inner = t.sizes.size() - 1;
  if (t.sizes[inner] > 1 && t.strides[inner] != 1)
    return tensorError(t.role, "the innermost dimension (" + dims[inner] +
                                   ") must have stride 1, got " +
                                   std::to_string(t.strides[inner]));
  if (numel > 0 && t.data == 0)
    return tensorError(t.role, "null data pointer for a non-empty tensor");
  int64_t esize = dtypeSize(t.dtype);
  if (t.data % static_cast<uint64_t>(esize) != 0)
    return tensorError(t.role, "address " + hexAddress(t.data) +
                                   " is not aligned to its element size (" +
                                   std::to_string(esize) + " bytes)");
  return Status::success();
}

/// TMA's rules on the global tensor (cuTensorMapEncodeTiled), checked here so
/// the message names the operand rather than returning INVALID_VALUE.
Status checkTmaOperand(const BundleSpec &spec, const TensorArg &t,
                       const std::vector<std::string> &dims,
                       size_t paramIndex) {
  std::string where = "used by params[" + std::to_string(paramIndex) +
                      "] (" + paramKindName(spec.params[paramIndex].kind) +
                      ")";
  if (t.data % 16 != 0)
    return tensorError(t.role, "address " + hexAddress(t.data) +
                                   " is not 16-byte aligned, as TMA requires (" +
                                   where + ")");
  int64_t esize = dtypeSize(t.dtype);
  for (size_t i = 0; i + 1 < t.sizes.size(); ++i) {
    if (t.sizes[i] <= 1)
      continue; // the stride of a size-1 dim is never used; see ParamPack
    std::optional<int64_t> checkedBytes = checkedMul(t.strides[i], esize);
    if (!checkedBytes || *checkedBytes >= (int64_t(1) << 40))
      return tensorError(t.role, "stride of dimension " + std::to_string(i) +
                                     " (" + dims[i] +
                                     ") is too large for TMA (" +
                                     std::to_string(t.strides[i]) +
                                     " elements, >= 2^40 bytes; " + where +
                                     ")");
    int64_t bytes = *checkedBytes;
    if (bytes % 16 != 0)
      return tensorError(t.role, "stride of dimension " + std::to_string(i) +
                                     " (" + dims[i] + ") is " +
                                     std::to_string(t.strides[i]) +
                                     " elements = " + std::to_string(bytes) +
                                     " bytes, not a multiple of 16 as TMA "
                                     "requires (" + where + ")");
  }
  for (size_t i = 0; i < t.sizes.size(); ++i)
    if (t.sizes[i] > (int64_t(1) << 32))
      return tensorError(t.role, "dimension " + std::to_string(i) + " (" +
                                     dims[i] +
                                     ") is too large for TMA (> 2^32)");
  return Status::success();
}

/// Dims 0 and 1 (batch, head) of bias and grad_bias. With
/// config.bias_broadcast a listed dim must be 1 and defines nothing, an
/// unlisted one is the full extent; without it either is accepted.
Status bindBiasDim(SymbolBinder &binder, const BundleConfig &config,
                   const std::string &role, size_t i, const std::string &dim,
                   const char *symbol, int64_t size) {
  if (!config.biasBroadcast)
    return binder.bind(role, i, dim, symbol, size, /*broadcastable=*/true);
  if (!(*config.biasBroadcast)[i])
    return binder.bind(role, i, dim, symbol, size, /*broadcastable=*/false,
                       "; config.bias_broadcast does not list " + dim +
                           ", so the kernel reads it in full");
  if (size == 1)
    return Status::success();
  return tensorError(role, "dimension " + std::to_string(i) + " (" + dim +
                               ") is " + std::to_string(size) +
                               ", expected 1 (config.bias_broadcast lists " +
                               dim + ": the kernel is specialised on a bias "
                               "broadcast along it)");
}

/// grad_bias is written in bias's shape: a broadcast dim of one is
/// broadcast in the other.
Status checkGradBiasShape(const OperandSet &set) {
  auto bias = set.byRole.find("bias");
  auto grad = set.byRole.find("grad_bias");
  if (bias == set.byRole.end() || grad == set.byRole.end())
    return Status::success();
  for (size_t i = 0; i < 2; ++i)
    if (grad->second->sizes[i] != bias->second->sizes[i])
      return tensorError("grad_bias",
                         "dimension " + std::to_string(i) + " (" +
                             kBiasBroadcastDims[i] + ") is " +
                             std::to_string(grad->second->sizes[i]) +
                             ", expected " +
                             std::to_string(bias->second->sizes[i]) +
                             " (the size of 'bias' there: grad_bias has "
                             "bias's shape)");
  return Status::success();
}

/// Per-block descales: dimension 2 holds one descale per block of rows,
/// ceildiv(seq_q, block_q) for Q's, ceildiv(seq_k, block_k) for K's and V's.
Status checkDescaleBlocks(const BundleSpec &spec, const OperandSet &set) {
  const std::array<int64_t, 2> &block = *spec.config.descaleBlock;
  for (const char *role : {"query_descale", "key_descale", "value_descale"}) {
    auto it = set.byRole.find(role);
    if (it == set.byRole.end())
      continue;
    bool isQuery = std::string(role) == "query_descale";
    const char *seqName = isQuery ? "seq_q" : "seq_k";
    int64_t rows = block[isQuery ? 0 : 1];
    std::optional<int64_t> seq = set.symbols.get(*parseSymbol(seqName));
    if (!seq)
      return tensorError(role, std::string("its block count is ceildiv(") +
                                   seqName + ", " + std::to_string(rows) +
                                   "), but no operand of this launch gives " +
                                   seqName);
    int64_t want = *seq / rows + (*seq % rows != 0);
    int64_t got = it->second->sizes[2];
    if (got != want)
      return tensorError(role, "dimension 2 (block) is " +
                                   std::to_string(got) + ", expected " +
                                   std::to_string(want) + " (ceildiv(" +
                                   seqName + ", " + std::to_string(rows) +
                                   "))");
  }
  return Status::success();
}

} // namespace

Expected<OperandSet> checkOperands(const BundleSpec &spec,
                                   const std::vector<TensorArg> &tensors,
                                   int64_t numSms) {
  OperandSet set;
  // Each operand's dims, computed once (operandDims compares role names).
  std::vector<std::vector<std::string>> dimsOf;
  dimsOf.reserve(tensors.size());
  auto dimsFor = [&](const TensorArg *t) -> const std::vector<std::string> & {
    return dimsOf[size_t(t - tensors.data())];
  };
  for (const TensorArg &t : tensors) {
    if (t.role.empty())
      return Status::error(ErrorCode::Tensor, "an operand has no role");
    dimsOf.push_back(operandDims(spec, t.role));
    if (dimsOf.back().empty()) {
      std::string known = joinNames(standardRoles());
      for (const auto &s : spec.scratch)
        known += ", " + s.name;
      for (const auto &c : spec.captures)
        known += ", " + c.name;
      return Status::error(ErrorCode::Tensor, "unknown operand role '" +
                                                  t.role + "' (known: " +
                                                  known + ")");
    }
    if (!set.byRole.emplace(t.role, &t).second)
      return tensorError(t.role, "passed more than once");
  }
  for (const std::string &role : spec.requiredOperands)
    if (!set.byRole.count(role))
      return Status::error(ErrorCode::Tensor,
                           "missing operand '" + role + "' (this " + spec.op +
                               " bundle needs: " +
                               joinNames(spec.requiredOperands) + ")");

  for (const auto &[role, t] : set.byRole) {
    FA_RETURN_IF_ERROR(checkBasics(spec, *t, dimsFor(t)));
    // What stride(role, dim) reads (0 for a dim of size 1).
    set.symbols.setOperand(role, dimsFor(t), t->sizes, t->strides);
  }

  SymbolBinder binder(set.symbols);
  binder.preset(Symbol::HeadDim, spec.config.headDim,
                "from the bundle config");
  binder.preset(Symbol::HeadDimV, spec.config.headDimV,
                "from the bundle config");
  if (numSms >= 0)
    binder.preset(Symbol::NumSMs, numSms, "from the device");
  if (spec.config.pageSize > 0)
    binder.preset(Symbol::PageSize, spec.config.pageSize,
                  "config.page_size: the kernel is tiled by it");
  // The packed tokens of a ragged batch are one batch row.
  if (isPackedOp(spec.op))
    binder.preset(Symbol::Batch, 1,
                  spec.op + " packs every sequence into batch 1");

  // A fixed order makes "expected X (from 'query')" messages predictable.
  for (const std::string &role : standardRoles()) {
    auto it = set.byRole.find(role);
    if (it == set.byRole.end())
      continue;
    const TensorArg &t = *it->second;
    if (isCuSeqlens(role)) {
      FA_RETURN_IF_ERROR(binder.bindBounds(role, t.sizes[0]));
      continue;
    }
    std::vector<const char *> syms = symbolsOf(role, spec.op, spec.config);
    const std::vector<std::string> &dims = dimsFor(&t);
    bool biasLike = isBiasLike(role);
    for (size_t i = 0; i < syms.size(); ++i) {
      if (!syms[i])
        continue;
      if (biasLike && i < 2)
        FA_RETURN_IF_ERROR(bindBiasDim(binder, spec.config, role, i, dims[i],
                                       syms[i], t.sizes[i]));
      else
        FA_RETURN_IF_ERROR(binder.bind(role, i, dims[i], syms[i], t.sizes[i],
                                       /*broadcastable=*/false));
    }
  }
  FA_RETURN_IF_ERROR(checkGradBiasShape(set));

  set.symbols.setUnsetHints(&symbolHints());
  if (spec.config.descaleBlock)
    FA_RETURN_IF_ERROR(checkDescaleBlocks(spec, set));

  std::optional<int64_t> hq = set.symbols.get(Symbol::HeadsQ);
  std::optional<int64_t> hkv = set.symbols.get(Symbol::HeadsKV);
  if (hq && hkv && *hq > 0 && (*hkv == 0 || *hq % *hkv != 0))
    return Status::error(ErrorCode::Tensor,
                         "heads_q (" + std::to_string(*hq) +
                             ") must be a multiple of heads_kv (" +
                             std::to_string(*hkv) + ")");

  for (const ScratchSpec &s : spec.scratch) {
    // A bundle requires all its scratch buffers (checked above); a sequence
    // allocates the workspace buffers that are not passed.
    auto passed = set.byRole.find(s.name);
    if (passed == set.byRole.end())
      continue;
    const TensorArg &t = *passed->second;
    for (size_t i = 0; i < s.shape.size(); ++i) {
      Expected<int64_t> want = s.shape[i].evalInt(set.symbols);
      if (!want.ok())
        return want.status().withContext("scratch '" + s.name + "' shape[" +
                                          std::to_string(i) + "]");
      if (t.sizes[i] != *want)
        return tensorError(s.name, "dimension " + std::to_string(i) + " (" +
                                       s.dims[i] + ") is " +
                                       std::to_string(t.sizes[i]) +
                                       ", expected " + std::to_string(*want) +
                                       " (" + s.shape[i].text() + ")");
    }
  }

  for (size_t i = 0; i < spec.params.size(); ++i) {
    const ParamSpec &p = spec.params[i];
    if (p.operand.empty())
      continue;
    const TensorArg &t = *set.byRole.at(p.operand);
    if (p.kind == ParamKind::TensorMap || p.kind == ParamKind::TensorMapGlobal)
      FA_RETURN_IF_ERROR(checkTmaOperand(spec, t, dimsFor(&t), i));
    else
      FA_RETURN_IF_ERROR(checkPtrAlignment(t, dimsFor(&t), p, i));
  }
  return set;
}

} // namespace fa::runtime
