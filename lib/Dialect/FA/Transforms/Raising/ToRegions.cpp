//===- ToRegions.cpp - Masks and biases as score_mod / mask_mod regions ---===//
//
// A bias or mask that is neither causal, a window nor key padding is still a
// function of the (batch, head, query, key) indices and of tensors the
// program holds: T5's bucketed relative position bias reads a [buckets,
// heads] table at a bucket computed from k - q, ALiBi multiplies per-head
// slopes by key positions, a document mask compares per-token sequence ids.
// Its expression tree is cloned here into fa.attention's score_mod /
// mask_mod region as scalar arith / math code: loop indices become the
// region's index arguments, tensors computed elementwise are recomputed
// from their operands, and tensors the region cannot or need not recompute
// (a table, slopes, a cumsum of positions) become captures read with
// tensor.extract. A [.., seq_q, seq_k] tensor is never captured: one the
// program computes is recomputed in the region; one it takes as input
// stays the bias operand (RegionFit::ReadsLargeTensor).
//
//===----------------------------------------------------------------------===//
#include "Plan.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/DenseMap.h"

using namespace mlir;
using namespace mlir::fa;
using namespace mlir::fa::raising;

namespace {

/// The values the regions read: each new one adds a trailing argument to
/// every region block, so that score_mod and mask_mod share one list.
struct Captures {
  SmallVector<Value> values;
  SmallVector<Block *> blocks;

  Value argFor(Block *block, Value v) {
    auto *it = llvm::find(values, v);
    if (it == values.end()) {
      values.push_back(v);
      for (Block *b : blocks)
        b->addArgument(v.getType(), v.getLoc());
      it = values.end() - 1;
    }
    unsigned fromEnd = values.end() - it;
    return block->getArgument(block->getNumArguments() - fromEnd);
  }

  /// Drops the captures no block reads (left by abandoned expansions).
  void pruneUnused() {
    for (int k = values.size() - 1; k >= 0; --k) {
      unsigned fromEnd = values.size() - k;
      bool used = llvm::any_of(blocks, [&](Block *b) {
        return !b->getArgument(b->getNumArguments() - fromEnd).use_empty();
      });
      if (used)
        continue;
      for (Block *b : blocks)
        b->eraseArgument(b->getNumArguments() - fromEnd);
      values.erase(values.begin() + k);
    }
  }
};

/// Emits expression trees into one region block. Index nodes and the reads
/// of tensors are resolved through `env`: each leaf atom of the roles is
/// bound to its digit of the block's batch / head / query / key argument,
/// and a tensor.extract binds the fresh atoms of the tensor it reads.
class TermEmitter {
public:
  TermEmitter(const RegionRoles &roles, AtomTable &atoms, Block &block,
              unsigned firstIndexArg, Captures &caps, std::string &why)
      : atoms(atoms), eb{atoms, nullptr, {}}, block(block), caps(caps),
        why(why), b(roles.ctx), loc(UnknownLoc::get(roles.ctx)),
        roles(roles) {
    b.setInsertionPointToEnd(&block);
    bindRole(roles.batch, block.getArgument(firstIndexArg));
    bindRole(roles.heads, block.getArgument(firstIndexArg + 1));
    bindRole({roles.row}, block.getArgument(firstIndexArg + 2));
    bindRole({roles.key}, block.getArgument(firstIndexArg + 3));
  }

  /// `e`'s value; null (with `why` set) when the region cannot compute it.
  /// `hint` types constants that carry none.
  Value emit(const ExprP &e, Type hint);
  OpBuilder &builder() { return b; }
  /// Set when the tree reads a [.., seq_q, seq_k] tensor the program does
  /// not compute elementwise.
  bool readsLarge = false;

private:
  void bindRole(ArrayRef<int> role, Value arg);
  Value atomValue(int atom);
  Value linear(ArrayRef<int> leaves);
  Value emitLeaf(const ExprP &e);
  Value emitCapture(const ExprP &e);
  Value emitExtract(const ExprP &e);
  Value emitCast(const ExprP &e, Value x);
  Value emitOp(const ExprP &e, Type hint);
  Value index(int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v);
  }
  Value fail(const std::string &w) {
    if (why.empty())
      why = w;
    return nullptr;
  }
  bool isLarge(const Access &access) const;
  bool hasScoreShape(RankedTensorType type, const Access &access) const;

