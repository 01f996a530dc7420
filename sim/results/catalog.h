// Catalog: everything chsim offers, as one JSON document made from the
// registries (profiles, hashers, algorithm specs, workload specs, the metric
// catalog), never from a copy of them. The Python module's catalog functions
// return its parts; `chsim list` prints the same facts as text.
//
// Layout: {"profiles": [{name, description, key_hasher, point_hasher,
// points_per_node, points_per_hash, lookup, ties, duplicates}], "hashers":
// [{name, description, bits}], "algorithms": AlgorithmCatalog of every
// registered algorithm (results.h: name, summary, paper, year, capabilities,
// parameters with type, default, range or choices, accepted, sweepable, doc),
// "workloads": [{name, doc, schema}], "metrics": [{name, unit, group,
// deterministic, meaning}]}; each list in registry order.
//
// Thread-safety: reentrant.
#ifndef CHSIM_SIM_RESULTS_CATALOG_H_
#define CHSIM_SIM_RESULTS_CATALOG_H_

#include "sim/base/json_reader.h"

namespace chsim::sim {

Json Catalog();

}  // namespace chsim::sim

#endif  // CHSIM_SIM_RESULTS_CATALOG_H_
