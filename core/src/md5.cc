// SPDX-License-Identifier: Apache-2.0
#include "chsim/md5.h"

// MD5() is marked deprecated in OpenSSL 3 but remains its fastest MD5 entry
// point (no provider fetch per call); see docs/design.md#hashing-cost.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/md5.h>

namespace chsim {

void Md5(const void* data, size_t len, uint8_t digest[16]) noexcept {
  MD5(static_cast<const unsigned char*>(data), len, digest);
}

}  // namespace chsim
