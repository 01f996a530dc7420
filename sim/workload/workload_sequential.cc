// `sequential`: unit u is key number start + u * step rendered into the shape.
#include "sim/base/rng.h"
#include "sim/workload/workload.h"

namespace chsim::sim {
namespace {

class Sequential final : public Workload {
 public:
  explicit Sequential(const Json& f)
      : keys_(f["keys"].get<uint64_t>()),
        start_(f.value("start", uint64_t{0})),
        step_(f.value("step", uint64_t{1})),
        shape_(KeyShape::Compile(f["shape"].get<std::string>(), "workload.shape")) {}

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

WorkloadFields Read(const JsonReader& w, const std::string&) {
  w.Object({"type", "keys", "shape", "start", "step"});
  WorkloadFields f;
  f.axes.push_back(ReadShapeAxis(w, "user:{i}"));
  f.axes.push_back(ReadKeysAxis(w, 0));
  if (w.Has("start")) f.fixed["start"] = w.At("start").Uint(0, UINT64_MAX / 2);
  if (w.Has("step")) f.fixed["step"] = w.At("step").Uint(1, 1u << 30);
  return f;
}

}  // namespace

extern const WorkloadSpec kSequentialWorkload{
    .name = "sequential",
    .doc = "numbered keys start + i*step in a shape: \"user:{i}\", \"k{i:08}\"",
    .schema = R"({"type": "object", "additionalProperties": false, "required": ["type", "keys"],
 "properties": {"type": {"const": "sequential"}, "keys": {"$ref": "#/definitions/sweep_keys0"},
  "shape": {"$ref": "#/definitions/sweep_string"},
  "start": {"type": "integer", "minimum": 0, "maximum": 9223372036854775807},
  "step": {"type": "integer", "minimum": 1, "maximum": 1073741824}}})",
    .read = Read,
    .make = [](const Json& f) -> std::shared_ptr<const Workload> {
      return std::make_shared<Sequential>(f);
    },
};

}  // namespace chsim::sim
