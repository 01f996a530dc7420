// SPDX-License-Identifier: Apache-2.0
#include "chsim/profile_map.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "murmur3.h"

namespace chsim {
namespace {

// The key's code points' low bytes (PymemcacheMurmur3): writes at most
// key.size() bytes to out and returns how many.
size_t CodePointBytes(std::string_view key, uint8_t* out) noexcept {
  size_t n = 0;
  for (size_t i = 0; i < key.size();) {
    const uint8_t b0 = static_cast<uint8_t>(key[i]);
    size_t need = b0 < 0x80                 ? 0
                  : b0 >= 0xC2 && b0 < 0xE0 ? 1
                  : b0 >= 0xE0 && b0 < 0xF0 ? 2
                  : b0 >= 0xF0 && b0 < 0xF5 ? 3
                                            : 4;
    uint32_t cp = need == 0 ? b0 : need == 1 ? b0 & 0x1F : need == 2 ? b0 & 0x0F : b0 & 0x07;
    bool ok = need < 4 && i + need < key.size();
    for (size_t k = 1; ok && k <= need; ++k) {
      const uint8_t c = static_cast<uint8_t>(key[i + k]);
      ok = (c & 0xC0) == 0x80;
      cp = cp << 6 | (c & 0x3F);
    }
    ok = ok && !(need == 2 && (cp < 0x800 || (cp >= 0xD800 && cp < 0xE000))) &&
         !(need == 3 && (cp < 0x10000 || cp > 0x10FFFF));
    if (!ok) {  // surrogateescape: the byte itself
      out[n++] = b0;
      ++i;
      continue;
    }
    out[n++] = static_cast<uint8_t>(cp);
    i += need + 1;
  }
  return n;
}

}  // namespace

uint32_t PymemcacheMurmur3(std::string_view text) noexcept {
  std::vector<uint8_t> bytes(text.size());
  const size_t n = CodePointBytes(text, bytes.data());
  return murmur3::Finish(0, bytes.data(), n, n);
}

void CheckProfileMap(const Profile& p, std::span<const Node> nodes) {
  if (nodes.empty()) throw std::invalid_argument("a " + p.name + " map needs at least one node");
  for (const Node& n : nodes) {
    if (n.weight == 0) throw std::invalid_argument("node '" + n.label + "' has weight 0");
    CheckWeight(p, n.weight, "");
  }
}

ProfileMap ProfileMap::Build(const Profile& p, std::span<const Node> nodes) {
  CheckProfileMap(p, nodes);
  ProfileMap m;
  m.engine_ = p.engine;
  m.key_hasher_ = p.key_hasher;
  for (const Node& n : nodes) {
    Scorer s{};
    s.name = PointKeyPrefix(p, n);  // '%s:%s' % (host, port)
    std::string text = s.name + "-";
    std::vector<uint8_t> b(text.size());
    const size_t len = CodePointBytes(text, b.data());
    s.prefix_len = static_cast<uint32_t>(len);
    const size_t whole = len / 4 * 4;
    s.state = murmur3::Blocks(0, b.data(), whole);
    s.rest_len = static_cast<uint8_t>(len - whole);
    std::memcpy(s.rest, b.data() + whole, s.rest_len);
    m.scorers_.push_back(std::move(s));
  }
  return m;
}

uint32_t ProfileMap::RendezvousOwner(std::string_view key) const noexcept {
  // pymemcache rendezvous.py get_node: the highest score wins; on equal
  // scores the greater node name (max(str(node), str(winner))).
  uint8_t buf[3 + 4096];
  uint8_t* const k = buf + 3;
  std::vector<uint8_t> heap;
  uint8_t* kb = k;
  if (key.size() > 4096) {
    heap.resize(3 + key.size());
    kb = heap.data() + 3;
  }
  const size_t kn = CodePointBytes(key, kb);
  uint32_t best = 0, best_score = 0;
  for (uint32_t i = 0; i < scorers_.size(); ++i) {
    const Scorer& s = scorers_[i];
    uint8_t* start = kb - s.rest_len;
    std::memcpy(start, s.rest, s.rest_len);
    const uint32_t score = murmur3::Finish(s.state, start, s.rest_len + kn, s.prefix_len + kn);
    if (i == 0 || score > best_score || (score == best_score && s.name > scorers_[best].name)) {
      best = i;
      best_score = score;
    }
  }
  return best;
}

uint32_t ProfileMap::Locate(std::string_view key) const noexcept { return RendezvousOwner(key); }

uint32_t ProfileMap::LocateHash(uint64_t h) const noexcept {
  char text[20];
  const auto end = std::to_chars(text, text + sizeof(text), h).ptr;
  return RendezvousOwner(std::string_view(text, static_cast<size_t>(end - text)));
}

void ProfileMap::LocateBatch(std::span<const std::string_view> keys,
                             std::span<uint32_t> out) const noexcept {
  for (size_t i = 0; i < keys.size(); ++i) out[i] = RendezvousOwner(keys[i]);
}

size_t ProfileMap::MemoryBytes() const noexcept {
  size_t bytes = sizeof(ProfileMap) + scorers_.capacity() * sizeof(Scorer);
  for (const Scorer& s : scorers_) bytes += s.name.capacity();
  return bytes;
}

}  // namespace chsim
