//===- KeyPadding.cpp - Masks as functions of (batch, row, key) -----------===//
//
// Frontends build masks from positions and an input padding mask:
// transformers' masking_utils ANDs `kv_idx <= q_idx` (causal), `q_idx -
// kv_idx < window` (sliding) and `attention_mask[batch_idx, kv_idx]`
// (padding), where the indices are arange tensors and the padding read is a
// tensor.extract at computed indices. A mask condition is split into its
// conjuncts; each is either a function of the positions (evaluated on the
// grid, Evaluate.cpp) or a key padding read: a function of one element of a
// data tensor read at (batch, key). The padding becomes a condition on the
// [B, Sk] tensor the program holds, read at (batch, key) in the op's
// mask_mod or score_mod (Masks.cpp): O(Sk) data, never a materialized
// [.., Sq, Sk] tensor.
//
//===----------------------------------------------------------------------===//
#include "Raising.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::fa::raising;

/// Whether `e` is the i1 constant `true`.
static bool isTrue(const ExprP &e) {
  return e->kind == Expr::IConst && e->type && e->type.isInteger(1) &&
         e->ival != 0;
}

void mlir::fa::raising::splitConjuncts(
    ExprP cond, bool visibleWhenTrue, ExprBuilder &eb,
    SmallVectorImpl<std::pair<ExprP, bool>> &out) {
  ExprP d = eb.derefAll(cond);
  // not x: x with the other polarity.
  if (d->kind == Expr::Xor && d->ops.size() == 2) {
    for (unsigned k = 0; k < 2; ++k)
      if (isTrue(eb.derefAll(d->ops[k]))) {
        splitConjuncts(d->ops[1 - k], !visibleWhenTrue, eb, out);
        return;
      }
  }
  // Visible where all of them are true, or hidden where any of them is.
  bool splits = d->type && d->type.isInteger(1) &&
                (visibleWhenTrue ? d->kind == Expr::And : d->kind == Expr::Or);
  if (splits) {
    for (const ExprP &o : d->ops)
      if (!(visibleWhenTrue && isTrue(eb.derefAll(o))))
        splitConjuncts(o, visibleWhenTrue, eb, out);
    return;
  }
  out.push_back({cond, visibleWhenTrue});
}

/// A data tensor for remarks: "function argument #3", "'linalg.generic'".
static std::string describeTensor(Value v) {
  if (auto arg = dyn_cast<BlockArgument>(v))
    return "function argument #" + std::to_string(arg.getArgNumber());
  return "'" + v.getDefiningOp()->getName().getStringRef().str() + "'";
}

namespace {
/// Inlines a conjunct down to its data read: leaves expanded, tensor.extract
/// replaced by the extracted tensor at fresh atoms bound to its indices.
struct Inliner {
  ExprBuilder &eb;
  std::string &why;
  /// The one data read and the index tree bound to each fresh atom.
  ExprP data;
  llvm::DenseMap<int, ExprP> bindings;

  ExprP run(ExprP e) {
    if (e->kind == Expr::Leaf) {
      ExprP d = eb.derefAll(e);
      if (d->kind != Expr::Leaf)
        return run(d);
      if (isConstantTensor(d->value))
        return d;
      if (data) {
        why = "the mask reads more than one data tensor element (" +
              (data->value == d->value
                   ? describeTensor(d->value) + " at two positions"
                   : describeTensor(data->value) + " and " +
                         describeTensor(d->value)) +
              ")";
        return nullptr;
      }
      data = d;
      return d;
    }
    if (e->kind == Expr::Extract) {
      auto type = dyn_cast<RankedTensorType>(e->value.getType());
      if (!type || !type.hasStaticShape()) {
        why = "the mask reads a tensor of dynamic shape";
        return nullptr;
      }
      Access access = eb.atoms.freshAccess(type.getShape());
      for (auto [l, index] : llvm::zip(access, e->ops))
        if (!l.empty())
          bindings[l[0]] = index;
      return run(eb.leaf(e->value, access));
    }
    if (e->kind == Expr::Unknown) {
      why = "the mask has an op that is not modelled: " + describeUnknown(*e);
      return nullptr;
    }
    return copyWithOperands(e, [&](ExprP o) { return run(o); });
  }

  /// The index tree of a dimension of the data read: plan atoms are read
  /// directly, an extract's atoms at the index it binds, and the parts a
  /// view split such an atom into (a reshape before a gather) at their
  /// digits of that index.
  ExprP address(const AtomList &dim) {
    MLIRContext *ctx = data->value.getContext();
    auto node = [&](Expr::Kind k, ArrayRef<ExprP> ops) {
      ExprP e = std::make_shared<Expr>();
      e->kind = k;
      e->ops.assign(ops.begin(), ops.end());
      e->type = IndexType::get(ctx);
      return e;
    };
    auto constant = [&](int64_t v) {
      ExprP e = node(Expr::IConst, {});
      e->ival = v;
      return e;
    };
    ExprP linear;
    for (int a : dim) {
      ExprP digit;
      if (ExprP bound = bindings.lookup(a)) {
        digit = bound;
      } else {
        for (auto &[f, index] : bindings) {
          AtomList parts = eb.atoms.leaves(AtomList{f});
          auto it = llvm::find(parts, a);
          if (it == parts.end())
            continue;
          int64_t stride = 1;
          for (auto p = it + 1; p != parts.end(); ++p)
            stride *= eb.atoms.size(*p);
          digit = node(Expr::IRemU,
                       {node(Expr::IDivU, {index, constant(stride)}),
                        constant(eb.atoms.size(a))});
          break;
        }
      }
      if (!digit) {
        digit = node(Expr::Index, {});
        digit->access = {{a}};
      }
      linear = linear ? node(Expr::IAdd,
                             {node(Expr::IMul, {linear,
                                                constant(eb.atoms.size(a))}),
                              digit})
                      : digit;
    }
    return linear;
  }

