// SPDX-License-Identifier: Apache-2.0
#include "sim/base/errors.h"
#include "sim/scenario/server_config_internal.h"

namespace chsim::sim::internal {

ServerSource ReadEnvoy(std::string_view, const std::string& path, const std::string&) {
  throw UsageError(path + ": Envoy clusters are not read yet");
}

}  // namespace chsim::sim::internal
