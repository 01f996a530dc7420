// SPDX-License-Identifier: Apache-2.0
// The workload registry and what the workload types share.
#include "sim/workload/workload.h"

#include <algorithm>
#include <stdexcept>

#include "sim/base/errors.h"
#include "sim/base/text_file.h"

namespace chsim::sim {

extern const WorkloadSpec kUniformWorkload, kSequentialWorkload, kZipfWorkload, kFileWorkload,
    kTraceWorkload;

namespace {

constexpr const WorkloadSpec* kWorkloads[] = {&kUniformWorkload, &kSequentialWorkload,
                                              &kZipfWorkload, &kFileWorkload, &kTraceWorkload};

}  // namespace

std::span<const WorkloadSpec* const> AllWorkloads() noexcept { return kWorkloads; }

const WorkloadSpec* FindWorkload(std::string_view name) noexcept {
  for (const WorkloadSpec* w : kWorkloads) {
    if (w->name == name) return w;
  }
  return nullptr;
}

std::span<const ObjectSpec* const> WorkloadVariants() noexcept {
  // One object for the life of the process: the specs and the pointers the variant field reads.
  struct Variants {
    std::vector<ObjectSpec> objects;
    std::vector<const ObjectSpec*> pointers;
  };
  static const Variants* variants = [] {
    auto* v = new Variants;
    v->objects.reserve(std::size(kWorkloads));
    for (const WorkloadSpec* w : kWorkloads) {
      v->objects.push_back(
          ObjectSpec{.name = {}, .doc = w->doc, .fields = w->fields, .tag_value = w->name});
    }
    for (const ObjectSpec& o : v->objects) v->pointers.push_back(&o);
    return v;
  }();
  return variants->pointers;
}

WorkloadFields ReadWorkloadFields(const JsonReader& w, const WorkloadSpec** spec) {
  static constexpr FieldSpec kWorkloadField{
      .name = "workload", .type = FieldType::kVariant, .tag = "type", .variants = WorkloadVariants};
  const Json checked = ReadField(w, kWorkloadField);
  *spec = FindWorkload(checked["type"].get<std::string>());
  CheckWorkload(**spec, w, checked);
  return SplitWorkloadFields(**spec, checked, w.value());
}

WorkloadFields ReadWorkloadAs(const WorkloadSpec& spec, const JsonReader& w) {
  if (!w.value().is_object()) w.Fail("an object with a \"type\"");
  w.Require("type", std::string(spec.name));
  w.At("type").Enum({std::string(spec.name)});
  const ObjectSpec object{.doc = spec.doc, .fields = spec.fields, .tag_value = spec.name};
  const Json checked = ReadObject(w, object, "type");
  CheckWorkload(spec, w, checked);
  return SplitWorkloadFields(spec, checked, w.value());
}

namespace {

// A sweepable row's values, or a row's one value.
std::vector<Json> ValuesOf(const Json& v) {
  return v.is_array() ? std::vector<Json>(v.begin(), v.end()) : std::vector<Json>{v};
}

bool HasRow(const WorkloadSpec& spec, std::string_view name) {
  return std::any_of(spec.fields.begin(), spec.fields.end(),
                     [name](const FieldSpec& f) { return f.name == name; });
}

// Key numbers [0, keys) render into the shape: it must have as many keys.
void CheckShapeCoversKeys(const WorkloadSpec& spec, const JsonReader& w, const Json& checked) {
  if (!HasRow(spec, "shape") || !HasRow(spec, "keys") || !checked.contains("shape") ||
      !checked.contains("keys")) {
    return;
  }
  const JsonReader at = w.Has("shape") ? w.At("shape") : w;
  for (const Json& shape : ValuesOf(checked["shape"])) {
    const std::string text = shape.get<std::string>();
    const uint64_t distinct = KeyShape::Compile(text, at.where()).max_distinct();
    for (const Json& keys : ValuesOf(checked["keys"])) {
      if (distinct >= keys.get<uint64_t>()) continue;
      at.FailMessage("found " + Quote(text) + ", which renders at most " +
                     std::to_string(distinct) + " distinct keys, for " +
                     std::to_string(keys.get<uint64_t>()) +
                     " keys; accepted: a shape with at least as many distinct keys as \"keys\" "
                     "(add {i}, or longer random parts)");
    }
  }
}

}  // namespace

void CheckWorkload(const WorkloadSpec& spec, const JsonReader& w, const Json& checked) {
  CheckShapeCoversKeys(spec, w, checked);
  if (spec.check) spec.check(w, checked);
}

WorkloadFields SplitWorkloadFields(const WorkloadSpec& spec, const Json& checked,
                                   const Json& given) {
  WorkloadFields out;
  for (const FieldSpec& f : spec.fields) {
    const std::string key(f.name);
    if (!checked.contains(key)) continue;
    if (!f.sweepable) {
      out.fixed[key] = checked[key];
      continue;
    }
    SweepAxis axis{key, {}, given.contains(key) && given[key].is_array()};
    for (const Json& v : checked[key]) axis.values.push_back(v);
    out.axes.push_back(std::move(axis));
  }
  return out;
}

std::shared_ptr<const Workload> MakeWorkload(std::string_view type, const Json& fields) {
  const WorkloadSpec* spec = FindWorkload(type);
  if (spec == nullptr)
    throw std::invalid_argument("unknown workload type '" + std::string(type) + "'");
  Json given = fields;
  given["type"] = type;
  const std::string where = "workload";
  WorkloadFields f = ReadWorkloadFields(JsonReader(where, &given, ""), &spec);
  for (const SweepAxis& axis : f.axes) f.fixed[axis.key] = axis.values.front();
  return BuildWorkload(*spec, f.fixed, JsonReader(where, &given, "").where());
}

std::shared_ptr<const Workload> BuildWorkload(const WorkloadSpec& spec, const Json& fields,
                                              const std::string& where) {
  const std::string owner = "workload \"" + std::string(spec.name) + "\"";
  try {
    return spec.make(FieldValues(owner, spec.fields, fields));
  } catch (const FieldError& e) {
    throw UsageError(where + ": " + e.what() + " (a defect of the workload; giving \"" + e.field() +
                     "\" avoids it)");
  } catch (const Json::exception& e) {
    throw UsageError(where + ": " + owner + " cannot be made from these fields: " + e.what());
  }
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

void Workload::SizesAt(uint64_t, const KeyBlock&, std::span<uint32_t> out) const {
  std::fill(out.begin(), out.end(), 0u);
}

namespace {

// An indexed workload's units as reads, a block of KeysAt at a time.
class IndexedRequests final : public RequestReader {
 public:
  IndexedRequests(const Workload& w, uint64_t seed) : w_(w), seed_(seed) {}
  void Next(size_t max, RequestBlock* block) override {
    const size_t m = static_cast<size_t>(std::min<uint64_t>(max, w_.units() - next_));
    w_.KeysAt(seed_, next_, m, &block->keys);
    block->keys.keys.resize(m);
    block->sizes.resize(m);
    if (w_.sized()) {
      w_.SizesAt(seed_, block->keys, block->sizes);
    } else {
      std::fill(block->sizes.begin(), block->sizes.end(), 0u);
    }
    block->ops.assign(m, RequestOp::kRead);
    next_ += m;
  }

 private:
  const Workload& w_;
  uint64_t seed_, next_ = 0;
};

}  // namespace

std::unique_ptr<RequestReader> Workload::OpenRequests(uint64_t seed) const {
  if (!indexed()) throw std::logic_error("OpenRequests: a streamed workload must override it");
  return std::make_unique<IndexedRequests>(*this, seed);
}

void CheckKeyShape(const JsonReader& value, Json*) {
  KeyShape::Compile(value.value().get<std::string>(), value.where());
}

}  // namespace chsim::sim
