// HashKeys: a key hasher applied to a block of keys at once, with the same
// answers as calling it key by key. MD5 hashers (md5, md5_64) go through the
// multi-buffer SIMD MD5 (chsim/md5_batch.h: 8-32 short keys per call, proven
// equal to OpenSSL's MD5 on every length), about 5-10x the throughput of one
// MD5() per key; every other hasher is called key by key (they are a few ns).
//
// Thread-safety: pure; any number of threads. Allocation-free.
#ifndef CHSIM_SIM_KEY_HASHING_H_
#define CHSIM_SIM_KEY_HASHING_H_

#include <cstdint>
#include <span>
#include <string_view>

#include "chsim/hasher.h"

namespace chsim::sim {

// out[i] = hasher(keys[i]). REQUIRES: out.size() >= keys.size().
void HashKeys(const Hasher& hasher, std::span<const std::string_view> keys,
              std::span<uint64_t> out) noexcept;

// The fastest one-key function equal to hasher.fn: for md5, chsim's one-block
// MD5 for keys under 56 bytes (md5_batch.h's Md5Le32, 15-25% faster than
// OpenSSL's MD5()); else hasher.fn itself.
HashFn FastestScalar(const Hasher& hasher) noexcept;

}  // namespace chsim::sim

#endif  // CHSIM_SIM_KEY_HASHING_H_
