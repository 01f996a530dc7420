// SPDX-License-Identifier: Apache-2.0
// The generic multi-buffer MD5 kernel (core/src/md5_multibuffer_impl.h) in
// every lane shape it is instantiated with, built here with the baseline ISA
// flags: GCC lowers the wide vectors to what this CPU has, so the 16-lane
// shape of the AVX-512 kernel (its 16 x 16 in-register transpose, its step
// order) is proven equal to OpenSSL's MD5 even on a machine without AVX-512,
// where md5_batch_test.cc must skip the real avx512 kernel.
// The wide vectors never cross an ABI boundary (internal linkage, inlined),
// so GCC's note that passing them without AVX changes the ABI does not apply.
#pragma GCC diagnostic ignored "-Wpsabi"

#include <gtest/gtest.h>

#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/md5.h>

#include <array>
#include <cstring>
#include <string>

#include "../../core/src/md5_multibuffer_impl.h"
#include "sim/base/rng.h"

namespace {
typedef uint32_t G4 __attribute__((vector_size(16)));
typedef uint32_t G8 __attribute__((vector_size(32)));
typedef uint32_t G16 __attribute__((vector_size(64)));
}  // namespace

CHSIM_MD5_DEFINE_KERNELS_FORMS(TestW16K2, G16, 2, 16, true)  // the AVX-512 shape and G
CHSIM_MD5_DEFINE_KERNELS_FORMS(TestW16K2Add, G16, 2, 16, false)
CHSIM_MD5_DEFINE_KERNELS(TestW8K2, G8, 2, 8)  // the AVX2 shape
CHSIM_MD5_DEFINE_KERNELS(TestW4K2, G4, 2, 4)  // the portable shape
CHSIM_MD5_DEFINE_KERNELS(TestW4K3, G4, 3, 4)  // an odd group count
CHSIM_MD5_DEFINE_KERNELS(TestW1K1, uint32_t, 1, 1)

namespace chsim {
namespace {

using KernelFn = void (*)(const uint32_t* rows, uint32_t* out) noexcept;

struct Shape {
  const char* name;
  int lanes;
  KernelFn a;
  KernelFn abcd;
};

void PrintTo(const Shape& shape, std::ostream* os) { *os << shape.name; }

class Md5LanesTest : public ::testing::TestWithParam<Shape> {};

// RFC 1321 3.1-3.2 padding of a one-block message, written independently of
// md5_multibuffer.cc's packer: bytes, 0x80, zeros, bit length (LE uint64).
void Pad(const std::string& key, uint32_t* row) {
  uint8_t block[64] = {};
  std::memcpy(block, key.data(), key.size());
  block[key.size()] = 0x80;
  const uint64_t bits = uint64_t{key.size()} * 8;
  std::memcpy(block + 56, &bits, 8);
  std::memcpy(row, block, 64);
}

TEST_P(Md5LanesTest, EqualsOpenSslOnRandomOneBlockMessages) {
  const Shape& shape = GetParam();
  const int lanes = shape.lanes;
  sim::SplitMix64 rng(7);
  alignas(64) uint32_t rows[16 * 48];
  alignas(64) uint32_t out_a[4 * 48];
  alignas(64) uint32_t out_abcd[4 * 48];
  std::string keys[48];
  for (int round = 0; round < 3000; ++round) {
    for (int l = 0; l < lanes; ++l) {
      // Every length 0..55 in turn across lanes and rounds, random bytes.
      keys[l].assign((round * lanes + l) % 56, '\0');
      for (char& c : keys[l]) c = static_cast<char>(rng.Next());
      Pad(keys[l], rows + 16 * l);
    }
    shape.a(rows, out_a);
    shape.abcd(rows, out_abcd);
    for (int l = 0; l < lanes; ++l) {
      uint8_t want[16];
      MD5(reinterpret_cast<const unsigned char*>(keys[l].data()), keys[l].size(), want);
      uint8_t got[16];
      for (int r = 0; r < 4; ++r) std::memcpy(got + 4 * r, &out_abcd[r * lanes + l], 4);
      ASSERT_EQ(0, std::memcmp(got, want, 16))
          << shape.name << " lane " << l << " length " << keys[l].size();
      uint32_t a0;
      std::memcpy(&a0, want, 4);
      ASSERT_EQ(out_a[l], a0) << shape.name << " lane " << l;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, Md5LanesTest,
    ::testing::Values(Shape{"w16k2", 32, md5mb::TestW16K2_a, md5mb::TestW16K2_abcd},
                      Shape{"w16k2_add_g", 32, md5mb::TestW16K2Add_a, md5mb::TestW16K2Add_abcd},
                      Shape{"w8k2", 16, md5mb::TestW8K2_a, md5mb::TestW8K2_abcd},
                      Shape{"w4k2", 8, md5mb::TestW4K2_a, md5mb::TestW4K2_abcd},
                      Shape{"w4k3", 12, md5mb::TestW4K3_a, md5mb::TestW4K3_abcd},
                      Shape{"w1k1", 1, md5mb::TestW1K1_a, md5mb::TestW1K1_abcd}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace chsim
