// SPDX-License-Identifier: Apache-2.0
/* libmemcached's side of the end-to-end row of the peer harness (bench/peers/run):
 * a small whole program that maps every line of a key file to its server, as
 * `chsim locate --profile libmemcached` does, and prints the same bytes:
 * KEY<TAB>HOST:PORT per key line.
 *
 * Usage: lmc_locate SERVERS_FILE KEYS_FILE > OUT
 *   SERVERS_FILE: HOST:PORT per line. The client is set up as chsim's
 *   `libmemcached` profile reproduces it: MEMCACHED_BEHAVIOR_KETAMA_WEIGHTED=1
 *   (MD5 keys and points, 160 points per server).
 * Written to be fair to libmemcached: keys are read in large blocks into one
 * reused buffer, the output goes through one large buffer; the mapping is memcached_generate_hash
 * (key hash and continuum search), the call memcached_server_by_key makes. */
#include <libmemcached-1.0/memcached.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char* slurp(const char* path, size_t* len) {
  FILE* f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "lmc_locate: cannot open %s\n", path);
    exit(2);
  }
  size_t cap = 1 << 20, n = 0, got;
  char* buf = malloc(cap);
  while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) buf = realloc(buf, cap *= 2);
  }
  if (!buf || ferror(f)) {
    fprintf(stderr, "lmc_locate: cannot read %s\n", path);
    exit(1);
  }
  fclose(f);
  *len = n;
  return buf;
}

static void put(char** out, const char* p, size_t n) {
  memcpy(*out, p, n);
  *out += n;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: lmc_locate SERVERS_FILE KEYS_FILE\n");
    return 2;
  }
  size_t slen;
  char* sbuf = slurp(argv[1], &slen);
  sbuf = realloc(sbuf, slen + 1);
  sbuf[slen] = 0;

  memcached_server_list_st list = NULL;
  memcached_return_t rc;
  char* save = NULL;
  for (char* line = strtok_r(sbuf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    char* colon = strrchr(line, ':');
    if (!colon) {
      fprintf(stderr, "lmc_locate: %s: expected HOST:PORT\n", line);
      return 2;
    }
    *colon = 0;
    list = memcached_server_list_append(list, line, (in_port_t)atoi(colon + 1), &rc);
  }
  memcached_st* memc = memcached_create(NULL);
  if (memcached_behavior_set(memc, MEMCACHED_BEHAVIOR_KETAMA_WEIGHTED, 1) != MEMCACHED_SUCCESS ||
      memcached_server_push(memc, list) != MEMCACHED_SUCCESS) {
    fprintf(stderr, "lmc_locate: cannot set up the client\n");
    return 1;
  }
  /* "HOST:PORT\n" of every server, by index. */
  uint32_t count = memcached_server_count(memc);
  char** labels = malloc(count * sizeof *labels);
  size_t *label_lens = malloc(count * sizeof *label_lens), longest = 0;
  for (uint32_t i = 0; i < count; ++i) {
    const memcached_instance_st* s = memcached_server_instance_by_position(memc, i);
    labels[i] = malloc(strlen(memcached_server_name(s)) + 16);
    label_lens[i] = (size_t)sprintf(labels[i], "%s:%u\n", memcached_server_name(s),
                                    (unsigned)memcached_server_port(s));
    if (label_lens[i] > longest) longest = label_lens[i];
  }

  /* Keys are read 1 MiB at a time into one reused buffer (a key line longer
   * than the buffer grows it); output is built in another and written whole. */
  FILE* in = fopen(argv[2], "rb");
  if (!in) {
    fprintf(stderr, "lmc_locate: cannot open %s\n", argv[2]);
    return 2;
  }
  size_t icap = 1 << 20, have = 0, got, cap = 1 << 20;
  char *ibuf = malloc(icap), *obuf = malloc(cap), *out = obuf;
  int eof = 0;
  while (!eof) {
    got = fread(ibuf + have, 1, icap - have, in);
    if (got == 0) {
      if (ferror(in)) {
        fprintf(stderr, "lmc_locate: cannot read %s\n", argv[2]);
        return 1;
      }
      eof = 1;
    }
    have += got;
    size_t start = 0;
    for (;;) {
      const char* key = ibuf + start;
      const char* nl = memchr(key, '\n', have - start);
      if (!nl && !(eof && start < have)) break;
      size_t len = nl ? (size_t)(nl - key) : have - start;
      uint32_t server = memcached_generate_hash(memc, key, len);
      if ((size_t)(out - obuf) + len + longest + 1 > cap) {
        fwrite(obuf, 1, (size_t)(out - obuf), stdout);
        out = obuf;
        if (len + longest + 1 > cap) obuf = realloc(obuf, cap = len + longest + 1), out = obuf;
      }
      put(&out, key, len);
      *out++ = '\t';
      put(&out, labels[server], label_lens[server]);
      start += len + 1;
      if (!nl) break; /* the last line had no newline */
    }
    if (start > have) start = have;
    memmove(ibuf, ibuf + start, have - start);
    have -= start;
    if (have == icap) ibuf = realloc(ibuf, icap *= 2);
  }
  fclose(in);
  fwrite(obuf, 1, (size_t)(out - obuf), stdout);
  if (fflush(stdout) != 0) {
    perror("lmc_locate: writing standard output");
    return 1;
  }
  memcached_free(memc);
  memcached_server_list_free(list);
  return 0;
}
