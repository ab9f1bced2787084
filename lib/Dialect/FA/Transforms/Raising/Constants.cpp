//===- Constants.cpp - The elements of a constant tensor, however held ----===//
//
// torch-mlir prints constants larger than a few elements as
// `dense_resource<...>` blobs (HF GPT-Neo's and GPT-J's causal `bias`
// buffers, relative position tables), not `dense<...>`. The mask evaluator
// and the position-tensor folder read both: a blob is the tensor's elements
// in row-major order, little-endian, booleans one byte each.
//
//===----------------------------------------------------------------------===//
#include "Raising.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::fa::raising;

/// A resource blob as dense elements of `type`; null when its size does not
/// match or the element type is not a plain integer or float.
static DenseElementsAttr fromBlob(ShapedType type, ArrayRef<char> data) {
  Type et = type.getElementType();
  int64_t n = type.getNumElements();
  if (et.isInteger(1)) {
    if ((int64_t)data.size() != n)
      return {};
    SmallVector<bool> bits(n);
    for (int64_t i = 0; i < n; ++i)
      bits[i] = data[i] != 0;
    return DenseElementsAttr::get(type, bits);
  }
  if (!et.isIntOrIndexOrFloat() || et.getIntOrFloatBitWidth() % 8 != 0 ||
      (int64_t)data.size() != n * (et.getIntOrFloatBitWidth() / 8))
    return {};
  return DenseElementsAttr::getFromRawBuffer(type, data);
}

DenseElementsAttr mlir::fa::raising::constantElements(Value v) {
  Attribute attr;
  if (auto c = v.getDefiningOp<tosa::ConstOp>())
    attr = c.getValues();
  else if (!matchPattern(v, m_Constant(&attr)))
    return {};
  if (auto dense = dyn_cast<DenseElementsAttr>(attr))
    return dense;
  auto res = dyn_cast<DenseResourceElementsAttr>(attr);
  if (!res)
    return {};
  AsmResourceBlob *blob = res.getRawHandle().getBlob();
  if (!blob)
    return {};
  return fromBlob(res.getType(), blob->getData());
}
