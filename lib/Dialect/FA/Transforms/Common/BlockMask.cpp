//===- BlockMask.cpp - mask_mod classified per tile at compile time -------===//
//
// Interval evaluation of a mask_mod region (see BlockMask.h). Every value of
// integer, index or i1 type gets a range [lo, hi] of int64 (i1: 0 false, 1
// true) that holds every value it takes over the tile, or none (unknown).
// A rule that could overflow its type, or that has no rule, gives unknown.
//
//===----------------------------------------------------------------------===//
#include "fa/Dialect/FA/Transforms/BlockMask.h"
#include "fa/Dialect/FA/IR/FAOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <limits>

using namespace mlir;
using namespace mlir::fa;

namespace {

/// The values an integer takes: [lo, hi].
struct Range {
  int64_t lo, hi;
  bool single() const { return lo == hi; }
};
using MaybeRange = std::optional<Range>;

/// The representable values of `type` (index as 64 bits); unknown types
/// (floats, tensors) have none.
std::optional<Range> typeRange(Type type) {
  if (type.isIndex())
    return Range{std::numeric_limits<int64_t>::min(),
                 std::numeric_limits<int64_t>::max()};
  auto it = dyn_cast<IntegerType>(type);
  if (!it || it.getWidth() > 64)
    return std::nullopt;
  unsigned w = it.getWidth();
  if (w == 1)
    return Range{0, 1};
  if (w == 64)
    return Range{std::numeric_limits<int64_t>::min(),
                 std::numeric_limits<int64_t>::max()};
  return Range{-(int64_t(1) << (w - 1)), (int64_t(1) << (w - 1)) - 1};
}

/// `r` if it fits `type` (no wrap-around happened), else unknown.
MaybeRange fit(MaybeRange r, Type type) {
  std::optional<Range> t = typeRange(type);
  if (!r || !t || r->lo < t->lo || r->hi > t->hi)
    return std::nullopt;
  return r;
}

/// The hull of f(x, y) over the corners of x and y, for f monotone in each
/// argument separately; unknown if one corner overflows.
template <typename F> MaybeRange corners(Range x, Range y, F f) {
  std::optional<int64_t> v[4] = {f(x.lo, y.lo), f(x.lo, y.hi), f(x.hi, y.lo),
                                 f(x.hi, y.hi)};
  Range r{std::numeric_limits<int64_t>::max(),
          std::numeric_limits<int64_t>::min()};
  for (std::optional<int64_t> c : v) {
    if (!c)
      return std::nullopt;
    r.lo = std::min(r.lo, *c);
    r.hi = std::max(r.hi, *c);
  }
  return r;
}

/// Ranges of signed division and remainder by a divisor range without 0.
MaybeRange divide(Range x, Range y, bool floor, bool ceil) {
  if (y.lo <= 0 && y.hi >= 0)
    return std::nullopt;
  return corners(x, y, [&](int64_t a, int64_t d) -> std::optional<int64_t> {
    if (a == std::numeric_limits<int64_t>::min() && d == -1)
      return std::nullopt;
    int64_t q = a / d, r = a % d;
    if (floor && r != 0 && ((r < 0) != (d < 0)))
      --q;
    if (ceil && r != 0 && ((r < 0) == (d < 0)))
      ++q;
    return q;
  });
}

MaybeRange remainder(Range x, Range y) {
  // Only by one positive divisor: exact within one period, else [0, d).
  if (!y.single() || y.lo <= 0 || x.lo < 0)
    return std::nullopt;
  int64_t d = y.lo;
  if (x.lo / d == x.hi / d)
    return Range{x.lo % d, x.hi % d};
  return Range{0, d - 1};
}

/// The truth of `x pred y` over the ranges: {1}, {0} or [0, 1].
Range compare(arith::CmpIPredicate pred, Range x, Range y, bool &known) {
  using P = arith::CmpIPredicate;
  known = true;
  bool unsignedPred =
      pred == P::ult || pred == P::ule || pred == P::ugt || pred == P::uge;
  // Unsigned order is the signed one for non-negative values only.
  if (unsignedPred && (x.lo < 0 || y.lo < 0)) {
    known = false;
    return {0, 1};
  }
  auto decide = [](bool always, bool never) {
    return always ? Range{1, 1} : never ? Range{0, 0} : Range{0, 1};
  };
  switch (pred) {
  case P::eq:
    return decide(x.single() && y.single() && x.lo == y.lo,
                  x.hi < y.lo || y.hi < x.lo);
  case P::ne:
    return decide(x.hi < y.lo || y.hi < x.lo,
                  x.single() && y.single() && x.lo == y.lo);
  case P::slt:
  case P::ult:
    return decide(x.hi < y.lo, x.lo >= y.hi);
  case P::sle:
  case P::ule:
    return decide(x.hi <= y.lo, x.lo > y.hi);
  case P::sgt:
  case P::ugt:
    return decide(x.lo > y.hi, x.hi <= y.lo);
  case P::sge:
  case P::uge:
    return decide(x.lo >= y.hi, x.hi < y.lo);
  }
  llvm_unreachable("unknown predicate");
}

/// Boolean ops on i1 ranges (subsets of [0, 1]).
Range boolOp(Operation *op, Range x, Range y) {
  auto all = [](Range r, int64_t v) { return r.single() && r.lo == v; };
  if (isa<arith::AndIOp>(op)) {
    if (all(x, 0) || all(y, 0))
      return {0, 0};
    return all(x, 1) && all(y, 1) ? Range{1, 1} : Range{0, 1};
  }
  if (isa<arith::OrIOp>(op)) {
    if (all(x, 1) || all(y, 1))
      return {1, 1};
    return all(x, 0) && all(y, 0) ? Range{0, 0} : Range{0, 1};
  }
  // xori
  if (x.single() && y.single())
    return {x.lo ^ y.lo, x.lo ^ y.lo};
  return {0, 1};
}

class IntervalEvaluator {
public:
  /// The i1 yielded by `region` with its four index arguments in `args`;
  /// other arguments (captures) are unknown.
  MaybeRange run(Region &region, ArrayRef<Range> args) {
    values.clear();
    Block &block = region.front();
    for (auto [i, range] : llvm::enumerate(args))
      values[block.getArgument(i)] = range;
    for (Operation &op : block.without_terminator())
      if (op.getNumResults() == 1)
        if (MaybeRange r = fit(evaluate(&op), op.getResult(0).getType()))
          values[op.getResult(0)] = *r;
    return lookup(cast<YieldOp>(block.getTerminator()).getValue());
  }

private:
  MaybeRange lookup(Value v) {
    auto it = values.find(v);
    if (it == values.end())
      return std::nullopt;
    return it->second;
  }

