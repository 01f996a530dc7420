// SPDX-License-Identifier: Apache-2.0
// Internal to core: the multi-buffer MD5 kernel in use (md5_batch.h), for
// callers that write their one-block messages straight into its input rows
// instead of handing it keys (Ring::Build writes each point key into a row
// made from a per-node template). Layout as md5_multibuffer_impl.h: row l is
// lane l's padded block, 16 little-endian words (key bytes, 0x80, zeros, the
// bit length in word 14; word 15 is not read), rows 64-byte aligned and
// consecutive; out[r * lanes + l] is state word r (digest bytes 4r..4r+3 as a
// little-endian uint32) of lane l.
// Thread-safety: as md5_batch.h (the kernel may change only under SetMd5BatchIsa).
#ifndef CHSIM_CORE_SRC_MD5_ROWS_H_
#define CHSIM_CORE_SRC_MD5_ROWS_H_

#include <cstdint>

namespace chsim::md5mb {

inline constexpr int kMaxLanes = 32;

struct RowKernel {
  int lanes;  // 8, 16 or 32
  void (*abcd)(const uint32_t* rows, uint32_t* out) noexcept;
};

// The kernel Md5BatchDigests uses now.
RowKernel CurrentRowKernel() noexcept;

}  // namespace chsim::md5mb

#endif  // CHSIM_CORE_SRC_MD5_ROWS_H_
