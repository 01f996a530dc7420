// SPDX-License-Identifier: Apache-2.0
// `zipf`: unit u is a request for rank r ~ Zipf(exponent, keys) drawn from
// (seed, u); its key is the shape rendered for number r - 1 with random parts
// seeded by (seed, r). Load counts requests. With "size", object r - 1 has
// ObjectSizes' size for that number.
#include "sim/base/rng.h"
#include "sim/workload/workload.h"
#include "sim/workload/zipf.h"

namespace chsim::sim {
namespace {

class Zipf final : public Workload {
 public:
  explicit Zipf(const FieldValues& f)
      : requests_(f.Integer("requests")),
        zipf_(f.Integer("keys"), f.Number("exponent")),
        shape_(KeyShape::Compile(f.String("shape"), "workload.shape")),
        sizes_(ObjectSizes::FromJson(f.Has("size") ? f.Value("size") : Json())) {}

  bool indexed() const noexcept override { return true; }
  uint64_t units() const noexcept override { return requests_; }
  void KeyAt(uint64_t seed, uint64_t u, std::string* out) const override {
    SplitMix64 rng(Derive(seed ^ 0x5a17f00dULL, u));
    const uint64_t rank = zipf_.Sample(rng);
    shape_.Render(rank - 1, Derive(seed, rank), out);
  }
  // Key j: number rank - 1, random parts from the stream of the rank.
  void KeysAt(uint64_t seed, uint64_t begin, size_t count, KeyBlock* block) const override {
    block->index.resize(count);
    block->stream.resize(count);
    for (size_t j = 0; j < count; ++j) {
      SplitMix64 rng(Derive(seed ^ 0x5a17f00dULL, begin + j));
      const uint64_t rank = zipf_.Sample(rng);
      block->index[j] = rank - 1;
      block->stream[j] = rank;
    }
    shape_.RenderBlock(block->index, seed, block->stream, block);
  }
  bool sized() const noexcept override { return sizes_.sized(); }
  void SizesAt(uint64_t seed, const KeyBlock& block, std::span<uint32_t> out) const override {
    sizes_.Fill(seed, block.index, out);
  }

 private:
  uint64_t requests_;
  ZipfSampler zipf_;
  KeyShape shape_;
  ObjectSizes sizes_;
};

constexpr FieldSpec kFields[] = {
    ShapeField("\"user:{i}\""),
    KeysField(1),
    {.name = "requests",
     .type = FieldType::kInteger,
     .doc = "how many requests to draw",
     .required = true,
     .min = 1,
     .max = kMaxKeys,
     .example_json = "1000000",
     .limit_doc = "requests are drawn in blocks, never stored: memory stays flat"},
    {.name = "exponent",
     .type = FieldType::kNumber,
     .doc = "Zipf exponent s: P(rank k) ~ 1/k^s",
     .required = true,
     .sweepable = true,
     .number_min = 0,
     .number_max = 20,
     .min_exclusive = true,
     .example_json = "0.99"},
    SizeField(),
};

}  // namespace

extern const WorkloadSpec kZipfWorkload{
    .name = "zipf",
    .doc = "requests drawn over keys with P(rank k) ~ 1/k^exponent; load counts requests; "
           "\"size\" gives objects sizes",
    .unit = "request",
    .fields = kFields,
    .make = MakeWorkloadAs<Zipf>,
};

}  // namespace chsim::sim