  MaybeRange evaluate(Operation *op);
  MaybeRange binary(Operation *op, Range x, Range y);

  llvm::DenseMap<Value, Range> values;
};

MaybeRange IntervalEvaluator::evaluate(Operation *op) {
  if (auto c = dyn_cast<arith::ConstantOp>(op)) {
    auto attr = dyn_cast<IntegerAttr>(c.getValue());
    if (!attr)
      return std::nullopt;
    int64_t v = attr.getType().isInteger(1) ? int64_t(attr.getValue().isOne())
                                            : attr.getValue().getSExtValue();
    return Range{v, v};
  }
  if (auto sel = dyn_cast<arith::SelectOp>(op)) {
    MaybeRange c = lookup(sel.getCondition());
    MaybeRange t = lookup(sel.getTrueValue()), f = lookup(sel.getFalseValue());
    if (c && c->single())
      return c->lo ? t : f;
    if (!t || !f)
      return std::nullopt;
    return Range{std::min(t->lo, f->lo), std::max(t->hi, f->hi)};
  }
  if (isa<arith::IndexCastOp, arith::ExtSIOp, arith::TruncIOp>(op)) {
    MaybeRange x = lookup(op->getOperand(0));
    // i1 sign-extends to {0, -1}.
    if (x && op->getOperand(0).getType().isInteger(1) &&
        isa<arith::ExtSIOp>(op))
      return Range{-x->hi, -x->lo};
    return x; // fit() rejects a truncation that wraps
  }
  if (isa<arith::IndexCastUIOp, arith::ExtUIOp>(op)) {
    MaybeRange x = lookup(op->getOperand(0));
    return x && x->lo >= 0 ? x : std::nullopt;
  }
  if (op->getNumOperands() != 2)
    return std::nullopt;
  MaybeRange x = lookup(op->getOperand(0)), y = lookup(op->getOperand(1));
  if (!x || !y)
    return std::nullopt;
  return binary(op, *x, *y);
}

MaybeRange IntervalEvaluator::binary(Operation *op, Range x, Range y) {
  using llvm::checkedAdd, llvm::checkedSub, llvm::checkedMul;
  bool nonNegative = x.lo >= 0 && y.lo >= 0;
  return llvm::TypeSwitch<Operation *, MaybeRange>(op)
      .Case([&](arith::AddIOp) -> MaybeRange {
        auto lo = checkedAdd(x.lo, y.lo), hi = checkedAdd(x.hi, y.hi);
        return lo && hi ? MaybeRange(Range{*lo, *hi}) : std::nullopt;
      })
      .Case([&](arith::SubIOp) -> MaybeRange {
        auto lo = checkedSub(x.lo, y.hi), hi = checkedSub(x.hi, y.lo);
        return lo && hi ? MaybeRange(Range{*lo, *hi}) : std::nullopt;
      })
      .Case([&](arith::MulIOp) {
        return corners(x, y,
                       [](int64_t a, int64_t b) { return checkedMul(a, b); });
      })
      .Case([&](arith::DivSIOp) { return divide(x, y, false, false); })
      .Case([&](arith::FloorDivSIOp) { return divide(x, y, true, false); })
      .Case([&](arith::CeilDivSIOp) { return divide(x, y, false, true); })
      .Case([&](arith::DivUIOp) {
        return nonNegative ? divide(x, y, false, false) : std::nullopt;
      })
      .Case([&](arith::CeilDivUIOp) {
        return nonNegative ? divide(x, y, false, true) : std::nullopt;
      })
      .Case([&](arith::RemSIOp) { return remainder(x, y); })
      .Case([&](arith::RemUIOp) {
        return nonNegative ? remainder(x, y) : std::nullopt;
      })
      .Case([&](arith::MinSIOp) {
        return MaybeRange(Range{std::min(x.lo, y.lo), std::min(x.hi, y.hi)});
      })
      .Case([&](arith::MaxSIOp) {
        return MaybeRange(Range{std::max(x.lo, y.lo), std::max(x.hi, y.hi)});
      })
      .Case([&](arith::MinUIOp) -> MaybeRange {
        if (!nonNegative)
          return std::nullopt;
        return Range{std::min(x.lo, y.lo), std::min(x.hi, y.hi)};
      })
      .Case([&](arith::MaxUIOp) -> MaybeRange {
        if (!nonNegative)
          return std::nullopt;
        return Range{std::max(x.lo, y.lo), std::max(x.hi, y.hi)};
      })
      .Case([&](arith::CmpIOp cmp) -> MaybeRange {
        bool known;
        Range r = compare(cmp.getPredicate(), x, y, known);
        return known ? MaybeRange(r) : std::nullopt;
      })
      .Case<arith::AndIOp, arith::OrIOp, arith::XOrIOp>(
          [&](Operation *) -> MaybeRange {
            if (op->getResult(0).getType().isInteger(1))
              return boolOp(op, x, y);
            return std::nullopt;
          })
      .Default([](Operation *) { return std::nullopt; });
}

/// Every value of a size that is 0 (dynamic): [0, 2^62).
Range upTo(int64_t size) {
  return {0, size > 0 ? size - 1 : (int64_t(1) << 62)};
}

} // namespace

