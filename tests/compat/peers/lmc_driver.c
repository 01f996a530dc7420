// SPDX-License-Identifier: Apache-2.0
/* libmemcached 1.1.4 peer driver for chsim's compatibility goldens.
 *
 * Usage: lmc_driver MODE SERVERS_TSV KEYS_FILE OUT_MAP [OUT_RING]
 *   MODE: libmemcached          KETAMA_WEIGHTED=1
 *         libmemcached-spy      KETAMA_WEIGHTED=1, then DISTRIBUTION=CONSISTENT_KETAMA_SPY
 *         libmemcached-ketama   DISTRIBUTION=CONSISTENT_KETAMA (default hash: one-at-a-time)
 *         libmemcached-ketama-md5  as above plus BEHAVIOR_HASH=MD5
 *   SERVERS_TSV: LABEL \t HOST \t PORT \t WEIGHT (WEIGHT 0 = the list gives no weights)
 *   KEYS_FILE: one key per line ('\n' terminated, raw bytes)
 *   OUT_MAP: KEY \t LABEL per key, input order.  OUT_RING: POINT \t LABEL, continuum order.
 * Nothing connects: servers are pushed with memcached_server_push, keys are located with
 * memcached_generate_hash (cross-checked with memcached_server_by_key).
 */
#include <libmemcached-1.0/memcached.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Not in the public headers ("private"): the layout is {index, value} in every libmemcached
 * release (src/libmemcached/continuum.hpp); the driver checks it is sorted and in range. */
struct memcached_continuum_item_st {
  uint32_t index;
  uint32_t value;
};

static void die(const char *msg, const char *arg) {
  fprintf(stderr, "lmc_driver: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
  exit(1);
}

#define MAXS 128
static char *labels[MAXS];

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) die("cannot open", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  if (fread(buf, 1, (size_t)n, f) != (size_t)n) die("short read", path);
  buf[n] = 0;
  fclose(f);
  *len = (size_t)n;
  return buf;
}

int main(int argc, char **argv) {
  if (argc < 5) die("usage: lmc_driver MODE SERVERS_TSV KEYS_FILE OUT_MAP [OUT_RING]", NULL);
  const char *mode = argv[1];
  memcached_st *memc = memcached_create(NULL);
  if (!memc) die("memcached_create failed", NULL);
  memcached_return_t rc;
  if (!strcmp(mode, "libmemcached")) {
    rc = memcached_behavior_set(memc, MEMCACHED_BEHAVIOR_KETAMA_WEIGHTED, 1);
  } else if (!strcmp(mode, "libmemcached-spy")) {
    rc = memcached_behavior_set(memc, MEMCACHED_BEHAVIOR_KETAMA_WEIGHTED, 1);
    if (rc == MEMCACHED_SUCCESS)
      rc = memcached_behavior_set(memc, MEMCACHED_BEHAVIOR_DISTRIBUTION,
                                  MEMCACHED_DISTRIBUTION_CONSISTENT_KETAMA_SPY);
  } else if (!strcmp(mode, "libmemcached-ketama")) {
    rc = memcached_behavior_set(memc, MEMCACHED_BEHAVIOR_DISTRIBUTION,
                                MEMCACHED_DISTRIBUTION_CONSISTENT_KETAMA);
  } else if (!strcmp(mode, "libmemcached-ketama-md5")) {
    rc = memcached_behavior_set(memc, MEMCACHED_BEHAVIOR_DISTRIBUTION,
                                MEMCACHED_DISTRIBUTION_CONSISTENT_KETAMA);
    if (rc == MEMCACHED_SUCCESS)
      rc = memcached_behavior_set(memc, MEMCACHED_BEHAVIOR_HASH, MEMCACHED_HASH_MD5);
  } else {
    die("unknown mode", mode);
  }
  if (rc != MEMCACHED_SUCCESS) die("behavior_set failed", memcached_strerror(memc, rc));

  /* servers */
  size_t slen;
  char *sbuf = slurp(argv[2], &slen);
  memcached_server_list_st list = NULL;
  int n = 0;
  char *save = NULL;
  for (char *line = strtok_r(sbuf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    char *f[4];
    char *s2 = NULL;
    int k = 0;
    for (char *t = strtok_r(line, "\t", &s2); t && k < 4; t = strtok_r(NULL, "\t", &s2)) f[k++] = t;
    if (k != 4) die("bad servers line", line);
    if (n >= MAXS) die("too many servers (libmemcached aborts above 100)", NULL);
    labels[n] = strdup(f[0]);
    unsigned port = (unsigned)strtoul(f[2], NULL, 10);
    unsigned weight = (unsigned)strtoul(f[3], NULL, 10);
    if (weight == 0)
      list = memcached_server_list_append(list, f[1], (in_port_t)port, &rc);
    else
      list = memcached_server_list_append_with_weight(list, f[1], (in_port_t)port, weight, &rc);
    if (rc != MEMCACHED_SUCCESS) die("server_list_append failed", f[1]);
    n++;
  }
  rc = memcached_server_push(memc, list);
  if (rc != MEMCACHED_SUCCESS) die("server_push failed", memcached_strerror(memc, rc));
  memcached_server_list_free(list);
  if ((int)memcached_server_count(memc) != n) die("server count mismatch", NULL);

  /* keys */
  size_t klen;
  char *kbuf = slurp(argv[3], &klen);
  FILE *out = fopen(argv[4], "wb");
  if (!out) die("cannot write", argv[4]);
  size_t pos = 0;
  while (pos < klen) {
    char *nl = memchr(kbuf + pos, '\n', klen - pos);
    if (!nl) die("key file not newline-terminated", argv[3]);
    const char *key = kbuf + pos;
    size_t len = (size_t)(nl - key);
    uint32_t idx = memcached_generate_hash(memc, key, len);
    if (idx >= (uint32_t)n) die("server index out of range", NULL);
    /* memcached_server_by_key leaves *error untouched on success in 1.1.4 */
    memcached_return_t r2 = MEMCACHED_SUCCESS;
    const memcached_instance_st *inst = memcached_server_by_key(memc, key, len, &r2);
    if (r2 != MEMCACHED_SUCCESS || !inst) die("memcached_server_by_key failed", memcached_strerror(memc, r2));
    if (inst != memcached_server_instance_by_position(memc, idx))
      die("memcached_server_by_key disagrees with memcached_generate_hash", NULL);
    fwrite(key, 1, len, out);
    fprintf(out, "\t%s\n", labels[idx]);
    pos += len + 1;
  }
  fclose(out);

  if (argc > 5) {
    FILE *ro = fopen(argv[5], "wb");
    if (!ro) die("cannot write", argv[5]);
    uint32_t cnt = memc->ketama.continuum_points_counter;
    const struct memcached_continuum_item_st *c = memc->ketama.continuum;
    for (uint32_t i = 0; i < cnt; i++) {
      if (c[i].index >= (uint32_t)n) die("continuum index out of range (layout?)", NULL);
      if (i && c[i].value < c[i - 1].value) die("continuum not sorted (layout?)", NULL);
      fprintf(ro, "%u\t%s\n", c[i].value, labels[c[i].index]);
    }
    fclose(ro);
  }
  memcached_free(memc);
  return 0;
}
