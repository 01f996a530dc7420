// SPDX-License-Identifier: Apache-2.0
/* libmemcached's side of the peer harness (bench/peers/run): ring build
 * (memcached_server_push, which builds the continuum) and lookups
 * (memcached_generate_hash: key hash + continuum search) over the same files.
 *
 * Usage: lmc_peer KEYS_FILE SERVERS_FILE MODE PASSES
 *   MODE: weighted  MEMCACHED_BEHAVIOR_KETAMA_WEIGHTED=1 (MD5 keys and points; chsim `libmemcached`)
 *         ketama    DISTRIBUTION_CONSISTENT_KETAMA (one-at-a-time, 100 points; `libmemcached-ketama`)
 * Output: JSON lines as chsim_peer's. Aborts (SIGABRT, libmemcached's own assert)
 * above 100 servers: the harness records that. */
#include <libmemcached-1.0/memcached.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) { fprintf(stderr, "lmc_peer: cannot open %s\n", path); exit(1); }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  if (fread(buf, 1, (size_t)n, f) != (size_t)n) { fprintf(stderr, "lmc_peer: short read\n"); exit(1); }
  buf[n] = 0;
  fclose(f);
  *len = (size_t)n;
  return buf;
}

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts); /* CPU time, as chsim_peer */
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static void report(const char *op, double *ns, int n, unsigned long long checksum) {
  double sorted[64];
  memcpy(sorted, ns, sizeof(double) * n);
  qsort(sorted, n, sizeof(double), cmp_double);
  printf("{\"op\": \"%s\", \"ns\": %.4f, \"samples\": [", op, sorted[n / 2]);
  for (int i = 0; i < n; ++i) printf("%s%.4f", i ? ", " : "", ns[i]);
  printf("], \"checksum\": \"%llu\"}\n", checksum);
  fflush(stdout);
}

static memcached_st *make(const char *mode, memcached_server_list_st list) {
  memcached_st *memc = memcached_create(NULL);
  memcached_return_t rc;
  if (!strcmp(mode, "weighted")) {
    rc = memcached_behavior_set(memc, MEMCACHED_BEHAVIOR_KETAMA_WEIGHTED, 1);
  } else if (!strcmp(mode, "ketama")) {
    rc = memcached_behavior_set(memc, MEMCACHED_BEHAVIOR_DISTRIBUTION,
                                MEMCACHED_DISTRIBUTION_CONSISTENT_KETAMA);
  } else {
    fprintf(stderr, "lmc_peer: unknown mode %s\n", mode);
    exit(2);
  }
  if (rc != MEMCACHED_SUCCESS) { fprintf(stderr, "lmc_peer: behavior_set failed\n"); exit(1); }
  if (memcached_server_push(memc, list) != MEMCACHED_SUCCESS) {
    fprintf(stderr, "lmc_peer: server_push failed\n");
    exit(1);
  }
  return memc;
}

int main(int argc, char **argv) {
  if (argc != 5) { fprintf(stderr, "usage: lmc_peer KEYS SERVERS MODE PASSES\n"); return 2; }
  int passes = atoi(argv[4]);
  if (passes < 1) passes = 1;
  if (passes > 64) passes = 64;
  size_t klen, slen;
  char *kbuf = slurp(argv[1], &klen), *sbuf = slurp(argv[2], &slen);
  size_t nkeys = 0;
  for (size_t i = 0; i < klen; ++i) nkeys += kbuf[i] == '\n';
  const char **keys = malloc(nkeys * sizeof *keys);
  size_t *lens = malloc(nkeys * sizeof *lens);
  uint32_t *owners = malloc(nkeys * sizeof *owners);
  size_t k = 0, start = 0;
  for (size_t i = 0; i < klen; ++i) {
    if (kbuf[i] == '\n') { keys[k] = kbuf + start; lens[k++] = i - start; start = i + 1; }
  }
  memcached_server_list_st list = NULL;
  memcached_return_t rc;
  char *save = NULL;
  for (char *line = strtok_r(sbuf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    char *colon = strrchr(line, ':');
    *colon = 0;
    list = memcached_server_list_append(list, line, (in_port_t)atoi(colon + 1), &rc);
  }
  double ns[64];
  int build_passes = passes < 5 ? 5 : passes;
  for (int p = 0; p < build_passes; ++p) {
    double t0 = now_ns();
    memcached_st *m = make(argv[3], list);
    ns[p] = now_ns() - t0;
    memcached_free(m);
  }
  report("build", ns, build_passes, 0);
  memcached_st *memc = make(argv[3], list);
  unsigned long long checksum = 0;
  for (int p = 0; p < passes; ++p) {
    double t0 = now_ns();
    for (size_t i = 0; i < nkeys; ++i) owners[i] = memcached_generate_hash(memc, keys[i], lens[i]);
    ns[p] = (now_ns() - t0) / (double)nkeys;
    checksum = 0;
    for (size_t i = 0; i < nkeys; ++i) checksum = checksum * 1000003ull + owners[i];
  }
  report("lookup", ns, passes, checksum);
  memcached_free(memc);
  memcached_server_list_free(list);
  return 0;
}