std::optional<BlockMask> BlockMask::analyze(Region &maskMod, int64_t batch,
                                            int64_t heads, int64_t seqQ,
                                            int64_t seqK, int64_t blockQ,
                                            int64_t blockK) {
  if (maskMod.empty() || seqQ <= 0 || seqK <= 0 || blockQ <= 0 || blockK <= 0)
    return std::nullopt;
  BlockMask mask;
  mask.numQ = llvm::divideCeil(seqQ, blockQ);
  mask.numK = llvm::divideCeil(seqK, blockK);
  // A bound on the work (and on the tables the lowerings emit).
  constexpr int64_t kMaxTiles = int64_t(1) << 20;
  if (mask.numQ * mask.numK > kMaxTiles)
    return std::nullopt;
  mask.tiles.reserve(mask.numQ * mask.numK);
  IntervalEvaluator eval;
  for (int64_t qt = 0; qt < mask.numQ; ++qt) {
    Range rows{qt * blockQ, std::min(seqQ, (qt + 1) * blockQ) - 1};
    for (int64_t kt = 0; kt < mask.numK; ++kt) {
      Range cols{kt * blockK, std::min(seqK, (kt + 1) * blockK) - 1};
      MaybeRange keep =
          eval.run(maskMod, {upTo(batch), upTo(heads), rows, cols});
      TileMask m = TileMask::partial;
      if (keep && keep->single())
        m = keep->lo ? TileMask::visible : TileMask::hidden;
      mask.tiles.push_back(m);
    }
  }
  return mask;
}

std::pair<int64_t, int64_t> BlockMask::keyTiles(int64_t qt) const {
  int64_t lo = 0, hi = numK;
  while (lo < hi && at(qt, lo) == TileMask::hidden)
    ++lo;
  while (hi > lo && at(qt, hi - 1) == TileMask::hidden)
    --hi;
  return {lo, hi};
}

std::pair<int64_t, int64_t> BlockMask::queryTiles(int64_t kt) const {
  int64_t lo = 0, hi = numQ;
  while (lo < hi && at(lo, kt) == TileMask::hidden)
    ++lo;
  while (hi > lo && at(hi - 1, kt) == TileMask::hidden)
    --hi;
  return {lo, hi};
}

bool BlockMask::hasHiddenInside() const {
  // The forward and dQ nests loop over a query tile's key span.
  for (int64_t qt = 0; qt < numQ; ++qt) {
    auto [lo, hi] = keyTiles(qt);
    for (int64_t kt = lo; kt < hi; ++kt)
      if (at(qt, kt) == TileMask::hidden)
        return true;
  }
  // The dK/dV nest loops over a key tile's query span instead.
  for (int64_t kt = 0; kt < numK; ++kt) {
    auto [lo, hi] = queryTiles(kt);
    for (int64_t qt = lo; qt < hi; ++qt)
      if (at(qt, kt) == TileMask::hidden)
        return true;
  }
  return false;
}

bool BlockMask::hasVisible() const {
  return llvm::is_contained(tiles, TileMask::visible);
}

bool BlockMask::decidesSome() const {
  return llvm::any_of(tiles, [](TileMask m) { return m != TileMask::partial; });
}