  AtomTable &atoms;
  ExprBuilder eb;
  Block &block;
  Captures &caps;
  std::string &why;
  OpBuilder b;
  Location loc;
  const RegionRoles &roles;
  llvm::DenseMap<int, Value> env;
  /// Emitted values, keyed by node (the node kept alive: derefs make fresh
  /// trees whose addresses could otherwise be reused).
  llvm::DenseMap<const Expr *, std::pair<ExprP, Value>> memo;
  SmallVector<const Expr *> memoOrder;
};

void TermEmitter::bindRole(ArrayRef<int> role, Value arg) {
  AtomList leaves = atoms.leaves(role);
  if (leaves.size() == 1) {
    env[leaves[0]] = arg;
    return;
  }
  // Digits of the linear index, innermost last.
  int64_t stride = 1;
  for (int k = leaves.size() - 1; k >= 0; --k) {
    int64_t size = atoms.size(leaves[k]);
    if (ShapedType::isDynamic(size))
      return; // read only through `atomValue`, which then fails
    Value v = stride == 1 ? arg : arith::DivUIOp::create(b, loc, arg,
                                                         index(stride));
    if (k > 0)
      v = arith::RemUIOp::create(b, loc, v, index(size));
    env[leaves[k]] = v;
    stride *= size;
  }
}

Value TermEmitter::atomValue(int atom) {
  if (Value v = env.lookup(atom))
    return v;
  AtomList parts = atoms.leaves(AtomList{atom});
  if (parts.size() > 1 || (parts.size() == 1 && parts[0] != atom))
    return linear(parts);
  // A part of a bound atom: its digit.
  for (auto [bound, value] : llvm::to_vector(env)) {
    AtomList bl = atoms.leaves(AtomList{bound});
    auto *it = llvm::find(bl, atom);
    if (bl.size() < 2 || it == bl.end())
      continue;
    int64_t stride = 1;
    for (auto *in = it + 1; in != bl.end(); ++in)
      stride *= atoms.size(*in);
    if (ShapedType::isDynamic(stride))
      break;
    Value v = stride == 1 ? value
                          : arith::DivUIOp::create(b, loc, value,
                                                   index(stride));
    if (it != bl.begin())
      v = arith::RemUIOp::create(b, loc, v, index(atoms.size(atom)));
    env[atom] = v;
    return v;
  }
  return fail("the term reads an index that is not the batch, head, query "
              "or key");
}

Value TermEmitter::linear(ArrayRef<int> leaves) {
  Value acc;
  for (int a : leaves) {
    Value v = atomValue(a);
    if (!v)
      return nullptr;
    if (!acc) {
      acc = v;
      continue;
    }
    int64_t size = atoms.size(a);
    if (ShapedType::isDynamic(size))
      return fail("the term reads a merged dimension of dynamic size");
    acc = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, acc, index(size)), v);
  }
  return acc ? acc : index(0);
}

