// SPDX-License-Identifier: Apache-2.0
// Request streams: a workload read in order as requests, each a key with a
// size in bytes and an operation, a block at a time. The cache replay
// (replay.h) reads every workload this way; trace files (trace.h) are only
// this.
//
// Operations: a read goes through the node's cache (a miss inserts the
// object); a write or a delete drops the object from the cache of the node
// the key maps to (look-aside invalidation, as in Nishtala et al., "Scaling
// Memcache at Facebook", NSDI 2013, section 3.1; docs/cache.md).
//
// Object sizes of generated workloads (ObjectSizes): each object has one size,
// a pure function of (trial seed, object number), drawn from a fixed value, a
// uniform range or a log-normal distribution.
//
// Thread-safety: a RequestReader is used by one thread; ObjectSizes is an
// immutable value.
#ifndef CHSIM_SIM_WORKLOAD_REQUESTS_H_
#define CHSIM_SIM_WORKLOAD_REQUESTS_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "chsim/hasher.h"
#include "sim/base/fields.h"
#include "sim/base/json_reader.h"
#include "sim/cache/policy.h"
#include "sim/workload/key_shape.h"

namespace chsim::sim {

// The identity of the object a key names: XXH3-64 of the key bytes, whatever
// hasher maps the key to a node. Two keys share a cache entry only if their
// ids collide (probability about m^2 / 2^65 over m distinct keys).
inline uint64_t ObjectId(std::string_view key) noexcept { return HashXxh3(key.data(), key.size()); }

// Consecutive requests: keys.keys[i], sizes[i] (0 when the stream has no
// sizes), ops[i]. ids: ObjectId(keys.keys[i]) when the reader makes them on
// the way (a reader that renders its keys from integers), else empty.
// keys_wanted, set by the consumer: false when it reads the keys only to
// make ids, so that a reader that makes ids may leave keys.keys empty.
// raw_ids_wanted, set by the consumer with keys_wanted false: a reader whose
// keys are the decimal text of integer ids (oracleGeneral) may then give the
// integers themselves as ids and set ids_raw: one id per object as
// ObjectId's, without its collisions; the consumer derives ObjectId where it
// needs one (DecimalKeyObjectIds, sim/workload/trace.h).
struct RequestBlock {
  KeyBlock keys;
  std::vector<uint32_t> sizes;
  std::vector<RequestOp> ops;
  std::vector<uint64_t> ids;
  bool keys_wanted = true;
  bool raw_ids_wanted = false;
  bool ids_raw = false;  // set by the reader
  size_t size() const noexcept { return ops.size(); }
};

class RequestReader {
 public:
  virtual ~RequestReader() = default;
  // Replaces *block with the next requests, at least one and at most `max`;
  // leaves it empty at the end of the stream. Throws RuntimeError "FILE:LINE:
  // ..." (or "FILE: record N: ...") for input it cannot read.
  virtual void Next(size_t max, RequestBlock* block) = 0;
  // Counts the requests left and the reads among them, as reading them
  // with Next would (with its errors), and leaves the stream at its end.
  // Default: Next block by block; a reader that can count without making
  // keys overrides it.
  virtual void CountRest(uint64_t* requests, uint64_t* reads);
};

// The "size" field's forms, as rows (sim/base/fields.h): a number of bytes,
// {"distribution": "uniform", "min", "max"} or {"distribution": "lognormal",
// "mu", "sigma", "min", "max"}. CheckSizeRange refuses max < min.
void CheckSizeRange(const JsonReader& value, Json* checked);
inline constexpr char kObjectSizeAccepted[] =
    "a size in bytes 1..4294967295, {\"distribution\": \"uniform\", \"min\": A, \"max\": B} or "
    "{\"distribution\": \"lognormal\", \"mu\": M, \"sigma\": S, \"min\": A, \"max\": B} (min and "
    "max optional)";
inline constexpr std::string_view kUniformName[] = {"uniform"};
inline constexpr std::string_view kLogNormalName[] = {"lognormal"};
inline constexpr FieldSpec kUniformSizeFields[] = {
    {.name = "distribution", .type = FieldType::kEnum, .required = true, .choices = kUniformName},
    {.name = "min",
     .type = FieldType::kInteger,
     .doc = "the smallest size in bytes",
     .required = true,
     .min = 1,
     .max = UINT32_MAX},
    {.name = "max",
     .type = FieldType::kInteger,
     .doc = "the largest size in bytes",
     .required = true,
     .min = 1,
     .max = UINT32_MAX},
};
inline constexpr ObjectSpec kUniformSize{
    .name = "size_uniform", .doc = "sizes uniform in min..max bytes", .fields = kUniformSizeFields};
inline constexpr FieldSpec kLogNormalSizeFields[] = {
    {.name = "distribution", .type = FieldType::kEnum, .required = true, .choices = kLogNormalName},
    {.name = "mu",
     .type = FieldType::kNumber,
     .doc = "the mean of the size's natural logarithm (ln bytes)",
     .required = true,
     .number_min = -20,
     .number_max = 22},
    {.name = "sigma",
     .type = FieldType::kNumber,
     .doc = "the standard deviation of the size's logarithm",
     .required = true,
     .number_min = 0,
     .number_max = 10},
    {.name = "min",
     .type = FieldType::kInteger,
     .doc = "sizes below are raised to it",
     .min = 1,
     .max = UINT32_MAX,
     .default_json = "1"},
    {.name = "max",
     .type = FieldType::kInteger,
     .doc = "sizes above are cut to it",
     .min = 1,
     .max = UINT32_MAX,
     .default_json = "4294967295"},
};
inline constexpr ObjectSpec kLogNormalSize{
    .name = "size_lognormal",
    .doc = "sizes exp(mu + sigma z), z standard normal, rounded and clamped to min..max",
    .fields = kLogNormalSizeFields};
inline constexpr FieldSpec kObjectSizeForms[] = {
    {.type = FieldType::kInteger, .min = 1, .max = UINT32_MAX, .accepted = kObjectSizeAccepted},
    {.type = FieldType::kObject, .object = &kLogNormalSize, .check = CheckSizeRange},
    {.type = FieldType::kObject, .object = &kUniformSize, .check = CheckSizeRange},
};

// Sizes of the objects of a generated workload (the "size" field).
class ObjectSizes {
 public:
  enum class Kind { kNone, kFixed, kUniform, kLogNormal };

  ObjectSizes() = default;
  // From the "size" field as its rows checked it; kNone for null (absent).
  static ObjectSizes FromJson(const Json& j);

  bool sized() const noexcept { return kind_ != Kind::kNone; }
  // The size of object `object` in the trial with key seed `seed`, in
  // [min, max]; a log-normal draw is exp(mu + sigma z) rounded, z a standard
  // normal from two uniforms (Box-Muller).
  uint32_t At(uint64_t seed, uint64_t object) const noexcept;
  // Fills out[j] = At(seed, objects[j]).
  void Fill(uint64_t seed, std::span<const uint64_t> objects, std::span<uint32_t> out) const;

 private:
  Kind kind_ = Kind::kNone;
  uint32_t min_ = 1, max_ = 1;
  double mu_ = 0, sigma_ = 0;
};

}  // namespace chsim::sim

#endif  // CHSIM_SIM_WORKLOAD_REQUESTS_H_
