// SPDX-License-Identifier: Apache-2.0
#include "chsim/hasher.h"

#include <xxhash.h>
#include <zlib.h>

#include <stdexcept>
#include <string>

// SHA256_Init/Update/Final are deprecated in OpenSSL 3 like MD5() (chsim/md5.h),
// and run the digest without a provider fetch per call (OpenSSL 3's SHA256()
// one-shot fetches through EVP each time).
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>

#include "chsim/crush.h"
#include "chsim/md5.h"
#include "chsim/md5_batch.h"
#include "haproxy_full_hash.h"
#include "murmur3.h"

namespace chsim {
namespace {

const uint8_t* Bytes(const void* data) { return static_cast<const uint8_t*>(data); }

// FNV constants (Fowler, Noll, Vo; http://www.isthe.com/chongo/tech/comp/fnv/).
constexpr uint32_t kFnv32Init = 2166136261u;
constexpr uint32_t kFnv32Prime = 16777619u;
constexpr uint64_t kFnv64Init = 14695981039346656037ull;
constexpr uint64_t kFnv64Prime = 1099511628211ull;

// Decodes UTF-8 into UTF-16 code units as Java's String(bytes, UTF_8) does for
// valid input, calling f(unit) for each. An invalid byte becomes U+FFFD.
template <typename F>
void ForEachUtf16Unit(const void* data, size_t len, F&& f) noexcept {
  const uint8_t* p = Bytes(data);
  size_t i = 0;
  while (i < len) {
    uint32_t b0 = p[i];
    uint32_t cp;
    size_t need;
    if (b0 < 0x80) {
      cp = b0;
      need = 0;
    } else if (b0 >= 0xC2 && b0 < 0xE0) {
      cp = b0 & 0x1F;
      need = 1;
    } else if (b0 >= 0xE0 && b0 < 0xF0) {
      cp = b0 & 0x0F;
      need = 2;
    } else if (b0 >= 0xF0 && b0 < 0xF5) {
      cp = b0 & 0x07;
      need = 3;
    } else {
      f(uint16_t{0xFFFD});
      ++i;
      continue;
    }
    bool ok = i + need < len;  // the continuation bytes are present
    for (size_t k = 1; ok && k <= need; ++k) {
      if ((p[i + k] & 0xC0) != 0x80)
        ok = false;
      else
        cp = (cp << 6) | (p[i + k] & 0x3F);
    }
    if (ok && ((need == 2 && (cp < 0x800 || (cp >= 0xD800 && cp < 0xE000))) ||
               (need == 3 && (cp < 0x10000 || cp > 0x10FFFF)))) {
      ok = false;
    }
    if (!ok) {
      f(uint16_t{0xFFFD});
      ++i;
      continue;
    }
    if (cp >= 0x10000) {
      cp -= 0x10000;
      f(static_cast<uint16_t>(0xD800 + (cp >> 10)));
      f(static_cast<uint16_t>(0xDC00 + (cp & 0x3FF)));
    } else {
      f(static_cast<uint16_t>(cp));
    }
    i += need + 1;
  }
}

constexpr Hasher kHashers[] = {
    {"md5", "MD5, digest bytes 0..3 as little-endian uint32 (libketama's key hash)", HashMd5, 32},
    {"md5_64", "MD5, digest bytes 0..7 as little-endian uint64", HashMd5_64, 64},
    {"crc32", "CRC-32 (zlib, IEEE 802.3)", HashCrc32, 32},
    {"crc_spy", "(crc32 >> 16) & 0x7fff: spymemcached CRC_HASH (15 bits)", HashCrcSpy, 15},
    {"fnv1_32", "FNV-1 32-bit over bytes", HashFnv1_32, 32},
    {"fnv1a_32", "FNV-1a 32-bit over bytes", HashFnv1a_32, 32},
    {"fnv1_64", "FNV-1 64-bit over bytes", HashFnv1_64, 64},
    {"fnv1a_64", "FNV-1a 64-bit over bytes", HashFnv1a_64, 64},
    {"one_at_a_time", "Bob Jenkins' one-at-a-time (bytes unsigned)", HashOneAtATime, 32},
    {"hashkit_one_at_a_time",
     "one-at-a-time as libhashkit 1.1 computes it (libmemcached's default key hash): bytes "
     "as signed char",
     HashHashkitOneAtATime, 32},
    {"java_string", "Java String.hashCode() of the UTF-8 key (spymemcached NATIVE_HASH)",
     HashJavaString, 32},
    {"spy_fnv1_32", "spymemcached FNV1_32_HASH: FNV-1 over UTF-16 code units", HashSpyFnv1_32, 32},
    {"spy_fnv1a_32", "spymemcached FNV1A_32_HASH: FNV-1a over UTF-16 code units", HashSpyFnv1a_32,
     32},
    {"spy_fnv1_64", "spymemcached FNV1_64_HASH: FNV-1 64 over UTF-16 units, low 32 bits",
     HashSpyFnv1_64, 32},
    {"spy_fnv1a_64", "spymemcached FNV1A_64_HASH: FNV-1a 64 over UTF-16 units, low 32 bits",
     HashSpyFnv1a_64, 32},
    {"murmur3_32", "MurmurHash3 x86_32, seed 0 (Appleby)", HashMurmur3_32, 32},
    {"xxh32", "xxHash32, seed 0 (libxxhash)", HashXxh32, 32},
    {"xxh64", "xxHash64, seed 0 (libxxhash)", HashXxh64, 64},
    {"xxh3", "XXH3 64-bit, seed 0 (libxxhash)", HashXxh3, 64},
    {"jedis_murmur", "MurmurHash64A, seed 0x1234ABCD (Jedis Hashing.MURMUR_HASH)", HashJedisMurmur,
     64},
    {"envoy_murmur2",
     "MurmurHash64A, seed 0xc70f6907 (Envoy MurmurHash::murmurHash2, libstdc++'s std::hash)",
     HashEnvoyMurmur2, 64},
    {"sha256_last32",
     "SHA-256, digest bytes 28..31 as little-endian uint32 (Varnish VRT_HashStrands32, the "
     "shard director's key and point hash)",
     HashSha256Last32, 32},
    {"ceph_rjenkins",
     "Jenkins' lookup2 as Ceph hashes object names (ceph_str_hash_rjenkins; the object -> PG "
     "step)",
     HashCephRjenkins, 32},
    {"sdbm", "sdbm (hash * 65599 + byte; HAProxy hash.c hash_sdbm)", HashSdbm, 32},
    {"sdbm_avalanche", "sdbm, then HAProxy's full_hash (hash-type consistent's default)",
     HashSdbmAvalanche, 32},
    {"djb2", "djb2 (hash * 33 + byte from 5381; HAProxy hash.c hash_djb2)", HashDjb2, 32},
    {"djb2_avalanche", "djb2, then HAProxy's full_hash", HashDjb2Avalanche, 32},
    {"wt6", "HAProxy's wt6 (hash.c hash_wt6)", HashWt6, 32},
    {"wt6_avalanche", "wt6, then HAProxy's full_hash", HashWt6Avalanche, 32},
    {"crc32_avalanche", "CRC-32, then HAProxy's full_hash", HashCrc32Avalanche, 32},
    {"memcache_crc32",
     "PHP memcache's consistent bucket: CRC-32 of the key as it sends it (bytes <= 0x20 as "
     "'_', at most 250 bytes) mod 1024",
     HashMemcacheCrc32, 10},
    {"memcache_fnv",
     "PHP memcache's consistent bucket with memcache.hash_function=fnv: FNV-1a 32 (bytes read as "
     "signed char) of the key as it sends it, mod 1024",
     HashMemcacheFnv, 10},
};

}  // namespace

// Keys under 56 bytes through chsim's one-block MD5 (md5_batch.h: equal to
// OpenSSL's, no context or buffering, 15-25% faster), longer ones OpenSSL's.
uint64_t HashMd5(const void* data, size_t len) noexcept { return Md5Le32(data, len); }

uint64_t HashMd5_64(const void* data, size_t len) noexcept {
  uint8_t d[16];
  Md5(data, len, d);
  return uint64_t{Md5Slice(d, 0)} | uint64_t{Md5Slice(d, 1)} << 32;
}

uint64_t HashCrc32(const void* data, size_t len) noexcept {
  uLong crc = crc32(0L, Z_NULL, 0);
  const uint8_t* p = Bytes(data);
  while (len > 0) {  // zlib takes uInt lengths
    uInt chunk = len > (1u << 30) ? (1u << 30) : static_cast<uInt>(len);
    crc = crc32(crc, p, chunk);
    p += chunk;
    len -= chunk;
  }
  return static_cast<uint32_t>(crc);
}

uint64_t HashCrcSpy(const void* data, size_t len) noexcept {
  return (HashCrc32(data, len) >> 16) & 0x7fff;
}

uint64_t HashFnv1_32(const void* data, size_t len) noexcept {
  uint32_t h = kFnv32Init;
  for (size_t i = 0; i < len; ++i) h = (h * kFnv32Prime) ^ Bytes(data)[i];
  return h;
}

uint64_t HashFnv1a_32(const void* data, size_t len) noexcept {
  uint32_t h = kFnv32Init;
  for (size_t i = 0; i < len; ++i) h = (h ^ Bytes(data)[i]) * kFnv32Prime;
  return h;
}

uint64_t HashFnv1_64(const void* data, size_t len) noexcept {
  uint64_t h = kFnv64Init;
  for (size_t i = 0; i < len; ++i) h = (h * kFnv64Prime) ^ Bytes(data)[i];
  return h;
}

uint64_t HashFnv1a_64(const void* data, size_t len) noexcept {
  uint64_t h = kFnv64Init;
  for (size_t i = 0; i < len; ++i) h = (h ^ Bytes(data)[i]) * kFnv64Prime;
  return h;
}

namespace {
// Bob Jenkins' one-at-a-time (Dr. Dobb's, 1997) over byte values from `byte`.
template <typename ByteValue>
uint32_t OneAtATime(const void* data, size_t len, ByteValue byte) noexcept {
  uint32_t h = 0;
  for (size_t i = 0; i < len; ++i) {
    h += byte(Bytes(data)[i]);
    h += h << 10;
    h ^= h >> 6;
  }
  h += h << 3;
  h ^= h >> 11;
  h += h << 15;
  return h;
}
}  // namespace

uint64_t HashOneAtATime(const void* data, size_t len) noexcept {
  return OneAtATime(data, len, [](uint8_t b) { return uint32_t{b}; });
}

// libhashkit reads each byte through `char`, signed on x86: bytes >= 0x80
// enter the sum sign-extended. That is what libmemcached clients compute
// (tests/compat/golden/hashers.tsv, rows hashkit_one_at_a_time).
uint64_t HashHashkitOneAtATime(const void* data, size_t len) noexcept {
  return OneAtATime(data, len, [](uint8_t b) {
    return static_cast<uint32_t>(static_cast<int32_t>(static_cast<int8_t>(b)));
  });
}

uint64_t HashJavaString(const void* data, size_t len) noexcept {
  uint32_t h = 0;
  ForEachUtf16Unit(data, len, [&](uint16_t u) { h = 31 * h + u; });
  return h;
}

uint64_t HashSpyFnv1_32(const void* data, size_t len) noexcept {
  uint64_t h = kFnv32Init;
  ForEachUtf16Unit(data, len, [&](uint16_t u) { h = (h * kFnv32Prime) ^ u; });
  return h & 0xffffffffu;
}

uint64_t HashSpyFnv1a_32(const void* data, size_t len) noexcept {
  uint64_t h = kFnv32Init;
  ForEachUtf16Unit(data, len, [&](uint16_t u) { h = (h ^ u) * kFnv32Prime; });
  return h & 0xffffffffu;
}

uint64_t HashSpyFnv1_64(const void* data, size_t len) noexcept {
  uint64_t h = kFnv64Init;
  ForEachUtf16Unit(data, len, [&](uint16_t u) { h = (h * kFnv64Prime) ^ u; });
  return h & 0xffffffffu;
}

uint64_t HashSpyFnv1a_64(const void* data, size_t len) noexcept {
  uint64_t h = kFnv64Init;
  ForEachUtf16Unit(data, len, [&](uint16_t u) { h = (h ^ u) * kFnv64Prime; });
  return h & 0xffffffffu;
}

// MurmurHash3_x86_32 (Austin Appleby, public domain, 2011): murmur3.h.
uint64_t HashMurmur3_32(const void* data, size_t len) noexcept {
  return murmur3::Finish(0, Bytes(data), len, len);
}

uint64_t HashXxh32(const void* data, size_t len) noexcept { return XXH32(data, len, 0); }
uint64_t HashXxh64(const void* data, size_t len) noexcept { return XXH64(data, len, 0); }

uint64_t Murmur64A(const void* data, size_t len, uint64_t seed) noexcept {
  constexpr uint64_t m = 0xc6a4a7935bd1e995ull;
  constexpr int r = 47;
  const uint8_t* p = Bytes(data);
  uint64_t h = seed ^ (len * m);
  for (; len >= 8; p += 8, len -= 8) {
    uint64_t k = 0;
    for (int i = 7; i >= 0; --i) k = k << 8 | p[i];  // little-endian
    k *= m;
    k ^= k >> r;
    k *= m;
    h ^= k;
    h *= m;
  }
  if (len > 0) {
    uint64_t t = 0;
    for (size_t i = len; i-- > 0;) t = t << 8 | p[i];
    h ^= t;
    h *= m;
  }
  h ^= h >> r;
  h *= m;
  h ^= h >> r;
  return h;
}

uint64_t HashJedisMurmur(const void* data, size_t len) noexcept {
  return Murmur64A(data, len, 0x1234ABCD);
}

uint64_t HashEnvoyMurmur2(const void* data, size_t len) noexcept {
  return Murmur64A(data, len, 0xc70f6907);
}
uint64_t HashXxh3(const void* data, size_t len) noexcept { return XXH3_64bits(data, len); }

std::span<const Hasher> AllHashers() noexcept { return kHashers; }

const Hasher* FindHasher(std::string_view name) noexcept {
  for (const Hasher& h : kHashers) {
    if (h.name == name) return &h;
  }
  return nullptr;
}

const Hasher& GetHasher(std::string_view name) {
  if (const Hasher* h = FindHasher(name)) return *h;
  std::string valid;
  for (const Hasher& h : kHashers) {
    if (!valid.empty()) valid += ", ";
    valid += h.name;
  }
  throw std::invalid_argument("unknown hasher '" + std::string(name) + "' (valid: " + valid + ")");
}

// HAProxy 2.6 src/hash.c: hash_sdbm, hash_djb2 and hash_wt6, bytes unsigned.
uint64_t HashSdbm(const void* data, size_t len) noexcept {
  uint32_t h = 0;
  for (size_t i = 0; i < len; ++i) h = Bytes(data)[i] + (h << 6) + (h << 16) - h;
  return h;
}

uint64_t HashDjb2(const void* data, size_t len) noexcept {
  uint32_t h = 5381;
  for (size_t i = 0; i < len; ++i) h = (h << 5) + h + Bytes(data)[i];
  return h;
}

uint64_t HashWt6(const void* data, size_t len) noexcept {
  uint32_t h0 = 0xa53c965a, h1 = 0x5ca6953a, step0 = 6, step1 = 18;
  // A rotation by 0 (step 0) is the identity, as HAProxy's shifts by 32 on x86.
  auto rotl = [](uint32_t x, uint32_t r) { return r == 0 ? x : (x << r) | (x >> (32 - r)); };
  for (size_t i = 0; i < len; ++i) {
    const uint32_t t = Bytes(data)[i];
    h0 = ~(h0 ^ t);
    h1 = ~(h1 + t);
    const uint32_t r = rotl(h1, step0);
    h1 = rotl(h0, step1);
    h0 = r;
    const uint32_t s = ((h0 >> 16) ^ h1) & 0xffff;
    step0 = s & 0x1f;
    step1 = s >> 11;
  }
  return h0 ^ h1;
}

// HAProxy 2.6 include/haproxy/intops.h __full_hash (haproxy_full_hash.h).
uint32_t HaproxyFullHash(uint32_t a) noexcept { return haproxy::FullHash(a); }

// `hash-type consistent FUNCTION avalanche` (backend.c gen_hash).
uint64_t HashSdbmAvalanche(const void* data, size_t len) noexcept {
  return HaproxyFullHash(static_cast<uint32_t>(HashSdbm(data, len)));
}
uint64_t HashDjb2Avalanche(const void* data, size_t len) noexcept {
  return HaproxyFullHash(static_cast<uint32_t>(HashDjb2(data, len)));
}
uint64_t HashWt6Avalanche(const void* data, size_t len) noexcept {
  return HaproxyFullHash(static_cast<uint32_t>(HashWt6(data, len)));
}
uint64_t HashCrc32Avalanche(const void* data, size_t len) noexcept {
  return HaproxyFullHash(static_cast<uint32_t>(HashCrc32(data, len)));
}

// PECL memcache 8 (php-memcache) src/memcache_pool.c mmc_prepare_key_ex: the
// key as sent, at most MMC_MAX_KEY_LEN (250) bytes, every byte <= ' '
// (compared unsigned) replaced by '_'; then the pool's hash of it, and
// mmc_consistent_find_server's bucket, hash % MMC_CONSISTENT_BUCKETS (1024).
namespace {
template <typename Hash>
uint64_t MemcacheBucket(const void* data, size_t len, Hash hash) noexcept {
  uint8_t key[250];
  const size_t n = len < sizeof(key) ? len : sizeof(key);
  for (size_t i = 0; i < n; ++i) key[i] = Bytes(data)[i] > ' ' ? Bytes(data)[i] : '_';
  return hash(key, n) % 1024;
}

// mmc_hash_fnv1a_combine: seed ^= (unsigned int)*(p++) with p a `const char *`,
// signed on x86, so a byte >= 0x80 enters sign-extended (0xffffff80 | b).
uint64_t MemcacheFnv1a(const void* data, size_t len) noexcept {
  uint32_t h = kFnv32Init;
  for (size_t i = 0; i < len; ++i) {
    h = (h ^ static_cast<uint32_t>(static_cast<int32_t>(static_cast<int8_t>(Bytes(data)[i])))) *
        kFnv32Prime;
  }
  return h;
}
}  // namespace

uint64_t HashMemcacheCrc32(const void* data, size_t len) noexcept {
  return MemcacheBucket(data, len, HashCrc32);
}
uint64_t HashMemcacheFnv(const void* data, size_t len) noexcept {
  return MemcacheBucket(data, len, MemcacheFnv1a);
}

// Varnish 7.1 bin/varnishd/cache/cache_vrt.c VRT_HashStrands32 (l.373-396):
// SHA-256 over the strands, then vle32dec(sha256 + VSHA256_LEN - 4). Varnish
// hashes C strings (strlen), so its input never holds a NUL; this hashes
// every byte given.
uint64_t HashCephRjenkins(const void* data, size_t len) noexcept {
  return crush::StrHashRjenkins(std::string_view(static_cast<const char*>(data), len));
}

uint64_t HashSha256Last32(const void* data, size_t len) noexcept {
  unsigned char d[SHA256_DIGEST_LENGTH];
  SHA256_CTX ctx;
  SHA256_Init(&ctx);
  SHA256_Update(&ctx, data, len);
  SHA256_Final(d, &ctx);
  return uint32_t{d[28]} | uint32_t{d[29]} << 8 | uint32_t{d[30]} << 16 | uint32_t{d[31]} << 24;
}

}  // namespace chsim