/// A tensor read at computed indices (fresh atoms) counts as
/// [.., seq_q, seq_k] when its shape holds both lengths: a table or ids
/// indexed by one position are not, a mask the program takes is. Dims the
/// roles index (`access`) are what their atoms say, whatever their size
/// (a [B, Sk] padding mask with B == Sq is read at the batch).
bool TermEmitter::hasScoreShape(RankedTensorType type,
                                const Access &access) const {
  auto holds = [&](ArrayRef<int> role, const AtomList &dim) {
    return llvm::any_of(atoms.leaves(AtomList(role.begin(), role.end())),
                        [&](int a) { return llvm::is_contained(dim, a); });
  };
  bool row = false, key = false;
  SmallVector<int64_t> unknown;
  for (auto [k, dim] : llvm::enumerate(atoms.leaves(access))) {
    bool isRow = holds({roles.row}, dim), isKey = holds({roles.key}, dim);
    row |= isRow;
    key |= isKey;
    // Unit dims carry no atom and hold no length.
    if (!dim.empty() && !isRow && !isKey && !holds(roles.batch, dim) &&
        !holds(roles.heads, dim) && k < (size_t)type.getRank())
      unknown.push_back(type.getDimSize(k));
  }
  auto take = [&](int64_t size) {
    auto *it = llvm::find(unknown, size);
    if (it == unknown.end())
      return false;
    unknown.erase(it);
    return true;
  };
  row = row || take(atoms.size(AtomList{roles.row}));
  key = key || take(atoms.size(AtomList{roles.key}));
  return row && key;
}

bool TermEmitter::isLarge(const Access &access) const {
  AtomList l = atoms.flatLeaves(access);
  auto has = [&](int role) {
    return llvm::any_of(atoms.leaves(AtomList{role}), [&](int a) {
      return llvm::is_contained(l, a);
    });
  };
  return has(roles.row) && has(roles.key);
}

Value TermEmitter::emit(const ExprP &e, Type hint) {
  if (auto it = memo.find(e.get()); it != memo.end())
    return it->second.second;
  Value v;
  switch (e->kind) {
  case Expr::Leaf:
    v = emitLeaf(e);
    break;
  case Expr::Extract:
    v = emitExtract(e);
    break;
  default:
    v = emitOp(e, hint);
    break;
  }
  if (v) {
    memo[e.get()] = {e, v};
    memoOrder.push_back(e.get());
  }
  return v;
}

/// A tensor the program computes elementwise is recomputed from its
/// operands; if that fails (an op the region cannot express) a tensor that
/// is not [.., seq_q, seq_k] is captured instead.
Value TermEmitter::emitLeaf(const ExprP &e) {
  ExprP d = eb.deref(e);
  if (d->kind == Expr::Const || d->kind == Expr::IConst)
    return emitOp(d, d->type);
  if (d != e && d->kind == Expr::Leaf)
    return emitLeaf(d);
  if (d != e) {
    // Roll back whatever a failed expansion emitted.
    Operation *mark = block.empty() ? nullptr : &block.back();
    size_t memoMark = memoOrder.size();
    std::string saved = why;
    llvm::DenseMap<int, Value> savedEnv = env;
    if (Value v = emit(d, d->type))
      return v;
    if (isLarge(e->access))
      return nullptr;
    while (!block.empty() && &block.back() != mark)
      block.back().erase();
    for (size_t k = memoMark; k < memoOrder.size(); ++k)
      memo.erase(memoOrder[k]);
    memoOrder.resize(memoMark);
    env = std::move(savedEnv);
    why = saved;
  }
  return emitCapture(e);
}

Value TermEmitter::emitCapture(const ExprP &e) {
  auto [v, access] = resolveViews(e->value, e->access, atoms, nullptr);
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type)
    return fail("the term reads a value that is not a ranked tensor");
  if (isLarge(access) || hasScoreShape(type, access)) {
    readsLarge = true;
    return fail("the term reads a [.., seq_q, seq_k] tensor");
  }
  SmallVector<Value> at;
  for (const AtomList &dim : atoms.leaves(access)) {
    Value i = linear(dim);
    if (!i)
      return nullptr;
    at.push_back(i);
  }
  Value arg = caps.argFor(&block, v);
  return tensor::ExtractOp::create(b, loc, arg, at);
}

