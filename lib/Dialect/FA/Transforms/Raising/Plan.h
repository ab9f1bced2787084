//===- Plan.h - The stages of fa-raise-attention after the softmax -*- C++ -*-===//
//
// A match of fa-raise-attention produces a Plan: the tensors Q, K, V as the
// program holds them, the role of every atom (batch, heads, GQA group, rows,
// keys, head dims), the score parameters (scale, softcap, masks, bias), the
// layout and the training backward. Each stage that fills part of it lives
// in its own file:
//
//   Match.cpp    the driver: P·V contraction -> softmax -> scores -> Q Kᵀ
//   Output.cpp   the view chain after P·V, deferred normalization
//   Roles.cpp    batch / heads / GQA group from the traced Q, K, V
//   Precision.cpp  bf16 / f16 when the IR rounds where the kernel does
//   Layout.cpp   bshd or bhsd, and the atoms of each operand in it
//   Build.cpp    the replacement IR (fa.attention, fa.attention_grad)
//   Pattern.cpp  the rewrite pattern and populateFARaiseAttentionPatterns
//
//===----------------------------------------------------------------------===//
#ifndef FA_LIB_DIALECT_FA_TRANSFORMS_RAISING_PLAN_H
#define FA_LIB_DIALECT_FA_TRANSFORMS_RAISING_PLAN_H

#include "Raising.h"
#include "fa/Dialect/FA/IR/FAOps.h"
#include "mlir/IR/PatternMatch.h"

#include <memory>

namespace mlir::fa::raising {

/// A tensor the program holds and the atoms that index it.
struct Root {
  Value value;
  Access access;
  /// Atoms of `access` the tensor does not vary along (K computed per
  /// query head after a repeat): the op reads it at index 0 of each
  /// (GroupInvariance.cpp).
  AtomList fixed;
};

/// Everything needed to build the replacement.
struct Plan {
  Operation *pv = nullptr;
  Root q, k, v;
  /// V as P·V reads it, before tracing: what the op reads when K holds
  /// heads that the traced V lacks (Roles.cpp).
  Root vRead;
  double scale = 1.0;
  std::optional<double> softcap;
  MaskConfig mask;
  AtomList batchPart, headsPresent, headsMissing;
  int rowAtom = -1, keyAtom = -1, dimAtom = -1, dimVAtom = -1;
  /// Decode: the query row is a unit dimension, which carries no atom in
  /// the IR; rowAtom is then a size-1 atom of the plan's own that no
  /// operand's access holds (rearrange turns it into a unit dimension).
  bool unitRow = false;
  Access outAccess;
  /// The value replaced: P·V's result or the end of its view chain.
  Value finalValue;
  /// The element type the raised op computes in, when the IR rounds exactly
  /// where the low-precision kernel does (Precision in Match.cpp); null
  /// otherwise (then the operands' common type, or f32).
  Type kernelType;
  /// Q, K and V are one low-precision type T, the program computes in a
  /// wider type between their extensions and a truncation of the output to
  /// T, and P is not rounded to T (torch-mlir's sdpa on bf16): the output
  /// chain up to that truncation, which narrowPromoted (Precision.cpp)
  /// takes into a T op when the raise's option allows it.
  struct Promoted {
    Value final;
    Access finalAccess;
    Type type, wide;
  };
  std::optional<Promoted> promoted;
  /// The training backward, when P also feeds one.
  std::optional<BackwardMatch> bwd;
  Layout layout = Layout::bhsd;

