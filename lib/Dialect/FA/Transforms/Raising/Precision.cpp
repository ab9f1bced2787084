//===- Precision.cpp - Which element type the raised op computes in -------===//
//
// fa.attention in bf16 (or f16) reads T inputs, accumulates Q Kᵀ in f32,
// runs the softmax in f32, rounds P to T, accumulates P·V in f32 and rounds
// the output to T. A program that rounds at exactly those points (T roots,
// f32-accumulating contractions, P truncated to T before P·V, the output
// truncated to T) computes the kernel's function, so the truncation of the
// output becomes part of the raised op and the op is T. Otherwise the
// truncation stays outside (the op computes in f32 with converts around it,
// since P is not rounded where the kernel would round it), unless the
// raise narrows such promoted attention (RaiseAttentionOptions::
// narrowPromoted): then the op is T and rounds P as FlashAttention does.
//
//===----------------------------------------------------------------------===//
#include "Plan.h"

using namespace mlir;
using namespace mlir::fa::raising;

void mlir::fa::raising::selectPrecision(Plan &plan, Value pOperand,
                                        const OutputChain &chain) {
  if (!chain.truncation)
    return;
  Type t = getElementTypeOrSelf(chain.truncation->getResult(0).getType());
  auto is = [&](Value v) { return getElementTypeOrSelf(v.getType()) == t; };
  bool kernelRounding = is(plan.q.value) && is(plan.k.value) &&
                        is(plan.v.value) && is(pOperand);
  if (kernelRounding && plan.finalValue == chain.final) {
    plan.kernelType = t;
    return;
  }
  if (plan.finalValue == chain.final) {
    bool sameRoots = is(plan.q.value) && is(plan.k.value) && is(plan.v.value);
    if (sameRoots)
      plan.promoted =
          Plan::Promoted{chain.final, chain.finalAccess, t,
                         getElementTypeOrSelf(chain.beforeTrunc.getType())};
    plan.finalValue = chain.beforeTrunc;
    plan.outAccess = chain.beforeTruncAccess;
  }
}

bool mlir::fa::raising::narrowPromoted(Plan &plan) {
  // The backward's gradients keep the program's precision.
  if (!plan.promoted || plan.bwd)
    return false;
  plan.finalValue = plan.promoted->final;
  plan.outAccess = plan.promoted->finalAccess;
  plan.kernelType = plan.promoted->type;
  return true;
}