/// The extracted tensor at fresh atoms bound to the computed indices.
Value TermEmitter::emitExtract(const ExprP &e) {
  auto type = dyn_cast<RankedTensorType>(e->value.getType());
  if (!type || !type.hasStaticShape())
    return fail("the term reads a tensor of dynamic shape at computed "
                "indices");
  Access access = atoms.freshAccess(type.getShape());
  for (auto [k, dim] : llvm::enumerate(access)) {
    Value i = emit(e->ops[k], b.getIndexType());
    if (!i)
      return nullptr;
    if (!i.getType().isIndex())
      return fail("the term reads a tensor at a non-index position");
    if (!dim.empty())
      env[dim[0]] = i;
  }
  return emit(eb.leaf(e->value, access), e->type);
}

/// arith's spelling of each conversion the trees model.
Value TermEmitter::emitCast(const ExprP &e, Value x) {
  using CK = Expr::CastKind;
  Type to = e->type, from = x.getType();
  if (from == to)
    return x;
  auto asI64 = [&](Value v, bool isSigned) -> Value {
    if (!v.getType().isIndex())
      return v;
    if (isSigned)
      return arith::IndexCastOp::create(b, loc, b.getI64Type(), v);
    return arith::IndexCastUIOp::create(b, loc, b.getI64Type(), v);
  };
  auto width = [](Type t) { return t.getIntOrFloatBitWidth(); };
  switch (e->cast) {
  case CK::IntS:
  case CK::IntU: {
    bool s = e->cast == CK::IntS;
    if (from.isIndex() || to.isIndex())
      return s ? (Value)arith::IndexCastOp::create(b, loc, to, x)
               : (Value)arith::IndexCastUIOp::create(b, loc, to, x);
    if (width(from) > width(to))
      return arith::TruncIOp::create(b, loc, to, x);
    return s ? (Value)arith::ExtSIOp::create(b, loc, to, x)
             : (Value)arith::ExtUIOp::create(b, loc, to, x);
  }
  case CK::SIToFP:
    return arith::SIToFPOp::create(b, loc, to, asI64(x, true));
  case CK::UIToFP:
    return arith::UIToFPOp::create(b, loc, to, asI64(x, false));
  case CK::FPToSI:
  case CK::FPToUI:
  case CK::FPToIntSat: {
    Type it = to.isIndex() ? b.getI64Type() : to;
    Value f = x;
    if (e->cast == CK::FPToIntSat) {
      // tosa.cast: round to nearest even, saturate.
      f = math::RoundEvenOp::create(b, loc, f);
      APInt lo = APInt::getSignedMinValue(width(it));
      APInt hi = APInt::getSignedMaxValue(width(it));
      auto ft = cast<FloatType>(from);
      auto bound = [&](const APInt &v) {
        APFloat a(ft.getFloatSemantics());
        a.convertFromAPInt(v, true, APFloat::rmTowardZero);
        return arith::ConstantOp::create(b, loc, b.getFloatAttr(ft, a));
      };
      f = arith::MaximumFOp::create(b, loc, f, bound(lo));
      f = arith::MinimumFOp::create(b, loc, f, bound(hi));
    }
    Value r = e->cast == CK::FPToUI
                  ? (Value)arith::FPToUIOp::create(b, loc, it, f)
                  : (Value)arith::FPToSIOp::create(b, loc, it, f);
    return to.isIndex() ? (Value)arith::IndexCastOp::create(b, loc, to, r)
                        : r;
  }
  case CK::NonZero: {
    if (isa<FloatType>(from)) {
      Value zero = arith::ConstantOp::create(b, loc, b.getFloatAttr(from, 0));
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, x,
                                   zero);
    }
    Value zero = arith::ConstantOp::create(b, loc, b.getIntegerAttr(from, 0));
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x, zero);
  }
  case CK::None:
    break;
  }
  return fail("the term has a conversion not modelled");
}

