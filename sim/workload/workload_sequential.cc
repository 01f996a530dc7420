// SPDX-License-Identifier: Apache-2.0
// `sequential`: unit u is key number start + u * step rendered into the shape.
#include "sim/base/rng.h"
#include "sim/workload/workload.h"

namespace chsim::sim {
namespace {

class Sequential final : public Workload {
 public:
  explicit Sequential(const FieldValues& f)
      : keys_(f.Integer("keys")),
        start_(f.Integer("start")),
        step_(f.Integer("step")),
        shape_(KeyShape::Compile(f.String("shape"), "workload.shape")) {}

  bool indexed() const noexcept override { return true; }
  uint64_t units() const noexcept override { return keys_; }
  void KeyAt(uint64_t seed, uint64_t u, std::string* out) const override {
    const uint64_t number = start_ + u * step_;
    shape_.Render(number, Derive(seed, number), out);
  }
  // Key j: its number, random parts from the stream of that number.
  void KeysAt(uint64_t seed, uint64_t begin, size_t count, KeyBlock* block) const override {
    block->index.resize(count);
    block->stream.resize(count);
    for (size_t j = 0; j < count; ++j) {
      block->index[j] = block->stream[j] = start_ + (begin + j) * step_;
    }
    shape_.RenderBlock(block->index, seed, block->stream, block);
  }

 private:
  uint64_t keys_, start_, step_;
  KeyShape shape_;
};

constexpr FieldSpec kFields[] = {
    ShapeField("\"user:{i}\""),
    KeysField(0),
    {.name = "start",
     .type = FieldType::kInteger,
     .doc = "number of the first key",
     .max = UINT64_MAX / 2,
     .default_json = "0",
     .example_json = "1000000"},
    {.name = "step",
     .type = FieldType::kInteger,
     .doc = "difference between consecutive key numbers",
     .min = 1,
     .max = 1u << 30,
     .default_json = "1",
     .example_json = "3"},
};

}  // namespace

extern const WorkloadSpec kSequentialWorkload{
    .name = "sequential",
    .doc = "numbered keys start + i*step in a shape: \"user:{i}\", \"k{i:08}\"",
    .unit = "key",
    .fields = kFields,
    .make = MakeWorkloadAs<Sequential>,
};

}  // namespace chsim::sim
