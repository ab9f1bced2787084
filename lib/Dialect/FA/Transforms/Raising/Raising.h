//===- Raising.h - Shared machinery of fa-raise-attention -------*- C++ -*-===//
//
// The matcher of fa-raise-attention reasons about index spaces, not about op
// spellings. Every loop dimension it meets is an *atom* (an abstract index
// with a static size); a tensor dimension is indexed by a list of atoms,
// outer to inner (a collapsed [B*H] dimension is [b, h]; an empty list is a
// size-1 dimension). View ops (transposes, reshapes, broadcasts, permuting
// generics) only move atoms around, so walking through them is the same code
// for linalg, tensor and TOSA. Elementwise ops become scalar expression trees
// whose leaves are tensors read at an atom access; two spellings of the same
// computation give the same tree.
//
//===----------------------------------------------------------------------===//
#ifndef FA_LIB_DIALECT_FA_TRANSFORMS_RAISING_RAISING_H
#define FA_LIB_DIALECT_FA_TRANSFORMS_RAISING_RAISING_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <limits>
#include <memory>
#include <optional>
#include <string>

namespace mlir::fa::raising {

//===----------------------------------------------------------------------===//
// Atoms and accesses (Atoms.cpp)
//===----------------------------------------------------------------------===//

using AtomList = SmallVector<int, 2>;
/// One atom list per tensor dimension.
using Access = SmallVector<AtomList, 4>;

class AtomTable {
public:
  int fresh(int64_t size);
  int64_t size(int atom) const { return atoms[atom].size; }
  int64_t size(ArrayRef<int> list) const;
  /// The leaves of `list` (split atoms replaced by their parts), without
  /// size-1 atoms, which index nothing.
  AtomList leaves(ArrayRef<int> list) const;
  Access leaves(const Access &access) const;
  AtomList flatLeaves(const Access &access) const;
  /// Cuts `list` into consecutive groups of the given sizes, splitting atoms
  /// where a group boundary falls inside one. Fails for dynamic sizes and
  /// sizes that do not line up.
  FailureOr<Access> partition(ArrayRef<int> list, ArrayRef<int64_t> sizes);
  /// Identity access for a fresh tensor of this shape.
  Access freshAccess(ArrayRef<int64_t> shape);

private:
  struct Atom {
    int64_t size;
    AtomList parts;
  };
  SmallVector<Atom> atoms;
};

/// Ops stepped through while matching. Those in the chain from the scores to
/// the output must have no users outside the match.
using OpSet = llvm::SmallPtrSet<Operation *, 16>;

/// Whether `op` only moves data (transpose, reshape, broadcast, copy).
bool isViewOp(Operation *op);

/// Given the access of `v`, the access of the tensor it views; null Value
/// when `v` is not produced by a view op.
std::pair<Value, Access> viewSource(Value v, const Access &access,
                                    AtomTable &atoms);

/// Walks up through view ops; records them in `record` when non-null.
std::pair<Value, Access> resolveViews(Value v, Access access, AtomTable &atoms,
                                      OpSet *record);

/// Loop atoms of a linalg op whose result `resultIdx` is read at `access`:
/// loops not indexed by that result get fresh atoms. Fails when the result's
/// map is not a projected permutation.
FailureOr<SmallVector<AtomList>> loopAtoms(linalg::LinalgOp op,
                                           unsigned resultIdx,
                                           const Access &access,
                                           AtomTable &atoms);
/// The access of operand `map` given loop atoms; fails on non-trivial exprs.
FailureOr<Access> operandAccess(AffineMap map, ArrayRef<AtomList> loops);

/// Materializes `src`, whose dimensions hold `srcAccess`, as a tensor whose
/// dimensions hold `dstAccess` (same leaves, any grouping and order, size-1
/// dimensions where empty): expand_shape, transpose, collapse_shape.
FailureOr<Value> rearrange(ImplicitLocOpBuilder &b, Value src,
                           const Access &srcAccess, const Access &dstAccess,
                           const AtomTable &atoms);

//===----------------------------------------------------------------------===//
// Scalar expressions (Expr.cpp)
//===----------------------------------------------------------------------===//

struct Expr;
using ExprP = std::shared_ptr<Expr>;

struct Expr {
  enum Kind {
    Leaf,    // tensor `value` read at `access`
    Const,   // float constant `fval` (of `type` when known)
    IConst,  // integer constant of integer or index `type`: `ival` is its
             // value sign-extended from the type's width
    Index,   // loop index with atoms `access[0]`, of index type
    // Float ops; Add, Sub, Mul, Max, Min, Select also on integers (TOSA's
    // integer tosa.add etc.): the node's `type` says which.
    Add, Sub, Mul, Div, Max, Min, Exp, Log, Tanh, Recip, Neg,
    // math.powf: evaluated only where the result is exact (Evaluate.cpp).
    Pow,
    // |x| (integer: wraps at the minimum, as math.absi), floor and ceil.
    Abs, Floor, Ceil,
    // A conversion between integer, index, boolean and float values (to
    // `type`), as `cast` says.
    Cast,
    ExtF, TruncF, Select, CmpF, CmpI,
    // Integer ops (bitwise And / Or / Xor, also on i1). IAdd, ISub, IMul
    // wrap at the type's width unless `overflow` forbids it.
    IAdd, ISub, IMul, IMaxS, IMinS, IMaxU, IMinU, IDivS, IDivU, IRemS, IRemU,
    And, Or, Xor,
    // tensor.extract in a linalg body: tensor `value` read at the indices
    // `ops` (index values the body computes).
    Extract,
    Unknown  // an op not modelled; `value` is its result
  };
  /// How a Cast converts (the spelling's semantics, not its name).
  enum class CastKind : uint8_t {
    None,
    IntS,       // integer/index to integer/index: sign-extend or truncate
    IntU,       // zero-extend or truncate
    SIToFP,     // signed integer to float, rounded
    UIToFP,     // unsigned integer to float, rounded
    FPToSI,     // float to integer toward zero; out of range is poison
    FPToUI,
    FPToIntSat, // tosa.cast: round to nearest even, saturate
    NonZero,    // to i1 as x != 0 (tosa.cast; NaN counts as nonzero)
  };
  /// arith's overflow flags of IAdd / ISub / IMul: overflow is poison.
  enum Overflow : uint8_t { NSW = 1, NUW = 2 };
  Kind kind = Unknown;
  SmallVector<ExprP, 3> ops;
  double fval = 0;
  int64_t ival = 0;
  int64_t pred = 0;
  CastKind cast = CastKind::None;
  uint8_t overflow = 0;
  Value value;
  Access access;
  Type type;
  /// The op this node was read from, for remarks (null for leaves and
  /// constants).
  Operation *op = nullptr;
  /// For trees expanded from a tensor: the tensor and its access, so that a
  /// subtree can be reused as an operand.
  Value origin;
  Access originAccess;