Value TermEmitter::emitOp(const ExprP &e, Type hint) {
  Type type = e->type ? e->type : hint;
  switch (e->kind) {
  case Expr::Const: {
    auto ft = dyn_cast_or_null<FloatType>(type);
    if (!ft)
      ft = b.getF32Type();
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(ft, e->fval));
  }
  case Expr::IConst:
    if (type && type.isIndex())
      return index(e->ival);
    return arith::ConstantOp::create(
        b, loc, b.getIntegerAttr(type ? type : b.getI1Type(), e->ival));
  case Expr::Index: {
    AtomList l = atoms.leaves(e->access[0]);
    return linear(l);
  }
  case Expr::Unknown:
    return fail("the term has an op a region cannot compute: " +
                describeUnknown(*e));
  default:
    break;
  }
  // Operands; untyped constants take the type of a typed sibling.
  Type operandHint = type;
  if (e->kind == Expr::CmpF || e->kind == Expr::CmpI ||
      e->kind == Expr::Cast) {
    operandHint = Type();
    for (const ExprP &o : e->ops)
      if (o->type && !operandHint)
        operandHint = o->type;
  }
  SmallVector<Value, 3> x;
  for (auto [k, o] : llvm::enumerate(e->ops)) {
    Type h = e->kind == Expr::Select && k == 0 ? b.getI1Type() : operandHint;
    Value v = emit(o, h);
    if (!v)
      return nullptr;
    x.push_back(v);
  }
  bool isInt = type && type.isIntOrIndex();
  auto bin = [&](auto tag) -> Value {
    using OpT = decltype(tag);
    return OpT::create(b, loc, x[0], x[1]);
  };
  switch (e->kind) {
  case Expr::Add:
  case Expr::IAdd:
    return isInt ? bin(arith::AddIOp()) : bin(arith::AddFOp());
  case Expr::Sub:
  case Expr::ISub:
    return isInt ? bin(arith::SubIOp()) : bin(arith::SubFOp());
  case Expr::Mul:
  case Expr::IMul:
    return isInt ? bin(arith::MulIOp()) : bin(arith::MulFOp());
  case Expr::Div:
    return bin(arith::DivFOp());
  case Expr::Max:
    return isInt ? bin(arith::MaxSIOp()) : bin(arith::MaximumFOp());
  case Expr::Min:
    return isInt ? bin(arith::MinSIOp()) : bin(arith::MinimumFOp());
  case Expr::IMaxS: return bin(arith::MaxSIOp());
  case Expr::IMinS: return bin(arith::MinSIOp());
  case Expr::IMaxU: return bin(arith::MaxUIOp());
  case Expr::IMinU: return bin(arith::MinUIOp());
  case Expr::IDivS: return bin(arith::DivSIOp());
  case Expr::IDivU: return bin(arith::DivUIOp());
  case Expr::IRemS: return bin(arith::RemSIOp());
  case Expr::IRemU: return bin(arith::RemUIOp());
  case Expr::And: return bin(arith::AndIOp());
  case Expr::Or: return bin(arith::OrIOp());
  case Expr::Xor: return bin(arith::XOrIOp());
  case Expr::Exp: return math::ExpOp::create(b, loc, x[0]);
  case Expr::Log: return math::LogOp::create(b, loc, x[0]);
  case Expr::Tanh: return math::TanhOp::create(b, loc, x[0]);
  case Expr::Floor: return math::FloorOp::create(b, loc, x[0]);
  case Expr::Ceil: return math::CeilOp::create(b, loc, x[0]);
  case Expr::Abs:
    return isInt ? (Value)math::AbsIOp::create(b, loc, x[0])
                 : (Value)math::AbsFOp::create(b, loc, x[0]);
  case Expr::Neg: return arith::NegFOp::create(b, loc, x[0]);
  case Expr::Recip: {
    Value one = arith::ConstantOp::create(
        b, loc, b.getFloatAttr(x[0].getType(), 1.0));
    return arith::DivFOp::create(b, loc, one, x[0]);
  }
  case Expr::ExtF:
    if (x[0].getType() == type)
      return x[0];
    return arith::ExtFOp::create(b, loc, type, x[0]);
  case Expr::TruncF:
    if (x[0].getType() == type)
      return x[0];
    return arith::TruncFOp::create(b, loc, type, x[0]);
  case Expr::Cast:
    return emitCast(e, x[0]);
  case Expr::Select:
    return arith::SelectOp::create(b, loc, x[0], x[1], x[2]);
  case Expr::CmpF:
    return arith::CmpFOp::create(
        b, loc, static_cast<arith::CmpFPredicate>(e->pred), x[0], x[1]);
  case Expr::CmpI:
    return arith::CmpIOp::create(
        b, loc, static_cast<arith::CmpIPredicate>(e->pred), x[0], x[1]);
  default:
    break;
  }
  return fail("the term has an op a region cannot compute: " +
              describeNode(*e));
}

