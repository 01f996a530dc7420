// SPDX-License-Identifier: Apache-2.0
// Multi-buffer MD5 driver: pads and transposes up to L short keys into one
// block per lane, runs the kernel chosen at start-up, and sends keys of 56
// bytes or more to OpenSSL. See chsim/md5_batch.h.
#include <atomic>
#include <bit>
#include <cstring>

#include "chsim/md5.h"
#include "chsim/md5_batch.h"
#include "chsim/simd.h"
#include "md5_multibuffer_impl.h"
#include "md5_rows.h"

static_assert(std::endian::native == std::endian::little, "MD5 words are read little-endian");

namespace {
typedef uint32_t V4 __attribute__((vector_size(16)));
}  // namespace

// The portable kernel (baseline flags) and the scalar one-block MD5.
CHSIM_MD5_DEFINE_KERNELS(Portable, V4, 2, 4)
CHSIM_MD5_DEFINE_KERNELS(Scalar, uint32_t, 1, 1)

namespace chsim {
namespace md5mb {
#if defined(__x86_64__) || defined(__i386__)
#define CHSIM_MD5MB_X86 1
void Avx2_a(const uint32_t* rows, uint32_t* out) noexcept;
void Avx2_abcd(const uint32_t* rows, uint32_t* out) noexcept;
void Avx512_a(const uint32_t* rows, uint32_t* out) noexcept;
void Avx512_abcd(const uint32_t* rows, uint32_t* out) noexcept;
#endif
}  // namespace md5mb

namespace {

using KernelFn = void (*)(const uint32_t* rows, uint32_t* out) noexcept;

struct Kernel {
  const char* name;
  int lanes;
  KernelFn a;
  KernelFn abcd;
};

using md5mb::kMaxLanes;

const Kernel kPortable{"portable", 8, md5mb::Portable_a, md5mb::Portable_abcd};
#ifdef CHSIM_MD5MB_X86
const Kernel kAvx2{"avx2", 16, md5mb::Avx2_a, md5mb::Avx2_abcd};
const Kernel kAvx512{"avx512", 32, md5mb::Avx512_a, md5mb::Avx512_abcd};
#endif

bool Supported(const Kernel& k) {
#ifdef CHSIM_MD5MB_X86
  if (&k == &kAvx512) return CpuHasSimdLevel(SimdLevel::kAvx512);
  if (&k == &kAvx2) return CpuHasSimdLevel(SimdLevel::kAvx2);
#endif
  return &k == &kPortable;
}

// The widest kernel the CPU has, capped by CHSIM_SIMD (chsim/simd.h).
const Kernel* Best() {
#ifdef CHSIM_MD5MB_X86
  const SimdLevel max = MaxSimdLevel();
  if (max >= SimdLevel::kAvx512 && Supported(kAvx512)) return &kAvx512;
  if (max >= SimdLevel::kAvx2 && Supported(kAvx2)) return &kAvx2;
#endif
  return &kPortable;
}

std::atomic<const Kernel*> g_kernel{Best()};

// Copies len <= 64 bytes with at most two overlapping fixed-size moves (no
// call, no byte loop): [0, k) and [len - k, len) cover [0, len) when k <= len < 2k.
inline void CopyShort(uint8_t* dst, const char* src, size_t len) {
  if (len >= 16) {
    if (len >= 32) {
      std::memcpy(dst, src, 32);
      std::memcpy(dst + len - 32, src + len - 32, 32);
    } else {
      std::memcpy(dst, src, 16);
      std::memcpy(dst + len - 16, src + len - 16, 16);
    }
  } else if (len >= 8) {
    std::memcpy(dst, src, 8);
    std::memcpy(dst + len - 8, src + len - 8, 8);
  } else if (len >= 4) {
    std::memcpy(dst, src, 4);
    std::memcpy(dst + len - 4, src + len - 4, 4);
  } else {
    for (size_t i = 0; i < len; ++i) dst[i] = static_cast<uint8_t>(src[i]);
  }
}

// Writes the padded block of a key of len <= 55 as 16 words at `row`: key
// bytes, 0x80, zeros, the bit length as a little-endian uint64 (RFC 1321
// 3.1-3.2). Stores only, a handful of them; the kernel's vector loads of whole
// rows come later, after the other lanes' stores, so they do not stall on
// store-to-load forwarding (the old per-word scatter of a fresh stack block
// did: it cost more than the hashing).
inline void PutRow(const char* key, size_t len, uint32_t* row) {
  uint8_t* p = reinterpret_cast<uint8_t*>(row);
  std::memset(p, 0, 64);
  CopyShort(p, key, len);
  p[len] = 0x80;
  row[14] = static_cast<uint32_t>(len * 8);
}

// Runs the kernel over keys[0..n), n <= lanes; keys too long for one block
// are reported through `on_long(i)` and their lanes hash an empty block.
template <bool kFull, typename OnLong>
inline void RunChunk(const Kernel& k, const std::string_view* keys, size_t n, uint32_t* out,
                     OnLong&& on_long) {
  alignas(64) uint32_t rows[16 * kMaxLanes];
  const size_t lanes = static_cast<size_t>(k.lanes);
  for (size_t l = 0; l < lanes; ++l) {
    if (l < n && keys[l].size() <= kMd5OneBlockMaxLen) {
      PutRow(keys[l].data(), keys[l].size(), rows + 16 * l);
    } else {
      if (l < n) on_long(l);
      PutRow("", 0, rows + 16 * l);
    }
  }
  (kFull ? k.abcd : k.a)(rows, out);
}

}  // namespace

void Md5BatchLe32(std::span<const std::string_view> keys, std::span<uint32_t> out) noexcept {
  const Kernel& k = *g_kernel.load(std::memory_order_relaxed);
  alignas(64) uint32_t state[4 * kMaxLanes];
  const size_t lanes = static_cast<size_t>(k.lanes);
  for (size_t base = 0; base < keys.size(); base += lanes) {
    const size_t n = keys.size() - base < lanes ? keys.size() - base : lanes;
    uint32_t long_mask = 0;  // lanes must take OpenSSL
    RunChunk<false>(k, keys.data() + base, n, state, [&](size_t l) { long_mask |= 1u << l; });
    for (size_t l = 0; l < n; ++l) out[base + l] = state[l];
    while (long_mask != 0) {
      const size_t l = static_cast<size_t>(__builtin_ctz(long_mask));
      long_mask &= long_mask - 1;
      uint8_t d[16];
      Md5(keys[base + l].data(), keys[base + l].size(), d);
      out[base + l] = Md5Slice(d, 0);
    }
  }
}

void Md5BatchDigests(std::span<const std::string_view> keys,
                     std::span<std::array<uint8_t, 16>> digests) noexcept {
  const Kernel& k = *g_kernel.load(std::memory_order_relaxed);
  alignas(64) uint32_t state[4 * kMaxLanes];
  const size_t lanes = static_cast<size_t>(k.lanes);
  for (size_t base = 0; base < keys.size(); base += lanes) {
    const size_t n = keys.size() - base < lanes ? keys.size() - base : lanes;
    uint32_t long_mask = 0;
    RunChunk<true>(k, keys.data() + base, n, state, [&](size_t l) { long_mask |= 1u << l; });
    for (size_t l = 0; l < n; ++l) {
      for (int r = 0; r < 4; ++r) {
        std::memcpy(digests[base + l].data() + 4 * r, &state[r * lanes + l], 4);
      }
    }
    while (long_mask != 0) {
      const size_t l = static_cast<size_t>(__builtin_ctz(long_mask));
      long_mask &= long_mask - 1;
      Md5(keys[base + l].data(), keys[base + l].size(), digests[base + l].data());
    }
  }
}

uint32_t Md5Le32(const void* data, size_t len) noexcept {
  if (len > kMd5OneBlockMaxLen) {
    uint8_t d[16];
    Md5(data, len, d);
    return Md5Slice(d, 0);
  }
  alignas(16) uint32_t row[16];
  PutRow(static_cast<const char*>(data), len, row);
  uint32_t a;
  md5mb::Scalar_a(row, &a);
  return a;
}

md5mb::RowKernel md5mb::CurrentRowKernel() noexcept {
  const Kernel& k = *g_kernel.load(std::memory_order_relaxed);
  return {k.lanes, k.abcd};
}

const char* Md5BatchIsa() noexcept { return g_kernel.load(std::memory_order_relaxed)->name; }

bool SetMd5BatchIsa(std::string_view isa) noexcept {
  for (const Kernel* k : {
#ifdef CHSIM_MD5MB_X86
           &kAvx512, &kAvx2,
#endif
           &kPortable}) {
    if (isa == k->name && Supported(*k)) {
      g_kernel.store(k, std::memory_order_relaxed);
      return true;
    }
  }
  return false;
}

}  // namespace chsim