  bool isConst() const { return kind == Const; }
};

/// A description of the op behind an Unknown node for remarks:
/// "'arith.remf'" or "a block argument".
std::string describeUnknown(const Expr &e);
/// The op (or argument) behind any node, for remarks: "'linalg.generic'".
std::string describeNode(const Expr &e);

/// A copy of `e` with each operand replaced by `f` of it; null if `f`
/// gives null for one.
ExprP copyWithOperands(const ExprP &e, llvm::function_ref<ExprP(ExprP)> f);

struct FoldCache;

/// A context for expanding trees: the atom table and where to record the ops
/// stepped through (may be null).
struct ExprBuilder {
  AtomTable &atoms;
  OpSet *record = nullptr;
  /// Loop atoms of the body being read by fromScalar (for linalg.index).
  SmallVector<AtomList> loops;
  /// Tensors computed from constants, folded once (PositionTensors.cpp).
  std::shared_ptr<FoldCache> folds = nullptr;

  ExprP leaf(Value v, Access access);
  /// The tree of the op producing a leaf when that op is elementwise (after
  /// walking through views); the leaf itself otherwise. Splat constants
  /// become Const.
  ExprP deref(ExprP e);
  /// deref applied until the root is not an expandable leaf.
  ExprP derefAll(ExprP e);
  /// The scalar tree of a linalg body value `s`, with block arguments bound
  /// to leaves. Returns null on anything not modelled.
  ExprP fromScalar(Value s, ArrayRef<ExprP> args);