/// Any context of the tree's values or types.
MLIRContext *contextOf(const ExprP &e) {
  if (e->value)
    return e->value.getContext();
  if (e->type)
    return e->type.getContext();
  for (const ExprP &o : e->ops)
    if (MLIRContext *c = contextOf(o))
      return c;
  return nullptr;
}

/// A block with the leading arguments of score_mod (score, b, h, i, j) or
/// mask_mod (b, h, i, j).
std::unique_ptr<Block> modifierBlock(MLIRContext *ctx, bool score) {
  auto block = std::make_unique<Block>();
  Location loc = UnknownLoc::get(ctx);
  if (score)
    block->addArgument(Float32Type::get(ctx), loc);
  for (int k = 0; k < 4; ++k)
    block->addArgument(IndexType::get(ctx), loc);
  return block;
}

/// A term's value as f32, to be added to the score.
Value asF32(OpBuilder &b, Value v) {
  Type f32 = b.getF32Type();
  auto ft = dyn_cast<FloatType>(v.getType());
  if (!ft || ft == f32)
    return v;
  Location loc = v.getLoc();
  if (ft.getWidth() < 32)
    return arith::ExtFOp::create(b, loc, f32, v);
  return arith::TruncFOp::create(b, loc, f32, v);
}

/// A visibility condition as i1, true where the key is visible.
Value asVisible(OpBuilder &b, Value c, bool visibleWhenTrue) {
  Location loc = c.getLoc();
  if (auto ft = dyn_cast<FloatType>(c.getType()))
    c = arith::CmpFOp::create(
        b, loc, arith::CmpFPredicate::UNE, c,
        arith::ConstantOp::create(b, loc, b.getFloatAttr(ft, 0)));
  else if (!c.getType().isInteger(1))
    c = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ne, c,
        arith::ConstantOp::create(b, loc, b.getIntegerAttr(c.getType(), 0)));
  if (!visibleWhenTrue)
    c = arith::XOrIOp::create(
        b, loc, c, arith::ConstantOp::create(b, loc, b.getBoolAttr(true)));
  return c;
}

