// SPDX-License-Identifier: Apache-2.0
// `uniform`: unit u is key u, the shape rendered with random parts seeded by
// (seed, u). With "requests", unit u is instead a request for key number k
// drawn uniformly from [0, keys) by (seed, u), rendered as key k is. With
// "size", object k has ObjectSizes' size for that number.
#include "sim/base/rng.h"
#include "sim/workload/workload.h"

namespace chsim::sim {
namespace {

class Uniform final : public Workload {
 public:
  explicit Uniform(const FieldValues& f)
      : keys_(f.Integer("keys")),
        requests_(f.Has("requests") ? f.Integer("requests") : 0),
        shape_(KeyShape::Compile(f.String("shape"), "workload.shape")),
        sizes_(ObjectSizes::FromJson(f.Has("size") ? f.Value("size") : Json())) {}

  bool indexed() const noexcept override { return true; }
  uint64_t units() const noexcept override { return requests_ > 0 ? requests_ : keys_; }
  void KeyAt(uint64_t seed, uint64_t u, std::string* out) const override {
    const uint64_t k = Number(seed, u);
    shape_.Render(k, Derive(seed, k), out);
  }
  // Key j: its number, random parts from the stream of that number.
  void KeysAt(uint64_t seed, uint64_t begin, size_t count, KeyBlock* block) const override {
    block->index.resize(count);
    block->stream.resize(count);
    for (size_t j = 0; j < count; ++j) block->index[j] = block->stream[j] = Number(seed, begin + j);
    shape_.RenderBlock(block->index, seed, block->stream, block);
  }
  bool sized() const noexcept override { return sizes_.sized(); }
  void SizesAt(uint64_t seed, const KeyBlock& block, std::span<uint32_t> out) const override {
    sizes_.Fill(seed, block.index, out);
  }

 private:
  // The key number of unit u.
  uint64_t Number(uint64_t seed, uint64_t u) const noexcept {
    return requests_ > 0 ? Bounded(Derive(seed ^ 0x0a1f0e57ULL, u), keys_) : u;
  }

  uint64_t keys_, requests_;
  KeyShape shape_;
  ObjectSizes sizes_;
};

constexpr FieldSpec kFields[] = {
    ShapeField("\"user:{n}\""),
    KeysField(0),
    {.name = "requests",
     .type = FieldType::kInteger,
     .doc = "draw this many requests uniformly over the keys (a request stream) instead of each "
            "key once",
     .min = 1,
     .max = kMaxKeys,
     .example_json = "1000000"},
    SizeField(),
};

// Requests are drawn over the keys: there must be one.
void Check(const JsonReader& w, const Json& checked) {
  if (!checked.contains("requests")) return;
  for (const Json& k : checked["keys"]) {
    if (k == 0) w.At("keys").Fail("at least 1 key when \"requests\" draws over them");
  }
}

}  // namespace

extern const WorkloadSpec kUniformWorkload{
    .name = "uniform",
    .doc = "random keys of a shape: \"user:{n}\", \"{alnum:8-32}\", \"{bytes:16}\"; with "
           "\"requests\", that many requests drawn uniformly over the keys; \"size\" gives "
           "objects sizes",
    .unit = "key",
    .fields = kFields,
    .make = MakeWorkloadAs<Uniform>,
    .check = Check,
};

}  // namespace chsim::sim
