//===- Contract.cpp - Operand roles from the bundle schema ----------------===//
//
// The role functions of BundleSpec.h over the tables generated from the
// bundle schema (Contract.h): which roles exist, their dims in a layout,
// their dtypes, the operands each op requires.
//
//===----------------------------------------------------------------------===//
#include "Contract.h"

#include <algorithm>

namespace fa::runtime {

namespace contract {

const std::vector<Operand> &operands() {
  static const std::vector<Operand> table = {
#include "fa/Runtime/Operands.inc"
  };
  return table;
}

static const std::vector<Op> &ops() {
  static const std::vector<Op> table = {
#include "fa/Runtime/Ops.inc"
  };
  return table;
}

const Operand *findOperand(const std::string &role) {
  for (const Operand &o : operands())
    if (role == o.role)
      return &o;
  return nullptr;
}

std::vector<Dim> operandDims(const std::string &role, const std::string &op,
                             const BundleConfig &config) {
  const Operand *o = findOperand(role);
  if (!o)
    return {};
  if (op == kCombineOp && !o->combine.empty())
    return o->combine;
  if (o->shape == OperandShape::Descale && config.descaleBlock)
    return o->perBlock;
  std::vector<Dim> dims = o->dims;
  if (o->shape == OperandShape::Layout && config.layout == Layout::BHSD)
    std::swap(dims[1], dims[2]);
  return dims;
}

} // namespace contract

using namespace contract;

const std::vector<std::string> &standardRoles() {
  static const std::vector<std::string> roles = [] {
    std::vector<std::string> out;
    for (const Operand &o : operands())
      out.push_back(o.role);
    return out;
  }();
  return roles;
}

bool isStandardRole(const std::string &role) {
  return findOperand(role) != nullptr;
}

static bool hasShape(const std::string &role, OperandShape shape) {
  const Operand *o = findOperand(role);
  return o && o->shape == shape;
}

bool followsLayout(const std::string &role) {
  return hasShape(role, OperandShape::Layout);
}

bool isBiasLike(const std::string &role) {
  return hasShape(role, OperandShape::Bias);
}

bool isCuSeqlens(const std::string &role) {
  return hasShape(role, OperandShape::Bounds);
}

bool isDescale(const std::string &role) {
  return hasShape(role, OperandShape::Descale);
}

bool isPartial(const std::string &role) {
  return role == "partial_output" || role == "partial_lse";
}

std::vector<std::string> operandDims(const BundleSpec &spec,
                                     const std::string &role) {
  if (isStandardRole(role)) {
    std::vector<std::string> out;
    for (const Dim &d : contract::operandDims(role, spec.op, spec.config))
      out.push_back(d.name);
    return out;
  }
  for (const auto *list : {&spec.scratch, &spec.captures})
    for (const ScratchSpec &s : *list)
      if (s.name == role)
        return s.dims;
  return {};
}

std::optional<DType> operandDType(const BundleSpec &spec,
                                  const std::string &role) {
  const BundleConfig &c = spec.config;
  if (const Operand *o = findOperand(role)) {
    switch (o->dtype) {
    case DTypeFrom::DType:
      return c.dtype;
    case DTypeFrom::OutDType:
      return c.outDType;
    case DTypeFrom::BiasDType:
      return c.biasDType;
    case DTypeFrom::F32:
      return DType::F32;
    case DTypeFrom::I32:
      return DType::I32;
    }
  }
  for (const auto *list : {&spec.scratch, &spec.captures})
    for (const ScratchSpec &s : *list)
      if (s.name == role)
        return s.dtype;
  return std::nullopt;
}

static const Op *findOp(const std::string &op) {
  for (const Op &o : ops())
    if (op == o.name)
      return &o;
  return nullptr;
}

std::vector<std::string> opOperands(const std::string &op) {
  const Op *o = findOp(op);
  if (!o)
    return {};
  return std::vector<std::string>(o->operands.begin(), o->operands.end());
}

std::vector<std::string> opOperands(const std::string &op,
                                    const BundleConfig &config) {
  std::vector<std::string> out = opOperands(op);
  if (const Op *o = findOp(op)) {
    if (config.returnLse)
      out.insert(out.end(), o->returnLse.begin(), o->returnLse.end());
    if (config.bias)
      out.insert(out.end(), o->bias.begin(), o->bias.end());
    if (config.sinks)
      out.insert(out.end(), o->sinks.begin(), o->sinks.end());
  }
  return out;
}

} // namespace fa::runtime
