//===- PlanCacheTest.cpp - Plans remembered per operand key ---------------===//
//
// A bundle or sequence remembers the plan of each operand key (roles,
// dtypes, sizes, strides, address alignment class, num_sms) and rewrites
// only the addresses on a repeat (lib/Runtime/PlanCache.h). Each case here
// plans or launches a valid `warm` call first, then a `probe` that differs
// from it, and asks for exactly what a fresh bundle or sequence answers to
// the probe: the same error, or the same grid, bytes, tensor map requests
// and driver calls.
//
//===----------------------------------------------------------------------===//
#include "FakeCuda.h"
#include "TestUtil.h"

#include <cstdio>
#include <functional>
#include <sstream>

using namespace fa::runtime;
using namespace fa::runtime::test;

namespace {

void hexBytes(std::ostream &out, const uint8_t *bytes, size_t n) {
  char buf[4];
  for (size_t i = 0; i < n; ++i) {
    std::snprintf(buf, sizeof(buf), "%02x", bytes[i]);
    out << buf;
  }
}

/// plan()'s answer as text: the error, or the grid, the packed bytes and
/// every request the encoder got.
std::string planOutcome(const Bundle &b, const std::vector<TensorArg> &t,
                        int64_t numSms = 132) {
  std::ostringstream out;
  TensorMapEncoder encoder = [&out](const TensorMapRequest &r, void *map) {
    out << " map[" << r.paramIndex << " " << r.operand << " " << r.dataType
        << " " << r.rank << " 0x" << std::hex << r.globalAddress << std::dec;
    for (uint32_t i = 0; i < r.rank; ++i)
      out << " " << r.globalDim[i] << "/" << r.boxDim[i] << "/"
          << (i ? r.globalStrides[i - 1] : 0);
    out << " " << r.swizzle << " " << r.l2Promotion << "]";
    std::memset(map, 0xA0 + static_cast<int>(r.paramIndex), 128);
    return Status::success();
  };
  Expected<LaunchPlan> p = b.plan(t, numSms, encoder);
  if (!p.ok())
    return statusText(p.status());
  out << " grid " << p->grid[0] << "," << p->grid[1] << "," << p->grid[2]
      << (p->empty ? " empty" : "") << " bytes ";
  if (!p->empty)
    hexBytes(out, p->params.bytes(), p->params.size);
  return "planned:" + out.str();
}

std::unique_ptr<Bundle> bundleOf(const std::string &text) {
  Expected<std::unique_ptr<Bundle>> b = bundleFromText(text);
  EXPECT_OK(b);
  return b.ok() ? std::move(*b) : nullptr;
}

/// A bundle that planned `warm` answers `probe` (twice) as a fresh one
/// does; returns that answer.
std::string expectPlanAsFresh(const std::string &text,
                              const std::vector<TensorArg> &warm,
                              const std::vector<TensorArg> &probe,
                              int64_t probeSms = 132) {
  std::unique_ptr<Bundle> cached = bundleOf(text), fresh = bundleOf(text);
  if (!cached || !fresh)
    return "";
  EXPECT_OK(cached->plan(warm, 132, [](const TensorMapRequest &, void *) {
    return Status::success();
  }));
  std::string want = planOutcome(*fresh, probe, probeSms);
  EXPECT_EQ(planOutcome(*cached, probe, probeSms), want);
  EXPECT_EQ(planOutcome(*cached, probe, probeSms), want);
  return want;
}

/// exampleTensors() with `edit` applied to the operand `role`.
std::vector<TensorArg>
editedExample(const std::string &role,
              const std::function<void(TensorArg &)> &edit) {
  std::vector<TensorArg> t = exampleTensors();
  edit(find(t, role));
  return t;
}

bool isError(const std::string &outcome) {
  return outcome != "success" && outcome.rfind("planned:", 0) != 0;
}

/// `outcome` (planOutcome's or a launch's status text) is a Tensor error
/// containing `substring`.
void expectTensorError(const std::string &outcome,
                       const std::string &substring) {
  EXPECT_EQ(
      outcome.rfind(std::string(errorCodeName(ErrorCode::Tensor)) + ": ", 0),
      size_t(0))
      << outcome;
  EXPECT_NE(outcome.find(substring), std::string::npos) << outcome;
}

} // namespace

TEST(PlanCache, plan_repeat_at_other_addresses) {
  std::vector<TensorArg> moved = exampleTensors();
  for (TensorArg &t : moved)
    t.data += 0x3000000;
  std::string got =
      expectPlanAsFresh(exampleBundleText(), exampleTensors(), moved);
  EXPECT_FALSE(isError(got)) << got;
  EXPECT_NE(got.find("0x13000000"), std::string::npos) << got; // query's map
}

