//===- ParamPack.h - Kernel parameter layout and packing --------*- C++ -*-===//
//
// Turns a checked launch into the bytes of the kernel's parameters. Tensor
// maps are produced by a TensorMapEncoder: the driver's cuTensorMapEncodeTiled
// at launch, a fake in tests, so that the whole packing runs without a GPU.
//
//===----------------------------------------------------------------------===//
#ifndef FA_RUNTIME_PARAMPACK_H
#define FA_RUNTIME_PARAMPACK_H

#include "fa/Runtime/BundleSpec.h"
#include "fa/Runtime/Status.h"
#include "fa/Runtime/Tensor.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace fa::runtime {

/// Arguments of one cuTensorMapEncodeTiled call; enum fields hold the CUDA
/// enum values (fa/Runtime/CudaTypes.h).
struct TensorMapRequest {
  size_t paramIndex = 0;
  std::string operand;
  int dataType = 0;
  uint32_t rank = 0;
  uint64_t globalAddress = 0;
  std::array<uint64_t, 5> globalDim{};     // elements, innermost first
  std::array<uint64_t, 4> globalStrides{}; // bytes, of dims 1..rank-1
  std::array<uint32_t, 5> boxDim{};
  std::array<uint32_t, 5> elementStrides{};
  int interleave = 0;
  int swizzle = 0;
  int l2Promotion = 0;
  int oobFill = 0;
};

/// Writes the 128-byte descriptor for `request` into `out` (64-byte aligned).
using TensorMapEncoder =
    std::function<Status(const TensorMapRequest &request, void *out)>;

/// Offset and size of one parameter in the packed buffer.
struct ParamSlot {
  size_t offset = 0;
  size_t size = 0;
  size_t align = 0;
};

/// Natural-alignment layout of the parameters (tensor maps 128 bytes at
/// 64-byte alignment, pointers and i64 8 bytes, i32 and f32 4 bytes).
std::vector<ParamSlot> layoutParams(const std::vector<ParamSpec> &params,
                                    size_t *totalSize);

/// Builds the request for tensor map parameter `paramIndex`; every byte
/// stride is computed with overflow checks and must be below 2^40.
Expected<TensorMapRequest> makeTensorMapRequest(const BundleSpec &spec,
                                                size_t paramIndex,
                                                const TensorArg &tensor);

/// The CUDA tensor map data type for an element type.
int tensorMapDataType(DType dtype);

struct PackedParams {
  std::vector<ParamSlot> slots;
  size_t size = 0;
  /// The packed bytes; the base is 128-byte aligned.
  std::shared_ptr<uint8_t> storage;
  uint8_t *bytes() const { return storage.get(); }
  /// For tensor_map_global: the descriptors, in parameter order, that the
  /// launcher copies to device memory before patching the pointer slots.
  std::vector<size_t> globalMapParams;
  std::vector<std::array<uint8_t, 128>> globalMaps;
  /// One pointer per parameter into bytes(), for cuLaunchKernelEx.
  std::vector<void *> kernelParams() const;
  /// A copy with storage of its own.
  PackedParams clone() const;
};

/// Evaluates and packs every parameter. `operands` must come from
/// checkOperands on the same spec (with num_sms set if expressions use it).
Expected<PackedParams> packParams(const BundleSpec &spec,
                                  const OperandSet &operands,
                                  const TensorMapEncoder &encoder);

/// A parameter whose packed bytes hold an operand's address: a ptr, or a
/// tensor map (whose descriptor embeds the address).
struct AddressParam {
  size_t param = 0;
  /// Index of the operand in the tensors the launch was checked from.
  size_t operand = 0;
  /// tensor_map, tensor_map_global: the descriptor's arguments.
  TensorMapRequest request;
};

/// The address parameters of a launch packed from `operands`, which
/// checkOperands made from `tensors`.
Expected<std::vector<AddressParam>>
addressParams(const BundleSpec &spec, const OperandSet &operands,
              const std::vector<TensorArg> &tensors);

/// Rewrites the address parameters of `packed` (packParams' result for the
/// same spec) for operands at `addresses` (by operand index): pointers
/// stored, tensor maps encoded again, exactly as packParams would.
Status repackAddresses(const BundleSpec &spec, PackedParams &packed,
                       const std::vector<AddressParam> &params,
                       const std::vector<uint64_t> &addresses,
                       const TensorMapEncoder &encoder);

/// Evaluates the grid; errors name the grid entry. Values must fit CUDA's
/// limits (x < 2^31, y and z <= 65535); zeros are returned as they are (an
/// empty launch).
Expected<std::array<uint32_t, 3>> evalGrid(const BundleSpec &spec,
                                           const SymbolTable &symbols);

} // namespace fa::runtime

#endif // FA_RUNTIME_PARAMPACK_H