  /// A constant, or a tensor the program computes from constants
  /// (position ids, aranges: PositionTensors.cpp).
  bool isConstantTensor(Value v) {
    Attribute attr;
    std::string w;
    return matchPattern(v, m_Constant(&attr)) ||
           succeeded(foldPositionTensor(v, eb, w));
  }
};
} // namespace

/// Whether `e` depends on nothing but `leaf` and constants.
static bool onlyReads(const ExprP &e, const Expr *leaf) {
  if (e.get() == leaf)
    return true;
  switch (e->kind) {
  case Expr::Const:
  case Expr::IConst:
    return true;
  case Expr::Leaf:
  case Expr::Index:
  case Expr::Extract:
  case Expr::Unknown:
    return false;
  default:
    return llvm::all_of(e->ops,
                        [&](const ExprP &o) { return onlyReads(o, leaf); });
  }
}

FailureOr<KeyPadding> mlir::fa::raising::matchKeyPadding(
    ExprP cond, ArrayRef<int> batchAtoms, int rowAtom, int keyAtom,
    ExprBuilder &eb, std::string &why) {
  Inliner in{eb, why, nullptr, llvm::DenseMap<int, ExprP>()};
  ExprP pred = in.run(cond);
  if (!pred)
    return failure();
  if (!in.data) {
    why = kReadsNoData;
    return failure();
  }
  if (!onlyReads(pred, in.data.get())) {
    why = "the mask mixes a data read with positions in one condition";
    return failure();
  }
  // Each dimension of the read: the positions it is read at, as index
  // trees over the (batch, row, key) grid.
  SmallVector<int> grid(batchAtoms.begin(), batchAtoms.end());
  grid.push_back(rowAtom);
  grid.push_back(keyAtom);
  std::string w;
  FailureOr<std::vector<double>> keyIndex = evaluateOnAtoms(
      [&] {
        ExprP e = std::make_shared<Expr>();
        e->kind = Expr::Index;
        e->access = {{keyAtom}};
        e->type = IndexType::get(cond->type ? cond->type.getContext()
                                            : in.data->value.getContext());
        return e;
      }(),
      grid, eb, w);
  FailureOr<std::vector<double>> batchIndex = evaluateOnAtoms(
      [&] {
        ExprP e = std::make_shared<Expr>();
        e->kind = Expr::Index;
        e->access = {AtomList(batchAtoms.begin(), batchAtoms.end())};
        e->type = IndexType::get(in.data->value.getContext());
        return e;
      }(),
      grid, eb, w);
  if (failed(keyIndex) || failed(batchIndex)) {
    why = "the positions of a padding read cannot be enumerated: " + w;
    return failure();
  }
  KeyPadding pad;
  pad.tensor = in.data->value;
  pad.pred = pred;
  pad.leaf = in.data.get();
  bool sawKey = false, sawBatch = false;
  for (const AtomList &dim : eb.atoms.leaves(in.data->access)) {
    if (dim.empty()) {
      pad.access.push_back({});
      continue;
    }
    ExprP index = in.address(dim);
    FailureOr<std::vector<double>> at = evaluateOnAtoms(index, grid, eb, w);
    if (failed(at)) {
      why = "the position a padding mask is read at is not a function of "
            "the batch and key index: " +
            w;
      return failure();
    }
    if (!sawKey && *at == *keyIndex) {
      sawKey = true;
      pad.access.push_back({keyAtom});
    } else if (!sawBatch && !batchAtoms.empty() && *at == *batchIndex) {
      sawBatch = true;
      pad.access.push_back(AtomList(batchAtoms.begin(), batchAtoms.end()));
    } else {
      why = "a data mask read at positions other than (batch, key): not a "
            "key padding mask";
      return failure();
    }
  }
  if (!sawKey) {
    why = "a data mask that does not vary along the keys";
    return failure();
  }
  return pad;
}

/// `e` with the node `leaf` replaced by `with`; the copies forget their
/// origin (they are no longer the tensor they were read from).
static ExprP replaceLeaf(const ExprP &e, const Expr *leaf, const ExprP &with) {
  if (e.get() == leaf)
    return with;
  if (e->ops.empty())
    return e;
  ExprP copy = copyWithOperands(
      e, [&](const ExprP &o) { return replaceLeaf(o, leaf, with); });
  copy->origin = Value();
  copy->originAccess.clear();
  return copy;
}

ExprP mlir::fa::raising::keyPaddingCondition(const KeyPadding &pad,
                                             ExprBuilder &eb) {
  return replaceLeaf(pad.pred, pad.leaf, eb.leaf(pad.tensor, pad.access));
}