TEST(PlanCache, plan_address_alignment_after_a_cached_plan) {
  // TMA's 16 bytes (query), the element size (output, bf16), null.
  expectTensorError(
      expectPlanAsFresh(
          exampleBundleText(), exampleTensors(),
          editedExample("query", [](TensorArg &t) { t.data += 8; })),
      "operand 'query': address 0x10000008 is not 16-byte aligned");
  expectTensorError(
      expectPlanAsFresh(
          exampleBundleText(), exampleTensors(),
          editedExample("output", [](TensorArg &t) { t.data += 1; })),
      "operand 'output': address 0x40000001 is not aligned to its "
      "element size (2 bytes)");
  expectTensorError(
      expectPlanAsFresh(exampleBundleText(), exampleTensors(),
                        editedExample("lse", [](TensorArg &t) { t.data = 0; })),
      "operand 'lse': null data pointer for a non-empty tensor");
}

TEST(PlanCache, plan_ptr_align_4096_after_a_cached_plan) {
  // The largest `align` a bundle may ask: an address aligned to 2048 only
  // must fail after one aligned to 2^30 passed, one aligned to 4096 pass.
  // (Its heads are 2048 elements apart: every stride a multiple of 4096 B.)
  std::string text = replaceOnce(exampleBundleText(),
                                 "{\"kind\": \"ptr\", \"operand\": \"output\"}",
                                 "{\"kind\": \"ptr\", \"operand\": \"output\", "
                                 "\"align\": 4096}");
  auto padded = [](uint64_t offset) {
    return editedExample("output", [offset](TensorArg &t) {
      t.strides = {1000 * 16 * 2048, 16 * 2048, 2048, 1};
      t.data += offset;
    });
  };
  expectTensorError(expectPlanAsFresh(text, padded(0), padded(2048)),
                    "operand 'output': address 0x40000800 is not 4096-byte "
                    "aligned (params[2], ptr)");
  std::string ok = expectPlanAsFresh(text, padded(0), padded(4096));
  EXPECT_FALSE(isError(ok)) << ok;
}

TEST(PlanCache, plan_changed_shapes_strides_dtypes) {
  std::string text = exampleBundleText();
  std::vector<TensorArg> warm = exampleTensors();
  expectTensorError(
      expectPlanAsFresh(
          text, warm,
          editedExample("key", [](TensorArg &t) { t.sizes[0] = 3; })),
      "operand 'key': dimension 0 (batch) is 3, expected 2");
  expectTensorError(
      expectPlanAsFresh(
          text, warm,
          editedExample("query", [](TensorArg &t) { t.strides[3] = 2; })),
      "operand 'query': the innermost dimension (dim) must have "
      "stride 1, got 2");
  expectTensorError(
      expectPlanAsFresh(
          text, warm,
          editedExample("value", [](TensorArg &t) { t.dtype = DType::F16; })),
      "operand 'value': dtype is f16, expected bf16");
  // A valid change is a new plan: other strides in the query's map, other
  // sizes in the grid and the i32 parameters.
  std::string padded =
      expectPlanAsFresh(text, warm, editedExample("query", [](TensorArg &t) {
                          t.strides = {1000 * 16 * 256, 16 * 256, 256, 1};
                        }));
  EXPECT_FALSE(isError(padded)) << padded;
  EXPECT_NE(padded.find("/512 "), std::string::npos) << padded;
  std::string longer = expectPlanAsFresh(text, warm, exampleTensors(2000, 333));
  EXPECT_FALSE(isError(longer)) << longer;
  EXPECT_NE(longer.find("grid 16,16,2"), std::string::npos) << longer;
}

TEST(PlanCache, plan_roles_and_num_sms) {
  std::string text = exampleBundleText();
  std::vector<TensorArg> example = exampleTensors();
  std::vector<TensorArg> reversed(example.rbegin(), example.rend());
  std::string got = expectPlanAsFresh(text, exampleTensors(), reversed);
  EXPECT_FALSE(isError(got)) << got;
  std::vector<TensorArg> missing = exampleTensors();
  missing.pop_back();
  expectTensorError(expectPlanAsFresh(text, exampleTensors(), missing),
                    "missing operand 'lse'");
  std::vector<TensorArg> twice = exampleTensors();
  twice.push_back(twice[0]);
  expectTensorError(expectPlanAsFresh(text, exampleTensors(), twice),
                    "operand 'query': passed more than once");
  // num_sms is part of the key: a grid that reads it follows it.
  std::string bySms = replaceOnce(text, "\"grid\": [\"ceildiv(seq_q, 128)\"",
                                  "\"grid\": [\"min(num_sms, 7)\"");
  EXPECT_NE(expectPlanAsFresh(bySms, exampleTensors(), exampleTensors(), 5)
                .find("grid 5,16,2"),
            std::string::npos);
}

//===----------------------------------------------------------------------===//
// Sequences: the workspace and every kernel's plan
//===----------------------------------------------------------------------===//

