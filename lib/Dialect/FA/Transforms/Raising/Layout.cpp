//===- Layout.cpp - The layout of the raised op ---------------------------===//
//
// fa.attention is created in bshd when Q, K and V already are (no transposes
// at all), bhsd otherwise; `rearrange` (Atoms.cpp) then materializes each
// operand in it.
//
//===----------------------------------------------------------------------===//
#include "Plan.h"

using namespace mlir;
using namespace mlir::fa;
using namespace mlir::fa::raising;

Access mlir::fa::raising::layoutAccess(const Plan &plan, const AtomList &heads,
                                       int seq, int d) {
  if (plan.layout == Layout::bshd)
    return {plan.batchPart, {seq}, heads, {d}};
  return {plan.batchPart, heads, {seq}, {d}};
}

Layout mlir::fa::raising::chooseLayout(const Plan &plan,
                                       const AtomTable &atoms) {
  auto holds = [&](const Root &r, Layout layout, const AtomList &heads,
                   int seq, int d) {
    AtomList want = plan.batchPart;
    if (layout == Layout::bshd) {
      want.push_back(seq);
      want.append(heads);
    } else {
      want.append(heads);
      want.push_back(seq);
    }
    want.push_back(d);
    return atoms.flatLeaves(r.access) == want;
  };
  auto all = [&](Layout layout) {
    return holds(plan.q, layout, plan.allHeads(), plan.rowAtom, plan.dimAtom) &&
           holds(plan.k, layout, plan.headsPresent, plan.keyAtom,
                 plan.dimAtom) &&
           holds(plan.v, layout, plan.headsPresent, plan.keyAtom,
                 plan.dimVAtom);
  };
  if (!all(Layout::bhsd) && all(Layout::bshd))
    return Layout::bshd;
  return Layout::bhsd;
}