/// Emits the score terms (summed into the score) and the mask terms (all
/// must hold) into new blocks; a null block for an empty list.
LogicalResult emitBodies(const RegionRoles &roles, AtomTable &atoms,
                         ArrayRef<ExprP> scoreTerms,
                         ArrayRef<SelectTerm> scoreSelects,
                         ArrayRef<std::pair<ExprP, bool>> maskTerms,
                         ModifierBodies &out, bool &readsLarge,
                         std::string &why) {
  MLIRContext *ctx = roles.ctx;
  Captures caps;
  std::unique_ptr<Block> score, mask;
  if (!scoreTerms.empty() || !scoreSelects.empty()) {
    score = modifierBlock(ctx, true);
    caps.blocks.push_back(score.get());
  }
  if (!maskTerms.empty()) {
    mask = modifierBlock(ctx, false);
    caps.blocks.push_back(mask.get());
  }
  readsLarge = false;
  if (score) {
    TermEmitter em(roles, atoms, *score, 1, caps, why);
    Value acc = score->getArgument(0);
    for (const ExprP &t : scoreTerms) {
      Value v = em.emit(t, Float32Type::get(ctx));
      readsLarge |= em.readsLarge;
      if (!v)
        return failure();
      if (!isa<FloatType>(v.getType()))
        return why = "a score term that is not a float", failure();
      acc = arith::AddFOp::create(em.builder(), acc.getLoc(), acc,
                                  asF32(em.builder(), v));
    }
    for (const SelectTerm &sel : scoreSelects) {
      Value c = em.emit(sel.cond, IntegerType::get(ctx, 1));
      readsLarge |= em.readsLarge;
      if (!c)
        return failure();
      OpBuilder &b = em.builder();
      Value visible = asVisible(b, c, sel.visibleWhenTrue);
      Value fill = arith::ConstantOp::create(
          b, acc.getLoc(), b.getF32FloatAttr(static_cast<float>(sel.fill)));
      acc = arith::SelectOp::create(b, acc.getLoc(), visible, acc, fill);
    }
    YieldOp::create(em.builder(), acc.getLoc(), acc);
  }
  if (mask) {
    TermEmitter em(roles, atoms, *mask, 0, caps, why);
    Value acc;
    for (auto [t, visible] : maskTerms) {
      Value v = em.emit(t, IntegerType::get(ctx, 1));
      readsLarge |= em.readsLarge;
      if (!v)
        return failure();
      v = asVisible(em.builder(), v, visible);
      acc = acc ? arith::AndIOp::create(em.builder(), v.getLoc(), acc, v)
                : v;
    }
    YieldOp::create(em.builder(), acc.getLoc(), acc);
  }
  caps.pruneUnused();
  // The ops as built (operand types the trees did not pin down); quietly:
  // a failure declines the term with a reason, it is no error.
  ScopedDiagnosticHandler quiet(ctx, [](Diagnostic &) { return success(); });
  for (Block *blk : caps.blocks)
    for (Operation &op : blk->without_terminator())
      if (failed(mlir::verify(&op)))
        return why = "the region's '" + op.getName().getStringRef().str() +
                     "' does not verify",
               failure();
  out.scoreMod = std::move(score);
  out.maskMod = std::move(mask);
  out.captures = std::move(caps.values);
  return success();
}

} // namespace

RegionFit mlir::fa::raising::regionFit(const ExprP &e,
                                       const RegionRoles &roles,
                                       AtomTable &atoms, bool asMask,
                                       std::string &why) {
  if (!roles.ctx)
    return why = "no context", RegionFit::NotExpressible;
  ModifierBodies scratch;
  bool large = false;
  SmallVector<ExprP> score;
  SmallVector<std::pair<ExprP, bool>> mask;
  if (asMask)
    mask.push_back({e, true});
  else
    score.push_back(e);
  if (succeeded(
          emitBodies(roles, atoms, score, {}, mask, scratch, large, why)))
    return RegionFit::Fits;
  return large ? RegionFit::ReadsLargeTensor : RegionFit::NotExpressible;
}

RegionRoles mlir::fa::raising::regionRoles(const ExprP &e,
                                           ArrayRef<int> batch,
                                           ArrayRef<int> heads, int row,
                                           int key) {
  return {contextOf(e), AtomList(batch.begin(), batch.end()),
          AtomList(heads.begin(), heads.end()), row, key};
}

bool mlir::fa::raising::isRegionCandidate(StringRef why) {
  return why == kDependsOnData || why == kDependsOnBatchOrHead ||
         why.starts_with("the mask differs between batch elements") ||
         why.starts_with("the mask has an op that is not modelled") ||
         why.starts_with("the mask reads a constant of element type");
}

