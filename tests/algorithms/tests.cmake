# SPDX-License-Identifier: Apache-2.0
# `chsim locate --algorithm NAME` serves every algorithm (label algorithms).
#  - cli_locate_every_algorithm: for each algorithm `chsim list` names (no list
#    here: a new one without a reference fails), 100 keys over 3 and over 37
#    servers, KEY<TAB>SERVER for each, equal line for line to an independent
#    Python reference of the algorithm (cli_locate_reference.py: the papers'
#    definitions over libxxhash, none of chsim's code); the weighted list is
#    located likewise by algorithms with weights and refused by the others
#    (exit 2, one line naming the file, the algorithm and the node).
set(_alg_data ${CMAKE_CURRENT_SOURCE_DIR}/algorithms/data)
set(_alg_ref ${CMAKE_CURRENT_SOURCE_DIR}/algorithms/cli_locate_reference.py)
set(_expect ${CMAKE_CURRENT_SOURCE_DIR}/expect_run.py)
add_test(NAME algorithms.cli_locate_every_algorithm
         COMMAND ${CHSIM_PYTHON} ${_alg_ref} $<TARGET_FILE:chsim> --every-algorithm
                 --servers ${_alg_data}/servers.txt --weighted ${_alg_data}/weighted.txt
                 --keys ${_alg_data}/keys.txt)
add_test(NAME algorithms.cli_list_shows_algorithms
         COMMAND ${CHSIM_PYTHON} ${_expect} --exit 0
                 --stdout "  memento [^\n]*\n[^\n]*parameters: [^\n]*\n[^\n]*capabilities: arbitrary removal[^\n]*keys back after fail \\+ restore: reverse order only"
                 -- $<TARGET_FILE:chsim> list)
# power's LocateBatch, straw2's hashes and rendezvous's draws run in vector lanes at the widest
# SIMD level the CPU has: the same comparisons at each narrower level (one thread: not
# in the ThreadSanitizer run, CHSIM_RACE_RUN).
if(NOT CHSIM_RACE_RUN)
  foreach(_level avx2 portable)
    add_test(NAME algorithms.cli_range_batch_simd_${_level}
             COMMAND chsim_algorithms_tests --gtest_filter=All/RangeHash.LocateBatchEqualsLocate/*)
    set_tests_properties(algorithms.cli_range_batch_simd_${_level} PROPERTIES
                         ENVIRONMENT CHSIM_SIMD=${_level})
    add_test(NAME algorithms.cli_straw2_simd_${_level}
             COMMAND chsim_algorithms_tests
                     --gtest_filter=Straw2.LocateIsTheHighestDrawAtEverySize:Rendezvous.LocateIsTheHighestDrawAtEverySize)
    set_tests_properties(algorithms.cli_straw2_simd_${_level} PROPERTIES
                         ENVIRONMENT CHSIM_SIMD=${_level})
  endforeach()
endif()
get_property(_alg_tests DIRECTORY PROPERTY TESTS)
list(FILTER _alg_tests INCLUDE REGEX "^algorithms\\.cli_")
set_tests_properties(${_alg_tests} PROPERTIES LABELS algorithms TIMEOUT ${CHSIM_HANG_S})

# Registry.EverySpecDefinedIsRegistered (label algorithms): every algorithm
# spec defined in core/src/algorithms/*.cc, every replica strategy defined in
# core/src/replicas/*.cc, every workload spec defined in sim/workload/*.cc and
# every metric group defined in sim/run/group_*.cc is in its registry. The list of definitions is read from
# the sources at configure time (nothing here names them), so a spec written
# without its registry row fails this test, naming the file and the row to add.
set(_specs_source ${CMAKE_CURRENT_BINARY_DIR}/generated/registered_specs_test.cc)
set(_spec_decls "")
set(_spec_checks "")
foreach(kind algorithm replica workload group)
  if(kind STREQUAL "group")
    file(GLOB _files CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/sim/run/group_*.cc)
    set(_regex "const[a-z]* MetricGroup (k[A-Za-z0-9_]+) *[{=]")  # const or constexpr
    set(_ns "chsim::sim")
    set(_type "chsim::sim::MetricGroup")
    set(_all "chsim::sim::AllMetricGroups()")
    set(_registry "kRegistry in sim/run/metric_groups.cc")
  elseif(kind STREQUAL "replica")
    file(GLOB _files CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/core/src/replicas/*.cc)
    set(_regex "const ReplicaStrategy (k[A-Za-z0-9_]+) *[{=]")
    set(_ns "chsim::replicas_internal")
    set(_type "chsim::ReplicaStrategy")
    set(_all "chsim::AllReplicaStrategies()")
    set(_registry "kRegistry in core/src/replicas/registry.cc")
  elseif(kind STREQUAL "algorithm")
    file(GLOB _files CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/core/src/algorithms/*.cc)
    set(_regex "const AlgorithmSpec (k[A-Za-z0-9_]+) *[{=]")
    set(_ns "chsim::algorithms_internal")
    set(_type "chsim::AlgorithmSpec")
    set(_all "chsim::AllAlgorithms()")
    set(_registry "kRegistry in core/src/algorithms/registry.cc")
  else()
    file(GLOB _files CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/sim/workload/*.cc)
    set(_regex "const WorkloadSpec (k[A-Za-z0-9_]+) *[{=]")
    set(_ns "chsim::sim")
    set(_type "chsim::sim::WorkloadSpec")
    set(_all "chsim::sim::AllWorkloads()")
    set(_registry "kWorkloads in sim/workload/workload.cc")
  endif()
  foreach(f ${_files})
    file(STRINGS ${f} _defs REGEX "${_regex}")
    file(RELATIVE_PATH _rel ${PROJECT_SOURCE_DIR} ${f})
    foreach(d ${_defs})
      string(REGEX REPLACE ".*${_regex}.*" "\\1" _var "${d}")
      string(APPEND _spec_decls "namespace ${_ns} { extern const ${_type} ${_var}; }\n")
      string(APPEND _spec_checks
             "  ExpectRegistered(${_all}, &${_ns}::${_var}, \"${_var} (${_rel})\", \"${_registry}\");\n")
    endforeach()
  endforeach()
endforeach()
file(CONFIGURE OUTPUT ${_specs_source} CONTENT
"// Generated by tests/algorithms/tests.cmake from the spec definitions in
// core/src/algorithms/*.cc, core/src/replicas/*.cc, sim/workload/*.cc and
// sim/run/group_*.cc. Do not edit.
#include <gtest/gtest.h>

#include <algorithm>

#include \"chsim/algorithm.h\"
#include \"chsim/replica.h\"
#include \"sim/run/metric_group.h\"
#include \"sim/workload/workload.h\"

@_spec_decls@
namespace {

template <typename All, typename Spec>
void ExpectRegistered(All all, const Spec* spec, const char* what, const char* registry) {
  EXPECT_NE(std::find(all.begin(), all.end(), spec), all.end())
      << what << \" is defined but not registered: add &\" << what << \" to \" << registry;
}

TEST(Registry, EverySpecDefinedIsRegistered) {
@_spec_checks@}

}  // namespace
" @ONLY)
if(NOT CHSIM_RACE_RUN)  # one thread
  target_sources(chsim_algorithms_tests PRIVATE ${_specs_source})
endif()