  /// The tree of elementwise `op` with operand i read as `args[i]` (arith
  /// and math ops on whole tensors); Unknown when not modelled.
  ExprP fromOperands(Operation *op, ArrayRef<ExprP> args);

private:
  ExprP fromScalarImpl(Value s, ArrayRef<ExprP> args);
  ExprP fromOp(Operation *op, llvm::function_ref<ExprP(unsigned)> sub);
};

/// Walks a Q, K or V operand up through views, extensions and constant
/// scalings (multiplied into `scale`) to the tensor the program holds.
std::pair<Value, Access> traceOperand(Value v, Access access,
                                      AtomTable &atoms, double &scale);

/// Structural equality; leaves compare by value and leaf atoms. `subst`
/// renames atoms of `a` before comparing.
bool exprEqual(const ExprP &a, const ExprP &b, const AtomTable &atoms,
               ExprBuilder &eb, ArrayRef<std::pair<int, int>> subst = {});
/// `e` as num / den: a division, or a product with a reciprocal (through
/// casts), in either order.
bool splitQuotient(const ExprP &e, ExprBuilder &eb, ExprP &num, ExprP &den);
/// `v` rounded to float type `t` (unchanged for f64, non-float or no type).
double roundToType(double v, Type t);
/// The float value of a splat constant, if `v` is one.
std::optional<double> splatValue(Value v);
/// The elements of a constant tensor (`arith.constant`, `tosa.const`),
/// dense or a `dense_resource` blob (Constants.cpp); null otherwise.
DenseElementsAttr constantElements(Value v);
/// A splat constant as a typed Const (float) or IConst (integer, index,
/// boolean) node, exactly as the IR holds it; null if `v` is none.
ExprP splatExpr(Value v);

/// Evaluates a tree that depends only on the atoms `iAtom` and `jAtom` (query
/// row, key column) and on constants, for every (i, j), in the IR's own
/// arithmetic (Evaluate.cpp): integers at their width and signedness, with
/// wrap-around, floats rounded to their type. Fails (with a reason naming
/// the op) on data dependence, on ops not modelled and wherever the program
/// has no defined value (poison: flagged overflow, out-of-range conversion,
/// division by zero). The result is the root's value as a double (booleans
/// 0 / 1).
FailureOr<std::vector<double>> evaluateOnGrid(ExprP e, int iAtom, int jAtom,
                                              int64_t rows, int64_t cols,
                                              ExprBuilder &eb,
                                              std::string &why);
/// The same over the atoms `grid` (outer to inner, static sizes): the
/// values in row-major order of the grid. Tensors a body reads with
/// tensor.extract at computed indices are evaluated at those indices.
FailureOr<std::vector<double>> evaluateOnAtoms(ExprP e, ArrayRef<int> grid,
                                               ExprBuilder &eb,
                                               std::string &why);
/// A value of the program, exactly: an integer (index and i1 included) of
/// its width, or a float of the tree's type held as a double.
struct Scalar {
  APInt i;
  double f = 0;
  bool isInt = false;
};
/// Evaluates `e` at every point of `grid` (row-major, static sizes) in the
/// program's own arithmetic, as evaluateOnAtoms does, and gives each exact
/// value to `each` with the point's index.
LogicalResult evaluateEach(ExprP e, ArrayRef<int> grid, ExprBuilder &eb,
                           std::string &why,
                           llvm::function_ref<void(int64_t, const Scalar &)> each);
/// Reasons evaluateOnGrid gives that a term is not a constant of positions.
constexpr const char *kDependsOnData = "the mask depends on data";
constexpr const char *kDependsOnBatchOrHead =
    "the mask depends on the batch or head index";

//===----------------------------------------------------------------------===//
// Tensors the program computes from constants (PositionTensors.cpp)
//===----------------------------------------------------------------------===//

/// The elements of `v` when the program computes it from constants alone
/// (transformers' position tensors: aranges, their broadcasts, slices,
/// concatenations, cumulative sums), folded in the program's own
/// arithmetic. Fails with kDependsOnData when `v` reads a function argument
/// or goes through an op the folder does not model (the tensor is then
/// data: kept as the program computes it, never assumed).
FailureOr<DenseElementsAttr> foldPositionTensor(Value v, ExprBuilder &eb,
                                                std::string &why);

//===----------------------------------------------------------------------===//
// Contractions and reductions (Contraction.cpp)
//===----------------------------------------------------------------------===//

/// A two-operand contraction: linalg (matmul, batch_matmul, generic mul-add)
/// or tosa.matmul.
struct Contraction {
  Operation *op = nullptr;
  Value lhs, rhs, result;
  /// Loop atoms by role.
  SmallVector<AtomList> batch;
  AtomList lhsFree, rhsFree, reduction;
  Access lhsAccess, rhsAccess;
};

/// Recognizes the contraction producing `result` read at `access`.
FailureOr<Contraction> matchContraction(Value result, const Access &access,
                                        AtomTable &atoms, std::string &why);
bool isContractionOp(Operation *op);

/// A reduction over one loop: the reduced atom and the reduced tree.
struct Reduction {
  Operation *op = nullptr;
  int reducedAtom = -1;
  ExprP input;
};
/// All: a boolean AND (`all(x, dim)`), as in PyTorch's _safe_softmax.
enum class ReductionKind { Max, Sum, All };
FailureOr<Reduction> matchReduction(Value result, const Access &access,
                                    ReductionKind kind, ExprBuilder &eb,
                                    std::string &why);

//===----------------------------------------------------------------------===//
// Softmax (Softmax.cpp) and the score chain (Score.cpp)
//===----------------------------------------------------------------------===//

/// softmax(scores) over the key atom, read at the access it was matched at.
struct SoftmaxMatch {
  ExprP scores;
  int keyAtom = -1;
  Operation *anchor = nullptr;
  /// Set when P is exp(x - rowmax(x)) unnormalized: P·V must then be divided
  /// by the row sum of this tree.
  ExprP deferredExp;
};
/// `nearMiss` is set once the chain looks like a softmax (an exp of x minus
/// a broadcast value, normalized), so that a later failure is worth a remark.
FailureOr<SoftmaxMatch> matchSoftmax(Value p, const Access &access,
                                     ExprBuilder &eb, std::string &why,
                                     bool *nearMiss = nullptr);

/// A masking select: `cond` true means visible when `visibleWhenTrue`.
struct SelectTerm {
  ExprP cond;
  bool visibleWhenTrue = true;
  double fill = 0;
};

/// scores = softcap(scale * qk + sum(biases)), then the selects.
/// A tensor multiplying the scores that is no constant: exact as a mask
/// only when it is 1 or 0 at each position and the masks applied after it
/// hide its zeros (GPT-1's `w * b - 1e4 * (1 - b)`); ZeroingFactors.cpp
/// checks that and drops it.
struct ZeroingFactor {
  ExprP factor;
  /// The selects and biases applied after the product: the first ones of
  /// the form's lists.
  size_t selectsAfter = 0, biasesAfter = 0;
};

struct ScoreForm {
  double scale = 1.0;
  std::optional<double> softcap;
  SmallVector<SelectTerm> selects;
  SmallVector<ExprP> biases;
  SmallVector<ZeroingFactor> zeroingFactors;
  /// The first biasesAfterCap biases are added after the softcap: only
  /// masks may be (a 0 / -inf term, a key padding mask).
  size_t biasesAfterCap = 0;
  /// The QK contraction result and its access.
  Value qk;
  Access qkAccess;
  /// max(x, floor) around the masked scores (ScoreFloor.cpp), in the
  /// scores' final units; dropped as an identity once checkScoreFloor
  /// shows that nothing under it goes below.
  std::optional<double> floor;
};
LogicalResult parseScore(ExprP e, ScoreForm &form, ExprBuilder &eb,
                         std::string &why);

//===- ZeroingFactors.cpp -------------------------------------------------===//

/// `e` on the (row, key) grid, row-major; a term that reads the batch index
/// counts when it is the same for every batch element (Masks.cpp).
FailureOr<std::vector<double>>
evaluatePositions(const ExprP &e, int rowAtom, int colAtom,
                  ArrayRef<int> batchAtoms, ExprBuilder &eb, std::string &why);

/// Whether each zeroing factor of `form` is 0 / 1 on the (row, key) grid
/// with its zeros hidden by the masks applied after it; then multiplying
/// by it changes no visible score and it is dropped.
LogicalResult checkZeroingFactors(const ScoreForm &form, int rowAtom,
                                  int colAtom, ArrayRef<int> batchAtoms,
                                  ExprBuilder &eb, std::string &why);

//===- ScoreFloor.cpp -----------------------------------------------------===//

/// `max(x, c)`, `select(x > c, x, c)` or `select(x < c, c, x)`: (x, c).
std::optional<std::pair<ExprP, double>> matchScoreFloor(const ExprP &e,
                                                        ExprBuilder &eb);
/// Whether the floor of `form` is an identity: every fill and every sum of
/// biases, on the atoms `grid` (batch, heads, row, key), at or above it.
LogicalResult checkScoreFloor(const ScoreForm &form, ArrayRef<int> grid,
                              AtomTable &atoms, std::string &why);
bool isFloatType(Type t);

/// Splits a mask condition into the conditions that must all hold for a
/// position to be visible: `cond` visible when `visibleWhenTrue`, through
/// `and` (of visibility), `or` (of hiding) and `not`. Each part comes with
/// its own polarity.
void splitConjuncts(ExprP cond, bool visibleWhenTrue, ExprBuilder &eb,
                    SmallVectorImpl<std::pair<ExprP, bool>> &out);

/// A mask condition that is a function of one element of a data tensor
/// read at (batch, key): a key padding mask (KeyPadding.cpp).
struct KeyPadding {
  /// The tensor the program holds and its dims in plan atoms (the batch
  /// atoms, the key atom, or none for unit dims).
  Value tensor;
  Access access;
  /// The condition on the element `leaf` reads (a node of `pred`).
  ExprP pred;
  const Expr *leaf = nullptr;
};
constexpr const char *kReadsNoData = "the mask condition reads no data";
FailureOr<KeyPadding> matchKeyPadding(ExprP cond, ArrayRef<int> batchAtoms,
                                      int rowAtom, int keyAtom,
                                      ExprBuilder &eb, std::string &why);
/// The padding condition read straight from the tensor the program holds
/// at (batch, key): `pad.pred` on `pad.tensor` at `pad.access`, for the
/// op's mask_mod or score_mod, which capture that [B, Sk] tensor.
ExprP keyPaddingCondition(const KeyPadding &pad, ExprBuilder &eb);

/// The positional part of a mask: what fa.attention's causal, window and
/// mask_alignment attributes say.
struct PositionMask {
  bool causal = false;
  std::optional<std::pair<int64_t, int64_t>> window;
  bool bottomRight = false;
};

/// What the masks and biases of a ScoreForm become on fa.attention: the
/// positional attributes and at most one operand term. Matching a grid
/// sets only the PositionMask part, so terms found earlier are kept.
struct MaskConfig : PositionMask {
  /// A data-dependent term: an additive tensor, or a boolean visibility
  /// tensor (to be turned into 0 / -inf).
  Value bias;
  Access biasAccess;
  /// A data-dependent bias computed inside the op that adds it: a tree to
  /// rebuild as its own tensor.
  ExprP biasExpr;
  bool biasIsBoolean = false;
  bool boolVisibleWhenTrue = true;
  /// What a boolean bias's hidden positions get (-inf).
  double boolFill = -std::numeric_limits<double>::infinity();
  /// One finite fill that absorbs the scores hides the key padding (in
  /// mask_mod) and the positional part: a row whose every key is hidden
  /// averages V over all keys in the original. The raise replaces those
  /// rows by the mean of V (EmptyRows.cpp).
  bool averageEmptyRows = false;
  /// Terms evaluated inside the op's modifier regions (ToRegions.cpp):
  /// data-dependent biases computed from small tensors, added to the score
  /// in score_mod (in the order of ScoreForm::biases), and visibility
  /// conditions (visible where the condition equals the flag) in mask_mod.
  SmallVector<ExprP> scoreTerms;
  SmallVector<std::pair<ExprP, bool>> maskTerms;
  /// Masking selects with a finite fill, applied in score_mod after the
  /// terms: the hidden score becomes the program's fill, exact where
  /// mask_mod's -inf is not (a row whose every key is hidden averages V).
  SmallVector<SelectTerm> scoreSelects;
  /// Human-readable summary for the remark.
  std::string summary;
};
/// `headAtoms`: the query heads in the op's order (the modifier regions'
/// head index).
LogicalResult analyzeMasks(const ScoreForm &form, int rowAtom, int colAtom,
                           ArrayRef<int> batchAtoms, ArrayRef<int> headAtoms,
                           int64_t seqQ,
                           int64_t seqK, AtomTable &atoms, MaskConfig &out,
                           std::string &why);

//===----------------------------------------------------------------------===//
// Masks and biases as modifier regions (ToRegions.cpp)
//===----------------------------------------------------------------------===//

/// The indices a modifier region receives, as atoms: its batch argument
/// is the linear index of `batch`, its head argument that of `heads` (the
/// query heads, in the op's order).
struct RegionRoles {
  MLIRContext *ctx = nullptr;
  AtomList batch, heads;
  int row = -1, key = -1;
};
RegionRoles regionRoles(const ExprP &anyTerm, ArrayRef<int> batch,
                        ArrayRef<int> heads, int row, int key);
/// Whether a term can be evaluated inside a score_mod / mask_mod region.
enum class RegionFit {
  /// Every tensor it reads is computed elementwise (recomputed in the
  /// region) or is not [.., seq_q, seq_k] (captured).
  Fits,
  /// It reads a [.., seq_q, seq_k] tensor that no elementwise op computes
  /// (a mask or bias the program takes as input): better an operand.
  ReadsLargeTensor,
  /// An op the region cannot express (`why` names it).
  NotExpressible,
};
/// How `e`, a function of the roles' indices and of the program's tensors,
/// fits a region: as a float added to the score, or (`asMask`) as a
/// condition. Emits the region body into a scratch block to find out.
RegionFit regionFit(const ExprP &e, const RegionRoles &roles,
                    AtomTable &atoms, bool asMask, std::string &why);
/// Whether a reason of evaluateOnGrid says the term is a function of
/// something other than the positions (data, the batch, an op the grid
/// evaluator does not model), so that a region may still evaluate it.
bool isRegionCandidate(StringRef why);
/// Splits each additive bias of `form` that is a sum with a mask summand
/// (`isMask`: a 0 / fill value) into the masks and the rest: T5 and sdpa
/// add the causal mask to the position bias before the scores. Exact
/// where a row keeps a visible key: a 0 summand changes nothing and a fill
/// hides the score either way.
void splitMaskSummands(ScoreForm &form, ExprBuilder &eb,
                       llvm::function_ref<bool(const ExprP &)> isMask);
/// A mask written as a value: select(cond, 0, fill) or select(cond, fill,
/// 0), through float casts (Masks.cpp).
std::optional<SelectTerm> maskSelect(ExprP e, ExprBuilder &eb);

/// Fill values at or below this count as "masked" when every row keeps a
/// visible key: exp(fill - rowmax) underflows to 0 in f32.
constexpr double kMaskFillThreshold = -1.0e4;
/// A finite fill at or below this absorbs the scores: s + fill == fill in
/// f32 or f64 for |s| < 2^46 (finfo.min of f32 and bf16 are far below).
constexpr double kAbsorbingFill = -0x1p100;
/// -inf, or a finite value at or below kMaskFillThreshold.
bool isMaskFill(double v);

//===----------------------------------------------------------------------===//
// The training backward (Backward.cpp)
//===----------------------------------------------------------------------===//

/// What the forward match knows.
struct BackwardInput {
  Value p;
  Access pAccess;
  Value q, k, v;
  Access qAccess, kAccess, vAccess;
  int rowAtom, keyAtom, dimAtom, dimVAtom;
  double scale;
  /// The forward's masking selects: their backward (zeroing the gradient
  /// where the forward hid the score) is a no-op, since P is 0 there.
  SmallVector<SelectTerm> selects;
};

/// dV = Pᵀ dO, dP = dO Vᵀ, dS = P ∘ (dP - rowsum(P ∘ dP)), dQ = scale dS K,
/// dK = scale dSᵀ Q: the gradient contractions and their accesses in the
/// forward's atoms.
struct BackwardMatch {
  Value dO;
  Access dOAccess;
  Value dQ, dK, dV;
  Access dQAccess, dKAccess, dVAccess;
  OpSet ops;
};
FailureOr<BackwardMatch> matchBackward(const BackwardInput &in,
                                       AtomTable &atoms, std::string &why);

} // namespace mlir::fa::raising

#endif // FA_LIB_DIALECT_FA_TRANSFORMS_RAISING_RAISING_H
