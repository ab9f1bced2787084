//===- BundleSpec.h - Parsed and validated bundle metadata ------*- C++ -*-===//
//
// The launch metadata of a kernel bundle (docs/BundleFormat.md) after
// validation. Everything here is host-only data: building a BundleSpec needs
// no driver, so every format error is reported where there is no GPU.
//
//===----------------------------------------------------------------------===//
#ifndef FA_RUNTIME_BUNDLESPEC_H
#define FA_RUNTIME_BUNDLESPEC_H

#include "fa/Runtime/DType.h"
#include "fa/Runtime/Expr.h"
#include "fa/Runtime/Status.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fa::runtime {

constexpr int kBundleFormatVersion = 1;

enum class Layout { BSHD, BHSD };
enum class ParamKind { TensorMap, TensorMapGlobal, Ptr, I32, I64, F32 };
enum class Swizzle { None, B32, B64, B128 };
enum class L2Promotion { None, B64, B128, B256 };

const char *paramKindName(ParamKind kind);
const char *layoutName(Layout layout);
/// Bytes of the swizzle span (0 for none).
int64_t swizzleBytes(Swizzle swizzle);

struct ParamSpec {
  ParamKind kind = ParamKind::I32;
  // tensor_map, tensor_map_global, ptr:
  std::string operand;
  // tensor_map, tensor_map_global:
  std::vector<std::string> dims; // innermost first
  std::vector<int64_t> box;      // for the first box.size() dims
  Swizzle swizzle = Swizzle::None;
  L2Promotion l2Promotion = L2Promotion::B128;
  DType dtype = DType::F32; // the operand's element type
  // ptr: required alignment of the address in bytes.
  int64_t align = 1;
  // i32, i64, f32:
  Expr value;
};

/// A caller-provided buffer that is not one of the standard roles.
struct ScratchSpec {
  std::string name;
  DType dtype = DType::F32;
  std::vector<std::string> dims; // logical dims, outermost first
  std::vector<Expr> shape;       // one integer expression per dim
};

struct BundleConfig {
  DType dtype = DType::BF16;
  DType outDType = DType::BF16;
  DType biasDType = DType::BF16;
  Layout layout = Layout::BSHD;
  int64_t headDim = 0;
  int64_t headDimV = 0;
  bool returnLse = false;
  /// A paged cache's rows per page (config.page_size), 0 when absent: the
  /// kernel is tiled by it, so a launch's caches must have it.
  int64_t pageSize = 0;
  /// FP8 only: the rows per descale block of Q and of K/V
  /// (config.descale_block). With it the three descales are per block,
  /// [batch, heads, ceildiv(seq, block)]; without it, [batch, heads_kv].
  std::optional<std::array<int64_t, 2>> descaleBlock;
  /// config.bias: the kernel reads a bias (a backward also writes
  /// grad_bias, and op attention_bwd then requires both).
  bool bias = false;
  /// config.bias_broadcast: which of bias's [batch, head] dims the kernel is
  /// specialised to broadcast. Listed dims must have extent 1 in bias and
  /// grad_bias, the others the full extent. Absent (nullopt): each may be 1
  /// or full.
  std::optional<std::array<bool, 2>> biasBroadcast;
  /// config.sinks: the kernel reads attention sinks [heads_q] f32 (a
  /// backward also writes grad_sinks; the op then requires them).
  bool sinks = false;
};

struct BundleSpec {
  std::string jsonPath;   // as given to load (empty when parsed from memory)
  std::string cubinPath;  // resolved against the JSON's directory
  std::string chip;       // e.g. "sm_90a"
  int chipMajor = 0, chipMinor = 0;
  char chipSuffix = 0;    // 0, 'a' or 'f'
  std::string kernel;
  std::string op;
  BundleConfig config;
  std::array<uint32_t, 3> block{1, 1, 1};
  std::array<uint32_t, 3> cluster{1, 1, 1};
  int64_t sharedMemoryBytes = 0;
  std::array<Expr, 3> grid;
  std::vector<ParamSpec> params;
  std::vector<ScratchSpec> scratch;
  /// The operands the kernel's score_mod/mask_mod regions read (the bundle's
  /// "captures"): required, of the listed dtype and rank, any sizes (no
  /// shape: the regions index them as the user's code says).
  std::vector<ScratchSpec> captures;
  /// Operands a launch must provide, in a stable order.
  std::vector<std::string> requiredOperands;
  std::string configJson; // compact "config" object
  std::string json;       // compact whole document
};

/// Validates bundle JSON text. `baseDir` resolves the relative "cubin" path
/// (the file itself is not read here). Errors: Parse or InvalidBundle, with
/// the offending field named, e.g. `params[2].box: ...`.
Expected<BundleSpec> parseBundleSpec(const std::string &jsonText,
                                     const std::string &baseDir);

//===----------------------------------------------------------------------===//
// Operand roles
//===----------------------------------------------------------------------===//

/// The standard operand roles of docs/BundleFormat.md.
const std::vector<std::string> &standardRoles();
bool isStandardRole(const std::string &role);
/// Whether the role's dims follow `config.layout` (Q/K/V/O, their gradients,
/// key_new/value_new); the others have one fixed order.
bool followsLayout(const std::string &role);
/// cu_seqlens_q / cu_seqlens_k: a ragged batch's sequence bounds, whose
/// size is num_seqs + 1 (they bind num_seqs to size - 1).
bool isCuSeqlens(const std::string &role);
/// The op of a standalone fa.combine bundle, whose output and lse are rows
/// ([row, dim], [row]) rather than attention's rank-4 and rank-3 operands.
constexpr const char *kCombineOp = "combine";
/// A ragged batch's backward sequence (docs/BundleFormat.md, *Ragged
/// batches (varlen)*).
constexpr const char *kVarlenBackwardOp = "attention_varlen_bwd";
/// Whether `op` takes a ragged batch packed into batch 1 (bshd only).
inline bool isPackedOp(const std::string &op) {
  return op == "attention_varlen" || op == kVarlenBackwardOp;
}
/// partial_output / partial_lse: fa.combine's inputs, [split, row(, dim)]
/// f32.
bool isPartial(const std::string &role);
/// The operands `op` requires whatever its kernels name and its config
/// says (docs/BundleFormat.md, *Required operands*).
std::vector<std::string> opOperands(const std::string &op);
/// opOperands(op) plus what the config adds: lse for an attention_fwd that
/// returns it, bias and grad_bias for an attention_bwd with config.bias.
std::vector<std::string> opOperands(const std::string &op,
                                    const BundleConfig &config);
/// The dims bias and grad_bias may broadcast, in config.bias_broadcast's
/// order: batch, head (their dims 0 and 1).
extern const char *const kBiasBroadcastDims[2];

/// Logical dimension names of an operand, outermost first, in the order of the
/// sizes/strides the caller passes (depends on the layout for Q/K/V/O).
/// Empty when the role is unknown to the spec.
std::vector<std::string> operandDims(const BundleSpec &spec,
                                     const std::string &role);
/// query_descale, key_descale, value_descale.
bool isDescale(const std::string &role);
/// bias and grad_bias: [batch, head, seq_q, seq_k] of bias_dtype, whose
/// batch and head may broadcast.
bool isBiasLike(const std::string &role);
/// Expected element type of an operand (nullopt when unknown).
std::optional<DType> operandDType(const BundleSpec &spec,
                                  const std::string &role);

} // namespace fa::runtime

#endif // FA_RUNTIME_BUNDLESPEC_H
