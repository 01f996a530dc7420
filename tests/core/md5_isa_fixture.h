// SPDX-License-Identifier: Apache-2.0
// A test fixture run once per multi-buffer MD5 kernel ("avx512", "avx2",
// "portable"): forces the parameter's kernel (skipping the test where the CPU
// lacks it) and restores the default afterwards.
#ifndef CHSIM_TESTS_CORE_MD5_ISA_FIXTURE_H_
#define CHSIM_TESTS_CORE_MD5_ISA_FIXTURE_H_

#include <gtest/gtest.h>

#include <string>

#include "chsim/md5_batch.h"

namespace chsim {

class Md5IsaTest : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    saved_ = Md5BatchIsa();
    if (!SetMd5BatchIsa(GetParam())) GTEST_SKIP() << GetParam() << " not supported by this CPU";
  }
  void TearDown() override { ASSERT_TRUE(SetMd5BatchIsa(saved_)); }
  std::string saved_;
};

}  // namespace chsim

#endif  // CHSIM_TESTS_CORE_MD5_ISA_FIXTURE_H_
