<?php
// SPDX-License-Identifier: Apache-2.0
// PHP memcache's (PECL memcache 8) own server choice, for
// tests/compat/generate-proxies: every key of KEYS (one per line, bytes
// verbatim) is set through a pool of the servers given (Memcache::addServer,
// the consistent strategy), then looked for on each server alone; prints,
// per key, the index of the one server that holds it.
//
//   php pecl_memcache_peer.php HASH_FUNCTION KEYS HOST:PORT:WEIGHT...
//
// HASH_FUNCTION is memcache.hash_function (crc32 or fnv). Exits 1 when a key
// is on no server or on several.
ini_set('memcache.hash_strategy', 'consistent');
ini_set('memcache.hash_function', $argv[1]);
$keys = explode("\n", file_get_contents($argv[2]));
array_pop($keys);  // after the last "\n"
$servers = [];
$pool = new Memcache();
foreach (array_slice($argv, 3) as $spec) {
  [$host, $port, $weight] = explode(':', $spec);
  $servers[] = [$host, (int)$port];
  $pool->addServer($host, (int)$port, false, (int)$weight);
}
foreach ($keys as $i => $k) {
  if (!$pool->set($k, (string)$i, 0, 0)) {
    fwrite(STDERR, "pecl_memcache_peer: set failed for key $i\n");
    exit(1);
  }
}
$single = [];
foreach ($servers as [$host, $port]) {
  $m = new Memcache();
  $m->addServer($host, $port, false, 1);
  $single[] = $m;
}
foreach ($keys as $i => $k) {
  $found = [];
  foreach ($single as $j => $m) {
    if ($m->get($k) !== false) $found[] = $j;
  }
  if (count($found) != 1) {
    fwrite(STDERR, "pecl_memcache_peer: key $i on " . count($found) . " servers\n");
    exit(1);
  }
  echo $found[0], "\n";
}
