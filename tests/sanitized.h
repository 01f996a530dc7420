// SPDX-License-Identifier: Apache-2.0
// kSanitized: whether this test binary is built with AddressSanitizer or
// ThreadSanitizer (the asan and tsan presets, CMakePresets.json). Tests use it
// to run a smaller twin of a long case there; each such case says why its size
// still finds what it is for. GCC says so with __SANITIZE_*__, clang with
// __has_feature.
#ifndef CHSIM_TESTS_SANITIZED_H_
#define CHSIM_TESTS_SANITIZED_H_

namespace chsim::testing {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif
#else
inline constexpr bool kSanitized = false;
#endif

}  // namespace chsim::testing

#endif  // CHSIM_TESTS_SANITIZED_H_
