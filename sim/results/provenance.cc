// SPDX-License-Identifier: Apache-2.0
#include "sim/results/provenance.h"

#include <openssl/crypto.h>
#include <sys/utsname.h>
#include <xxhash.h>
#include <zlib.h>

#include <Eigen/Core>
#include <ctime>
#include <fstream>

#include "chsim_build_info.h"
#include "chsim_configure_info.h"

namespace chsim::sim {
namespace {

std::string CpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      size_t colon = line.find(':');
      if (colon != std::string::npos) return line.substr(colon + 2);
    }
  }
  return "unknown";
}

}  // namespace

std::string UtcNow() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string ToolVersion() {
  std::string v = CHSIM_VERSION;
  std::string sha = CHSIM_GIT_SHA;
  if (sha != "unknown") {
    v += '+';
    v.append(sha, 0, 12);
  }
  if (std::string(CHSIM_GIT_DIRTY) == "true") v += "-dirty";
  return v;
}

Json MakeProvenance(const RunInfo& run) {
  Json p = Json::object();
  p["tool"] = "chsim";
  p["tool_version"] = ToolVersion();
  p["git_sha"] = CHSIM_GIT_SHA;
  p["git_dirty"] = std::string(CHSIM_GIT_DIRTY) == "true"    ? Json(true)
                   : std::string(CHSIM_GIT_DIRTY) == "false" ? Json(false)
                                                             : Json(nullptr);
  p["compiler"] = CHSIM_CXX_COMPILER;
  p["compiler_flags"] = CHSIM_CXX_FLAGS;
  p["build_type"] = CHSIM_BUILD_TYPE;
  p["libraries"] = {
      {"openssl", OpenSSL_version(OPENSSL_VERSION)},
      {"xxhash", std::to_string(XXH_versionNumber() / 10000) + "." +
                     std::to_string(XXH_versionNumber() / 100 % 100) + "." +
                     std::to_string(XXH_versionNumber() % 100)},
      {"zlib", zlibVersion()},
      {"nlohmann_json", std::to_string(NLOHMANN_JSON_VERSION_MAJOR) + "." +
                            std::to_string(NLOHMANN_JSON_VERSION_MINOR) + "." +
                            std::to_string(NLOHMANN_JSON_VERSION_PATCH)},
      {"eigen", std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) +
                    "." + std::to_string(EIGEN_MINOR_VERSION)},
  };
  utsname u{};
  if (uname(&u) == 0) {
    p["kernel"] = std::string(u.sysname) + " " + u.release;
    p["machine"] = u.machine;
  } else {
    p["kernel"] = "unknown";
    p["machine"] = "unknown";
  }
  p["cpu"] = CpuModel();
  p["started_utc"] = run.started_utc;
  p["finished_utc"] = run.finished_utc;
  p["wall_seconds"] = run.wall_seconds;
  p["threads"] = run.threads;
  p["seed"] = std::to_string(run.seed);
  p["command"] = run.command;
  return p;
}

}  // namespace chsim::sim