namespace {

std::unique_ptr<Sequence> loadedBackward() {
  Expected<std::unique_ptr<Sequence>> s =
      Sequence::load(inputsDir() + "/bwd.json");
  EXPECT_OK(s);
  return s.ok() ? std::move(*s) : nullptr;
}

/// What the fake driver recorded: its stream events (addresses, counts,
/// each launch's parameters) and the tensor maps it encoded.
std::string driverRecord(const FakeCudaState *s) {
  std::ostringstream out;
  out << kinds(s);
  for (int i = 0; i < s->numEvents && i < 64; ++i) {
    const FakeEvent &e = s->events[i];
    out << " [" << std::hex << e.ptr << " " << e.count;
    if (e.kind == kFakeLaunch)
      for (uint64_t w : e.paramWords)
        out << " " << w;
    out << std::dec << "]";
  }
  out << " encodes " << s->encodes;
  for (int i = 0; i < s->encodes && i < 8; ++i) {
    const FakeEncodeCall &c = s->lastEncodes[i];
    out << " {" << c.dataType << " " << c.rank << " " << std::hex << c.address
        << std::dec;
    for (uint32_t d = 0; d < c.rank && d < 5; ++d)
      out << " " << c.dims[d] << "/" << c.box[d] << "/"
          << (d + 1 < c.rank ? c.strides[d] : 0);
    out << "}";
  }
  return out.str();
}

/// A sequence that launched `warm` launches `probe` (allocations at
/// `allocOffset` past the fake's addresses) as a fresh sequence does;
/// returns the status text.
std::string expectLaunchAsFresh(const std::vector<TensorArg> &warm,
                                const std::vector<TensorArg> &probe,
                                uint64_t allocOffset = 0) {
  useFakeSequenceDriver();
  std::unique_ptr<Sequence> cached = loadedBackward();
  if (!cached)
    return "";
  EXPECT_OK(cached->launch(warm, nullptr));
  FakeCudaState *fake = useFakeSequenceDriver();
  fake->allocOffset = allocOffset;
  std::string got = statusText(cached->launch(probe, nullptr));
  std::string gotRecord = driverRecord(fake);
  fake = useFakeSequenceDriver();
  fake->allocOffset = allocOffset;
  std::unique_ptr<Sequence> fresh = loadedBackward();
  std::string want = statusText(fresh->launch(probe, nullptr));
  EXPECT_EQ(got, want);
  EXPECT_EQ(gotRecord, driverRecord(fake));
  return want;
}

} // namespace

TEST(PlanCache, sequence_launch_repeat) {
  std::vector<TensorArg> moved = backwardTensors();
  for (TensorArg &t : moved)
    t.data += 0x100000;
  EXPECT_EQ(expectLaunchAsFresh(backwardTensors(), moved), "success");
  // A workspace buffer passed after one allocated: another plan.
  std::vector<TensorArg> passed = backwardTensors();
  passed.push_back(
      tensor("dq_accum", DType::F32, {2, 16, 1024, 128}, 0x60000000));
  EXPECT_EQ(expectLaunchAsFresh(backwardTensors(), passed), "success");
  EXPECT_EQ(expectLaunchAsFresh(passed, backwardTensors()), "success");
}

TEST(PlanCache, sequence_launch_allocated_alignment) {
  // The driver hands out a dq_accum (a tensor map) aligned to 8 bytes only
  // after a plan made with aligned ones: the full checks reject it.
  expectTensorError(expectLaunchAsFresh(backwardTensors(), backwardTensors(),
                                        /*allocOffset=*/8),
                    "operand 'dq_accum': address 0x71000008 is not 16-byte "
                    "aligned");
  // The plan still serves aligned ones afterwards.
  useFakeSequenceDriver();
  std::unique_ptr<Sequence> s = loadedBackward();
  ASSERT_TRUE(s != nullptr);
  EXPECT_OK(s->launch(backwardTensors(), nullptr));
  useFakeSequenceDriver()->allocOffset = 8;
  EXPECT_ERROR(s->launch(backwardTensors(), nullptr), ErrorCode::Tensor,
               "'dq_accum': address 0x71000008 is not 16-byte aligned");
  FakeCudaState *fake = useFakeSequenceDriver();
  EXPECT_OK(s->launch(backwardTensors(), nullptr));
  std::string again = driverRecord(fake);
  fake = useFakeSequenceDriver();
  EXPECT_OK(loadedBackward()->launch(backwardTensors(), nullptr));
  EXPECT_EQ(again, driverRecord(fake));
}

TEST(PlanCache, sequence_check_changed_operand) {
  std::vector<TensorArg> t = backwardTensors();
  find(t, "grad_key").sizes[1] = 334;
  std::unique_ptr<Sequence> cached = loadedBackward(), fresh = loadedBackward();
  ASSERT_TRUE(cached && fresh);
  EXPECT_OK(cached->check(backwardTensors(), 132));
  EXPECT_EQ(statusText(checkStatus(*cached, t)),
            statusText(checkStatus(*fresh, t)));
  EXPECT_ERROR(checkStatus(*cached, t), ErrorCode::Tensor,
               "operand 'grad_key': dimension 1 (seq) is 334, expected 333");
  std::vector<TensorArg> misaligned = backwardTensors();
  find(misaligned, "query").data += 8;
  EXPECT_EQ(statusText(checkStatus(*cached, misaligned)),
            statusText(checkStatus(*fresh, misaligned)));
  EXPECT_ERROR(checkStatus(*cached, misaligned), ErrorCode::Tensor,
               "operand 'query': address 0x10000008 is not 16-byte aligned");
}
