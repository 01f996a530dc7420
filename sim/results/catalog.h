// SPDX-License-Identifier: Apache-2.0
// Catalog: everything chsim offers, as one JSON document made from the
// registries (profiles, hashers, algorithm specs, workload specs, the metric
// catalog), never from a copy of them. The Python module's catalog functions
// return its parts; `chsim list --json` prints it, `chsim list` the same facts as text.
//
// The format, version `kCatalogVersion` (docs/extending.md, "The catalog"):
//   {"catalog_version", "chsim": version,
//    "algorithms": [{name, summary, paper, year, capabilities{...}, memory,
//                    balance_bound, default_key_hasher, parameters[...]}],
//    "replica_strategies": [{name, summary, paper, year, applies_to,
//                            algorithms, domain_rule, minimal, short_results,
//                            parameters[...]}],
//    "topology": {levels: [{name, scenario_field, server_list_column,
//                           within}], rules, server_list, generated,
//                 domain_failure},
//    "workloads": [{name, doc, unit, fields[...]}],
//    "metrics": [{name, group, unit, deterministic, meaning}],
//    "metric_groups": [...],
//    "profiles": [{name, description, key_hasher, point_hasher,
//                  points_per_node, points_per_hash, lookup, ties, duplicates}],
//    "hashers": [{name, description, bits}],
//    "cache_policies": [{name, doc}],
//    "scenario": the rows of the scenario format (fields.h: ObjectCatalog)};
// each list in registry order.
//
// Thread-safety: reentrant.
#ifndef CHSIM_SIM_RESULTS_CATALOG_H_
#define CHSIM_SIM_RESULTS_CATALOG_H_

#include "sim/base/json_reader.h"

namespace chsim::sim {

inline constexpr int kCatalogVersion = 1;
Json Catalog();

}  // namespace chsim::sim

#endif  // CHSIM_SIM_RESULTS_CATALOG_H_
