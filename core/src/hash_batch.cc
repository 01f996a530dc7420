// SPDX-License-Identifier: Apache-2.0
// HashBatch (chsim/hasher.h): a hasher over a block of keys, the same values
// as key by key.
#include <algorithm>
#include <array>

#include "chsim/hasher.h"
#include "chsim/md5_batch.h"

// XXH3 inlined from the header of the same libxxhash (XXH_INLINE_ALL): for
// short keys the call into the shared library costs as much as the hash
// (docs/design.md#hashing-cost has the figures). Same function, same answers.
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace chsim {

void HashBatch(const Hasher& hasher, std::span<const std::string_view> keys,
               std::span<uint64_t> out) noexcept {
  constexpr size_t kStep = 256;  // scratch on the stack: 1 KiB (md5) / 4 KiB (md5_64)
  if (hasher.fn == &HashMd5) {
    std::array<uint32_t, kStep> h;
    for (size_t i = 0; i < keys.size(); i += kStep) {
      const size_t m = std::min(kStep, keys.size() - i);
      Md5BatchLe32(keys.subspan(i, m), h);
      for (size_t j = 0; j < m; ++j) out[i + j] = h[j];
    }
    return;
  }
  if (hasher.fn == &HashMd5_64) {
    std::array<std::array<uint8_t, 16>, kStep> d;
    for (size_t i = 0; i < keys.size(); i += kStep) {
      const size_t m = std::min(kStep, keys.size() - i);
      Md5BatchDigests(keys.subspan(i, m), d);
      for (size_t j = 0; j < m; ++j) {
        uint64_t v = 0;
        for (int b = 7; b >= 0; --b) v = v << 8 | d[j][b];  // bytes 0..7, little-endian
        out[i + j] = v;
      }
    }
    return;
  }
  if (hasher.fn == &HashXxh3) {
    for (size_t i = 0; i < keys.size(); ++i) out[i] = XXH3_64bits(keys[i].data(), keys[i].size());
    return;
  }
  const HashFn fn = hasher.fn;
  for (size_t i = 0; i < keys.size(); ++i) out[i] = fn(keys[i].data(), keys[i].size());
}

}  // namespace chsim
