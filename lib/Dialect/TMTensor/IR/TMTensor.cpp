//===- TMTensor.cpp - torch-mlir's tm_tensor ops, as printed --------------===//
//
// Verifiers name the operand that is wrong; the shapes are torch-mlir's
// (TMTensorOps.cpp), restricted to tensors.
//
//===----------------------------------------------------------------------===//
#include "fa/Dialect/TMTensor/IR/TMTensor.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

#include <cmath>

using namespace mlir;
using namespace mlir::fa::tm_tensor;

#include "fa/Dialect/TMTensor/IR/TMTensorDialect.cpp.inc"

void TMTensorDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "fa/Dialect/TMTensor/IR/TMTensorOps.cpp.inc"
      >();
}

#define GET_OP_CLASSES
#include "fa/Dialect/TMTensor/IR/TMTensorOps.cpp.inc"

//===----------------------------------------------------------------------===//
// AttentionOp
//===----------------------------------------------------------------------===//

double AttentionOp::getScaleOrDefault() {
  if (FloatAttr s = getScaleAttr())
    return s.getValueAsDouble();
  int64_t d = cast<RankedTensorType>(getQuery().getType()).getShape().back();
  return 1.0 / std::sqrt(static_cast<double>(d));
}

/// Whether two dimension sizes may be equal (dynamic ones may).
static bool compatible(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

LogicalResult AttentionOp::verify() {
  if (getInputs().size() != 3 && getInputs().size() != 4)
    return emitOpError("expects ins (query, key, value) or (query, key, "
                       "value, mask), got ")
           << getInputs().size() << " inputs";
  if (getOutputs().size() != 1 || getResult().size() != 1)
    return emitOpError("expects one output and one result");
  auto q = cast<RankedTensorType>(getQuery().getType());
  auto k = cast<RankedTensorType>(getKey().getType());
  auto v = cast<RankedTensorType>(getValue().getType());
  auto o = cast<RankedTensorType>(getOutputs()[0].getType());
  int64_t rank = q.getRank();
  if (rank < 2)
    return emitOpError("query must have rank >= 2 ([..., seq, dim])");
  auto named = [&](StringRef name, RankedTensorType t) -> LogicalResult {
    if (t.getRank() != rank)
      return emitOpError() << name << " has rank " << t.getRank()
                           << ", the query " << rank;
    for (int64_t i = 0; i < rank - 2; ++i)
      if (!compatible(t.getDimSize(i), q.getDimSize(i)))
        return emitOpError() << name << " and query differ in batch dimension "
                             << i;
    return success();
  };
  if (failed(named("key", k)) || failed(named("value", v)) ||
      failed(named("output", o)))
    return failure();
  if (!isa<FloatType>(q.getElementType()) || k.getElementType() !=
      q.getElementType() || v.getElementType() != q.getElementType() ||
      o.getElementType() != q.getElementType())
    return emitOpError("query, key, value and output must have one float "
                       "element type");
  if (!compatible(k.getDimSize(rank - 1), q.getDimSize(rank - 1)))
    return emitOpError("key's head dimension differs from the query's");
  if (!compatible(v.getDimSize(rank - 2), k.getDimSize(rank - 2)))
    return emitOpError("value's sequence length differs from the key's");
  if (!compatible(o.getDimSize(rank - 2), q.getDimSize(rank - 2)) ||
      !compatible(o.getDimSize(rank - 1), v.getDimSize(rank - 1)))
    return emitOpError("output must be [..., query seq, value head dim]");
  if (getResult()[0].getType() != o)
    return emitOpError("result type must be the output's type");
  if (Value mask = getMask()) {
    auto m = cast<RankedTensorType>(mask.getType());
    if (failed(named("mask", m)))
      return failure();
    if (!compatible(m.getDimSize(rank - 2), q.getDimSize(rank - 2)) ||
        !compatible(m.getDimSize(rank - 1), k.getDimSize(rank - 2)))
      return emitOpError("mask must be [..., query seq, key seq]");
    Type e = m.getElementType();
    if (!e.isInteger(1) && e != q.getElementType())
      return emitOpError("mask must be i1 or the query's element type");
  }
  return success();
}

//===----------------------------------------------------------------------===//
// ScanOp
//===----------------------------------------------------------------------===//

LogicalResult ScanOp::verify() {
  if (getInputs().size() != 1)
    return emitOpError("expects one input");
  if (getOutputs().size() != 2)
    return emitOpError("expects two outputs (output, accumulator)");
  auto in = cast<RankedTensorType>(getInputs()[0].getType());
  auto out = cast<RankedTensorType>(getOutputs()[0].getType());
  auto acc = cast<RankedTensorType>(getOutputs()[1].getType());
  int64_t dim = getDimension();
  if (dim < 0 || dim >= in.getRank())
    return emitOpError("dimension ") << dim << " is out of range for the "
                                     << "input's rank " << in.getRank();
  if (out.getElementType() != in.getElementType() ||
      acc.getElementType() != in.getElementType())
    return emitOpError("input, output and accumulator must have one element "
                       "type");
  if (out.getRank() != in.getRank() ||
      !llvm::all_of(llvm::seq<int64_t>(0, in.getRank()), [&](int64_t i) {
        return compatible(in.getDimSize(i), out.getDimSize(i));
      }))
    return emitOpError("output shape differs from the input's");
  if (acc.getRank() != in.getRank() - 1)
    return emitOpError("accumulator must have the input's rank - 1");
  for (int64_t i = 0, j = 0; i < in.getRank(); ++i) {
    if (i == dim)
      continue;
    if (!compatible(in.getDimSize(i), acc.getDimSize(j++)))
      return emitOpError("accumulator shape must be the input's without "
                         "dimension ")
             << dim;
  }
  if (getResults().size() != 2 || getResults()[0].getType() != out ||
      getResults()[1].getType() != acc)
    return emitOpError("results must have the outputs' types");
  Block &body = getRegion().front();
  Type e = in.getElementType();
  if (body.getNumArguments() != 2 || body.getArgument(0).getType() != e ||
      body.getArgument(1).getType() != e)
    return emitOpError("region must take two ") << e << " arguments";
  auto yield = dyn_cast<YieldOp>(body.getTerminator());
  if (!yield || yield.getOperands().size() != 1 ||
      yield.getOperands()[0].getType() != e)
    return emitOpError("region must yield one ") << e;
  return success();
}
