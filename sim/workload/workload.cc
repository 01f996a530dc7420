// The workload registry and what the workload types share.
#include "sim/workload/workload.h"

#include <stdexcept>

namespace chsim::sim {

extern const WorkloadSpec kUniformWorkload, kSequentialWorkload, kZipfWorkload, kFileWorkload;

namespace {

constexpr const WorkloadSpec* kWorkloads[] = {&kUniformWorkload, &kSequentialWorkload,
                                              &kZipfWorkload, &kFileWorkload};

}  // namespace

std::span<const WorkloadSpec* const> AllWorkloads() noexcept { return kWorkloads; }

const WorkloadSpec* FindWorkload(std::string_view name) noexcept {
  for (const WorkloadSpec* w : kWorkloads) {
    if (w->name == name) return w;
  }
  return nullptr;
}

std::shared_ptr<const Workload> MakeWorkload(std::string_view type, const Json& fields) {
  const WorkloadSpec* spec = FindWorkload(type);
  if (spec == nullptr)
    throw std::invalid_argument("unknown workload type '" + std::string(type) + "'");
  return spec->make(fields);
}

void Workload::KeyAt(uint64_t, uint64_t, std::string* out) const { out->clear(); }

void Workload::KeysAt(uint64_t seed, uint64_t begin, size_t count, KeyBlock* block) const {
  std::vector<uint64_t>& ends = block->index;  // scratch: each key's end in bytes
  ends.resize(count);
  block->bytes.clear();
  std::string key;
  for (size_t j = 0; j < count; ++j) {
    KeyAt(seed, begin + j, &key);
    block->bytes.insert(block->bytes.end(), key.begin(), key.end());
    ends[j] = block->bytes.size();
  }
  block->keys.resize(count);
  for (size_t j = 0, start = 0; j < count; start = ends[j++]) {
    block->keys[j] = std::string_view(block->bytes.data() + start, ends[j] - start);
  }
}

void Workload::ForEachLine(const std::function<bool(std::string_view, uint64_t)>&) const {}

SweepAxis ReadShapeAxis(const JsonReader& w, const char* default_shape) {
  SweepAxis a{"shape", {}, w.Has("shape") && w.At("shape").value().is_array()};
  if (!w.Has("shape")) {
    a.values.push_back(default_shape);
    return a;
  }
  for (std::string& v : w.At("shape").List([](const JsonReader& r) {
         std::string shape = r.String("a key shape such as \"user:{n}\"");
         KeyShape::Compile(shape, r.where());
         return shape;
       })) {
    a.values.push_back(std::move(v));
  }
  return a;
}

SweepAxis ReadKeysAxis(const JsonReader& w, uint64_t min) {
  w.Require("keys", "how many keys");
  SweepAxis a{"keys", {}, w.At("keys").value().is_array()};
  for (uint64_t k : w.At("keys").List([&](const JsonReader& r) { return r.Uint(min, kMaxKeys); })) {
    a.values.push_back(k);
  }
  return a;
}

}  // namespace chsim::sim