  AtomList allHeads() const {
    AtomList h = headsPresent;
    h.append(headsMissing);
    return h;
  }
};

bool sameSet(AtomList a, AtomList b);
std::string describeOp(Operation *op);

//===- Output.cpp ---------------------------------------------------------===//

/// The end of the single-use chain of view ops after P·V (and of a final
/// truncation to the kernel type), and the access of P·V's result in the
/// atoms of that end.
struct OutputChain {
  Value final;
  Access finalAccess;
  Access pvAccess;
  /// The truncation on the chain, if any, and the value it rounds (with
  /// its access in the same atoms).
  Operation *truncation = nullptr;
  Value beforeTrunc;
  Access beforeTruncAccess;
};
OutputChain findOutputChain(Operation *pv, AtomTable &atoms);

/// exp(x - max) unnormalized: P·V must be divided by the row sum of the
/// same exponentials right after. Returns the dividing op (whose result
/// becomes the plan's final value).
FailureOr<Operation *> matchDeferredNormalization(Plan &plan,
                                                  const SoftmaxMatch &sm,
                                                  int valueDimAtom,
                                                  ExprBuilder &eb,
                                                  std::string &why);

//===- Precision.cpp ------------------------------------------------------===//

/// Keeps the output truncation in the plan (setting kernelType) when the
/// program rounds where the bf16 / f16 kernel does; drops it otherwise.
/// `pOperand` is P as P·V reads it.
void selectPrecision(Plan &plan, Value pOperand, const OutputChain &chain);
/// Raises a promoted attention (Plan::promoted) as an op of the inputs'
/// low-precision type: the op rounds P where the program does not. Returns
/// false (the plan unchanged) when there is none or with a backward.
bool narrowPromoted(Plan &plan);

//===- GroupInvariance.cpp ------------------------------------------------===//

/// Whether the tensor `v`, read at `access`, may take different values
/// along the leaf atom `atom`; false when it provably does not (every path
/// to data the program holds reads that data without the atom).
bool mayVaryAlong(Value v, const Access &access, int atom, AtomTable &atoms);
/// `r` rearranged to `dst` (which lacks `r.fixed`), read at index 0 of each
/// fixed atom.
FailureOr<Value> readAtFirst(ImplicitLocOpBuilder &b, const Root &r,
                             const Access &dst, const AtomTable &atoms);

//===- Roles.cpp ----------------------------------------------------------===//

/// Gives the batch atoms (in `batch`, the atoms Q Kᵀ and P·V share) their
/// roles: the batch part, heads K and V have, heads they lack (GQA group).
/// Fills `batchOrder` with the batch atoms in Q's order.
LogicalResult assignHeadRoles(Plan &plan, const AtomList &batch,
                              AtomTable &atoms, AtomList &batchOrder,
                              std::string &why);
/// The bias must be [batch|1, heads|1, seq_q, seq_k].
LogicalResult checkBiasRoles(const Plan &plan, const AtomList &batchOrder,
                             const AtomTable &atoms, std::string &why);
/// The leaf atoms a tree reads; every tensor dimension it reads must be
/// indexed by one atom or be a unit dimension.
LogicalResult treeAtoms(const ExprP &e, const AtomTable &atoms, AtomList &out);

//===- Layout.cpp ---------------------------------------------------------===//

/// bshd when Q, K and V already are, bhsd otherwise.
Layout chooseLayout(const Plan &plan, const AtomTable &atoms);
/// [batch, heads, seq, dim] atoms in the plan's layout.
Access layoutAccess(const Plan &plan, const AtomList &heads, int seq, int d);

//===- Build.cpp ----------------------------------------------------------===//

/// Creates fa.attention (and fa.attention_grad) before the P·V contraction
/// and returns the value that replaces `plan.finalValue`; the gradient ops
/// the backward replaced go to `backwardRoots`.
FailureOr<Value> buildAttention(const Plan &plan, AtomTable &atoms,
                                RewriterBase &rw, std::string &why,
                                std::string &summary,
                                SmallVectorImpl<Operation *> &backwardRoots);

//===- EmptyRows.cpp ------------------------------------------------------===//

/// Rows of `attn`'s output (in `layout`) whose every key its masks hide
/// (causal / window and mask_mod) become the mean of V over all keys, what
/// a softmax of equal scores gives (MaskConfig::averageEmptyRows). `v` is
/// the op's V. O(B H Sq Sk) booleans computed, O(N) memory.
FailureOr<Value> averageEmptyRows(ImplicitLocOpBuilder &b, const MaskConfig &m,
                                  Layout layout, AttentionOp attn, Value v,
                                  std::string &why);

/// Erases `root` and then whatever became dead because of it (Pattern.cpp).
void eraseDeadFrom(Operation *root, RewriterBase &rw);

/// Discardable attribute on the view ops around a raised op, so that the
/// pass folds them once the greedy driver is done.
constexpr const char *kGlueAttr = "fa.raise_glue";

//===- ToRegions.cpp ------------------------------------------------------===//

/// The bodies of the score_mod and mask_mod regions for the plan's region
/// terms (null when it has none) and the values they capture, in the order
/// of the trailing block arguments.
struct ModifierBodies {
  std::unique_ptr<Block> scoreMod, maskMod;
  SmallVector<Value> captures;
};
/// Emits the region terms of `plan.mask` as region bodies: each term's tree
/// cloned as scalar arith / math ops of the (batch, head, query, key)
/// arguments, tensors read from captures.
FailureOr<ModifierBodies> buildModifierBodies(const Plan &plan,
                                              AtomTable &atoms,
                                              std::string &why);

//===- TMTensor.cpp: attention ops (tm_tensor, iree_linalg_ext) -----------===//

/// A plan that replaces the result of `op`, an op that is attention, up
/// to the end of its output view chain.
Plan planReplacingOp(Operation *op, const OutputChain &chain);
/// Q, K, V and the optional mask of an attention op in the atoms of its
/// result (rows, keys, head dims fresh), and its scale.
struct AttentionOperands {
  Value q, k, v, mask;
  Access qAccess, kAccess, vAccess, maskAccess;
  double scale;
};
/// Completes `plan` (rows, keys, head dims, output set) for an op that is
/// attention: traces Q, K, V, gives the batch atoms their roles, analyzes
/// the mask (kept as the bias operand when it is no causal / window mask;
/// `maskNote` then says why).
LogicalResult completeAttentionOpPlan(Plan &plan, const AttentionOperands &o,
                                      AtomList batchAtoms, AtomTable &atoms,
                                      std::string &why, std::string &maskNote);
/// Builds fa.attention for `plan` and replaces the op, with the remark; a
/// failure is reported once per op (`reported`).
LogicalResult replaceAttentionOp(Operation *op, FailureOr<Plan> &plan,
                                 AtomTable &atoms, std::string why,
                                 const std::string &maskNote, RewriterBase &rw,
                                 llvm::SmallPtrSetImpl<Operation *> &reported);
/// The rewrite pattern of an op that is attention: `planOp` plans it,
/// replaceAttentionOp builds and replaces.
template <typename OpT, FailureOr<Plan> (*planOp)(OpT, AtomTable &,
                                                  std::string &, std::string &)>
struct RaiseAttentionOpPattern : OpRewritePattern<OpT> {
  explicit RaiseAttentionOpPattern(MLIRContext *ctx)
      : OpRewritePattern<OpT>(ctx),
        reported(std::make_shared<llvm::SmallPtrSet<Operation *, 8>>()) {}

  LogicalResult matchAndRewrite(OpT op, PatternRewriter &rw) const override {
    AtomTable atoms;
    std::string why, maskNote;
    FailureOr<Plan> plan = planOp(op, atoms, why, maskNote);
    return replaceAttentionOp(op, plan, atoms, why, maskNote, rw, *reported);
  }

private:
  /// Declines already reported (shared by copies of the pattern).
  std::shared_ptr<llvm::SmallPtrSet<Operation *, 8>> reported;
};

//===- Match.cpp ----------------------------------------------------------===//

/// V as the program holds it: traced like Q and K through views and
/// extensions, but a constant scaling of V is kept (it scales the output).
Root traceValueOperand(Value v, const Access &access, AtomTable &atoms);

/// Matches attention with `pv` as the P·V contraction. `nearMiss` tells
/// whether a failure is worth a remark (an operand of `pv` is, or was on
/// its way to being, a softmax).
FailureOr<Plan> matchAttention(Operation *pv, AtomTable &atoms,
                               std::string &why, bool &nearMiss);

} // namespace mlir::fa::raising

#endif // FA_LIB_DIALECT_FA_TRANSFORMS_RAISING_PLAN_H
