// `uniform`: unit u is key u, the shape rendered with random parts seeded by
// (seed, u).
#include "sim/base/rng.h"
#include "sim/workload/workload.h"

namespace chsim::sim {
namespace {

class Uniform final : public Workload {
 public:
  explicit Uniform(const Json& f)
      : keys_(f["keys"].get<uint64_t>()),
        shape_(KeyShape::Compile(f["shape"].get<std::string>(), "workload.shape")) {}

  bool indexed() const noexcept override { return true; }
  uint64_t units() const noexcept override { return keys_; }
  void KeyAt(uint64_t seed, uint64_t u, std::string* out) const override {
    shape_.Render(u, Derive(seed, u), out);
  }
  // Key j: number begin + j, random parts from stream begin + j of the seed.
  void KeysAt(uint64_t seed, uint64_t begin, size_t count, KeyBlock* block) const override {
    block->index.resize(count);
    block->stream.resize(count);
    for (size_t j = 0; j < count; ++j) block->index[j] = block->stream[j] = begin + j;
    shape_.RenderBlock(block->index, seed, block->stream, block);
  }

 private:
  uint64_t keys_;
  KeyShape shape_;
};

constexpr FieldSpec kFields[] = {ShapeField("\"user:{n}\""), KeysField(0)};

}  // namespace

extern const WorkloadSpec kUniformWorkload{
    .name = "uniform",
    .doc = "random keys of a shape: \"user:{n}\", \"{alnum:8-32}\", \"{bytes:16}\"",
    .unit = "key",
    .fields = kFields,
    .make = MakeWorkloadAs<Uniform>,
};

}  // namespace chsim::sim
