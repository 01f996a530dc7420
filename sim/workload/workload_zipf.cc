// `zipf`: unit u is a request for rank r ~ Zipf(exponent, keys) drawn from
// (seed, u); its key is the shape rendered for number r - 1 with random parts
// seeded by (seed, r). Load counts requests.
#include "sim/base/rng.h"
#include "sim/workload/workload.h"
#include "sim/workload/zipf.h"

namespace chsim::sim {
namespace {

class Zipf final : public Workload {
 public:
  explicit Zipf(const Json& f)
      : requests_(f["requests"].get<uint64_t>()),
        zipf_(f["keys"].get<uint64_t>(), f["exponent"].get<double>()),
        shape_(KeyShape::Compile(f["shape"].get<std::string>(), "workload.shape")) {}

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

 private:
  uint64_t requests_;
  ZipfSampler zipf_;
  KeyShape shape_;
};

WorkloadFields Read(const JsonReader& w, const std::string&) {
  w.Object({"type", "keys", "requests", "exponent", "shape"});
  WorkloadFields f;
  f.axes.push_back(ReadShapeAxis(w, "user:{i}"));
  f.axes.push_back(ReadKeysAxis(w, 1));
  w.Require("requests", "how many requests to draw");
  f.fixed["requests"] = w.At("requests").Uint(1, kMaxKeys);
  w.Require("exponent", "Zipf exponent s > 0");
  SweepAxis exponent{"exponent", {}, w.At("exponent").value().is_array()};
  for (double e : w.At("exponent").List([](const JsonReader& r) {
         return r.Number(0.0, 20.0, true, "a number > 0 and <= 20");
       })) {
    exponent.values.push_back(e);
  }
  f.axes.push_back(std::move(exponent));
  return f;
}

}  // namespace

extern const WorkloadSpec kZipfWorkload{
    .name = "zipf",
    .doc = "requests drawn over keys with P(rank k) ~ 1/k^exponent; load counts requests",
    .schema = R"({"type": "object", "additionalProperties": false,
 "required": ["type", "keys", "requests", "exponent"],
 "properties": {"type": {"const": "zipf"}, "keys": {"$ref": "#/definitions/sweep_keys1"},
  "requests": {"type": "integer", "minimum": 1, "maximum": 1000000000000},
  "exponent": {"oneOf": [{"$ref": "#/definitions/exponent"},
   {"type": "array", "minItems": 1, "items": {"$ref": "#/definitions/exponent"}}]},
  "shape": {"$ref": "#/definitions/sweep_string"}}})",
    .read = Read,
    .make = [](const Json& f) -> std::shared_ptr<const Workload> {
      return std::make_shared<Zipf>(f);
    },
};

}  // namespace chsim::sim