static ExprP floatConst(double v, Type type) {
  auto c = std::make_shared<Expr>();
  c->kind = Expr::Const;
  c->fval = v;
  c->type = type;
  return c;
}

/// The summands of `e` through float additions. A masked value
/// select(cond, x, fill) (T5's position bias masked_fill'ed with finfo.min)
/// counts as x + select(cond, 0, fill): the same softmax wherever a row
/// keeps a visible key, since fill and x + fill both vanish there.
static void summands(const ExprP &e, ExprBuilder &eb,
                     SmallVectorImpl<ExprP> &out) {
  ExprP d = eb.derefAll(e);
  if (!d->type || !isa<FloatType>(d->type)) {
    out.push_back(e);
    return;
  }
  if (d->kind == Expr::Add) {
    summands(d->ops[0], eb, out);
    summands(d->ops[1], eb, out);
    return;
  }
  if (d->kind == Expr::Select) {
    for (int side : {1, 2}) {
      ExprP fill = eb.derefAll(d->ops[side]);
      ExprP value = eb.derefAll(d->ops[3 - side]);
      if (!fill->isConst() || !isMaskFill(fill->fval) || value->isConst())
        continue;
      auto mask = std::make_shared<Expr>(*d);
      mask->origin = Value();
      mask->ops[side] = floatConst(fill->fval, d->type);
      mask->ops[3 - side] = floatConst(0.0, d->type);
      summands(d->ops[3 - side], eb, out);
      out.push_back(mask);
      return;
    }
  }
  out.push_back(e);
}

void mlir::fa::raising::splitMaskSummands(
    ScoreForm &form, ExprBuilder &eb,
    llvm::function_ref<bool(const ExprP &)> isMask) {
  SmallVector<ExprP> biases;
  size_t afterCap = 0;
  for (auto [index, bias] : llvm::enumerate(form.biases)) {
    SmallVector<ExprP> parts, masks, rest;
    summands(bias, eb, parts);
    for (const ExprP &p : parts)
      (isMask(p) ? masks : rest).push_back(p);
    bool capped = index < form.biasesAfterCap;
    if (masks.empty() || parts.size() < 2) {
      biases.push_back(bias);
      afterCap += capped ? 1 : 0;
      continue;
    }
    // The rest summed again, in the program's order.
    ExprP sum;
    for (const ExprP &r : rest) {
      if (!sum) {
        sum = r;
        continue;
      }
      auto add = std::make_shared<Expr>();
      add->kind = Expr::Add;
      add->ops = {sum, r};
      add->type = eb.derefAll(bias)->type;
      sum = add;
    }
    // After-softcap biases come first in `form.biases`: order is kept.
    for (const ExprP &m : masks)
      biases.push_back(m);
    if (sum)
      biases.push_back(sum);
    if (capped)
      afterCap += masks.size() + (sum ? 1 : 0);
  }
  form.biases = std::move(biases);
  form.biasesAfterCap = afterCap;
}

FailureOr<ModifierBodies>
mlir::fa::raising::buildModifierBodies(const Plan &plan, AtomTable &atoms,
                                       std::string &why) {
  const MaskConfig &m = plan.mask;
  ModifierBodies out;
  if (m.scoreTerms.empty() && m.scoreSelects.empty() && m.maskTerms.empty())
    return out;
  ExprP any = !m.scoreTerms.empty()   ? m.scoreTerms.front()
              : !m.maskTerms.empty() ? m.maskTerms.front().first
                                     : m.scoreSelects.front().cond;
  RegionRoles roles = regionRoles(any, plan.batchPart, plan.allHeads(),
                                  plan.rowAtom, plan.keyAtom);
  bool large = false;
  if (failed(emitBodies(roles, atoms, m.scoreTerms, m.scoreSelects,
                        m.maskTerms, out, large, why)))
    return failure();
  return out;
}
