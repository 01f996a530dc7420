// SPDX-License-Identifier: Apache-2.0
/* Hash known-answer rows from the reference C libraries (libhashkit 1.1.4, zlib, libxxhash,
 * OpenSSL's MD5 through libhashkit_md5_signature).
 * Usage: hashers KEYS_HEX_FILE   (one key a line, hex-encoded, empty line = empty key)
 * Prints HASHER \t KEY_HEX \t VALUE_U64_DECIMAL rows on stdout.
 */
#include <libhashkit-1.0/hashkit.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>
#include <zlib.h>

static int hexval(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

/* Textbook Jenkins one-at-a-time over unsigned bytes. */
static uint32_t oaat_textbook(const unsigned char *k, size_t n) {
  uint32_t h = 0;
  for (size_t i = 0; i < n; i++) {
    h += k[i];
    h += h << 10;
    h ^= h >> 6;
  }
  h += h << 3;
  h ^= h >> 11;
  h += h << 15;
  return h;
}

static void row(const char *name, const char *hex, unsigned long long v) {
  printf("%s\t%s\t%llu\n", name, hex, v);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: hashers KEYS_HEX_FILE\n");
    return 1;
  }
  FILE *f = fopen(argv[1], "r");
  if (!f) {
    perror(argv[1]);
    return 1;
  }
  static char line[8192];
  static unsigned char key[4096];
  int has_m3 = libhashkit_has_algorithm(HASHKIT_HASH_MURMUR3);
  while (fgets(line, sizeof line, f)) {
    size_t L = strcspn(line, "\r\n");
    line[L] = 0;
    if (L % 2) {
      fprintf(stderr, "odd hex line\n");
      return 1;
    }
    size_t n = L / 2;
    for (size_t i = 0; i < n; i++) {
      int a = hexval(line[2 * i]), b = hexval(line[2 * i + 1]);
      if (a < 0 || b < 0) {
        fprintf(stderr, "bad hex\n");
        return 1;
      }
      key[i] = (unsigned char)(a * 16 + b);
    }
    const char *ck = (const char *)key;
    unsigned char d[16];
    libhashkit_md5_signature(key, n, d);
    uint64_t le32 = (uint64_t)d[0] | (uint64_t)d[1] << 8 | (uint64_t)d[2] << 16 | (uint64_t)d[3] << 24;
    uint64_t le64 = 0;
    for (int i = 7; i >= 0; i--) le64 = le64 << 8 | d[i];
    row("md5", line, le32);
    row("md5_64", line, le64);
    row("crc32", line, crc32(0L, key, (uInt)n));
    row("one_at_a_time", line, oaat_textbook(key, n));
    row("xxh32", line, XXH32(key, n, 0));
    row("xxh64", line, (unsigned long long)XXH64(key, n, 0));
    row("xxh3", line, (unsigned long long)XXH3_64bits(key, n));
    row("hashkit_md5", line, libhashkit_md5(ck, n));
    row("hashkit_crc32", line, libhashkit_crc32(ck, n));
    row("hashkit_one_at_a_time", line, libhashkit_one_at_a_time(ck, n));
    row("hashkit_fnv1_32", line, libhashkit_fnv1_32(ck, n));
    row("hashkit_fnv1a_32", line, libhashkit_fnv1a_32(ck, n));
    row("hashkit_fnv1_64", line, libhashkit_fnv1_64(ck, n));
    row("hashkit_fnv1a_64", line, libhashkit_fnv1a_64(ck, n));
    if (has_m3) row("hashkit_murmur3", line, libhashkit_murmur3(ck, n));
  }
  fclose(f);
  return 0;
}
