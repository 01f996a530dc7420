#include "chsim/sim/workload.h"

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "chsim/sim/errors.h"
#include "chsim/sim/rng.h"

namespace chsim::sim {

Workload::Workload(const WorkloadConfig& config, uint64_t seed) : config_(config), seed_(seed) {
  if (config_.type != WorkloadConfig::Type::kFile) {
    shape_ = KeyShape::Compile(config_.shape, "workload.shape");
  }
  if (config_.type == WorkloadConfig::Type::kZipf) {
    zipf_.emplace(config_.keys, config_.exponent);
  }
}

uint64_t Workload::units() const noexcept {
  switch (config_.type) {
    case WorkloadConfig::Type::kZipf:
      return config_.requests;
    case WorkloadConfig::Type::kFile:
      return 0;
    default:
      return config_.keys;
  }
}

void Workload::KeyAt(uint64_t u, std::string* out) const {
  switch (config_.type) {
    case WorkloadConfig::Type::kUniform:
      shape_.Render(u, Derive(seed_, u), out);
      return;
    case WorkloadConfig::Type::kSequential: {
      uint64_t number = config_.start + u * config_.step;
      shape_.Render(number, Derive(seed_, number), out);
      return;
    }
    case WorkloadConfig::Type::kZipf: {
      SplitMix64 rng(Derive(seed_ ^ 0x5a17f00dULL, u));
      uint64_t rank = zipf_->Sample(rng);
      shape_.Render(rank - 1, Derive(seed_, rank), out);
      return;
    }
    case WorkloadConfig::Type::kFile:
      out->clear();
      return;
  }
}

void Workload::KeysAt(uint64_t begin, size_t count, KeyBlock* block) const {
  // Key j: number index[j], random parts from stream stream[j] of the seed
  // (KeyAt's Derive(seed_, .)).
  block->index.resize(count);
  block->stream.resize(count);
  uint64_t* index = block->index.data();
  uint64_t* stream = block->stream.data();
  switch (config_.type) {
    case WorkloadConfig::Type::kUniform:
      for (size_t j = 0; j < count; ++j) index[j] = stream[j] = begin + j;
      break;
    case WorkloadConfig::Type::kSequential:
      for (size_t j = 0; j < count; ++j) {
        index[j] = stream[j] = config_.start + (begin + j) * config_.step;
      }
      break;
    case WorkloadConfig::Type::kZipf:
      for (size_t j = 0; j < count; ++j) {
        SplitMix64 rng(Derive(seed_ ^ 0x5a17f00dULL, begin + j));
        uint64_t rank = zipf_->Sample(rng);
        index[j] = rank - 1;
        stream[j] = rank;
      }
      break;
    case WorkloadConfig::Type::kFile:  // not indexed: empty keys
      block->keys.assign(count, std::string_view());
      return;
  }
  shape_.RenderBlock(block->index, seed_, block->stream, block);
}

void Workload::ForEachLine(const std::function<bool(std::string_view, uint64_t)>& f) const {
  FILE* in = std::fopen(config_.path.c_str(), "rb");
  if (in == nullptr) {
    throw UsageError(config_.path + ": cannot open: " + std::strerror(errno));
  }
  std::unique_ptr<FILE, int (*)(FILE*)> closer(in, &std::fclose);
  struct LineBuffer {
    char* data = nullptr;
    size_t cap = 0;
    ~LineBuffer() { std::free(data); }
  } buf;
  ssize_t got;
  size_t line_no = 0;
  while ((got = getline(&buf.data, &buf.cap, in)) >= 0) {
    ++line_no;
    std::string_view text(buf.data, static_cast<size_t>(got));
    if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    uint64_t weight = 1;
    if (config_.weighted) {
      size_t sep = text.find_last_of(" \t");
      std::string_view w =
          sep == std::string_view::npos ? std::string_view() : text.substr(sep + 1);
      auto [p, ec] = std::from_chars(w.data(), w.data() + w.size(), weight);
      if (sep == std::string_view::npos || w.empty() || ec != std::errc() ||
          p != w.data() + w.size()) {
        throw LineError(config_.path, line_no,
                        "expected KEY WEIGHT (weight: an integer 0..2^64-1 after the last space "
                        "or tab), found no valid weight");
      }
      text = text.substr(0, sep);
    }
    if (!f(text, weight)) break;
  }
  if (std::ferror(in)) {
    throw RuntimeError(config_.path + ": read error: " + std::strerror(errno));
  }
}

}  // namespace chsim::sim
