// SPDX-License-Identifier: Apache-2.0
// ObjectSizes: the "size" field of generated workloads.
#include <algorithm>
#include <cmath>
#include <numbers>

#include "sim/workload/requests.h"
#include "sim/base/rng.h"

namespace chsim::sim {
namespace {

constexpr uint64_t kSizeStream = 0x51e5c0de0b1ec7ULL;  // keeps sizes apart from key streams

}  // namespace

void CheckSizeRange(const JsonReader& value, Json* checked) {
  if ((*checked)["max"].get<uint64_t>() < (*checked)["min"].get<uint64_t>()) {
    value.At("max").Fail("a size >= min (" + (*checked)["min"].dump() + ")");
  }
}

ObjectSizes ObjectSizes::FromJson(const Json& j) {
  ObjectSizes s;
  if (j.is_null()) return s;
  if (j.is_number()) {
    s.kind_ = Kind::kFixed;
    s.min_ = s.max_ = j.get<uint32_t>();
    return s;
  }
  const bool uniform = j["distribution"] == "uniform";
  s.kind_ = uniform ? Kind::kUniform : Kind::kLogNormal;
  s.min_ = j["min"].get<uint32_t>();
  s.max_ = j["max"].get<uint32_t>();
  if (!uniform) {
    s.mu_ = j["mu"].get<double>();
    s.sigma_ = j["sigma"].get<double>();
  }
  return s;
}

uint32_t ObjectSizes::At(uint64_t seed, uint64_t object) const noexcept {
  switch (kind_) {
    case Kind::kNone:
      return 0;
    case Kind::kFixed:
      return min_;
    case Kind::kUniform:
      return min_ + static_cast<uint32_t>(
                        Bounded(Derive(seed ^ kSizeStream, object), uint64_t{max_} - min_ + 1));
    case Kind::kLogNormal:
      break;
  }
  SplitMix64 rng(Derive(seed ^ kSizeStream, object));
  const double u1 = Unit(rng.Next()), u2 = Unit(rng.Next());
  const double z = std::sqrt(-2 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2);
  const double v = std::round(std::exp(mu_ + sigma_ * z));
  return static_cast<uint32_t>(std::clamp(v, static_cast<double>(min_), static_cast<double>(max_)));
}

void ObjectSizes::Fill(uint64_t seed, std::span<const uint64_t> objects,
                       std::span<uint32_t> out) const {
  for (size_t j = 0; j < objects.size(); ++j) out[j] = At(seed, objects[j]);
}

}  // namespace chsim::sim
