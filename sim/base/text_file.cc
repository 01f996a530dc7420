// SPDX-License-Identifier: Apache-2.0
#include "sim/base/text_file.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

#include "sim/base/errors.h"

namespace chsim::sim {

std::string ReadFileOrStdin(const std::string& path, size_t max_bytes) {
  FILE* f = path == "-" ? stdin : std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    throw UsageError(path + ": cannot open: " + std::strerror(errno));
  }
  std::unique_ptr<FILE, int (*)(FILE*)> closer(f == stdin ? nullptr : f, &std::fclose);
  // A regular file over the limit is refused from its size, before any byte
  // is read; pipes and devices are counted as they stream.
  struct stat st;
  if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) &&
      static_cast<uint64_t>(st.st_size) > max_bytes) {
    throw UsageError(path + ": larger than the " + std::to_string(max_bytes) + "-byte limit");
  }
  std::string data;
  char buf[1 << 16];
  size_t got;
  while ((got = std::fread(buf, 1, sizeof buf, f)) > 0) {
    if (data.size() + got > max_bytes) {
      throw UsageError(path + ": larger than the " + std::to_string(max_bytes) + "-byte limit");
    }
    data.append(buf, got);
  }
  if (std::ferror(f)) throw UsageError(path + ": read error: " + std::strerror(errno));
  return data;
}

std::string Quote(std::string_view value) {
  std::string out = "'";
  size_t shown = 0;
  for (unsigned char c : value) {
    if (shown++ == 60) {
      out += "...";
      break;
    }
    if (c >= 0x20 && c < 0x7f && c != '\'' && c != '\\') {
      out += static_cast<char>(c);
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    }
  }
  return out + "'";
}

std::string ResolveBeside(const std::string& anchor, const std::string& path) {
  std::filesystem::path p(path);
  if (p.is_absolute()) return path;
  std::filesystem::path base = std::filesystem::path(anchor).parent_path();
  return (base / p).lexically_normal().string();
}

}  // namespace chsim::sim
