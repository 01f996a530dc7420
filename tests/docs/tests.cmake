# SPDX-License-Identifier: Apache-2.0
# The worked examples of docs/extending.md (an algorithm, a metric group, a
# workload) are extracted from it at build time and compiled, so the guide
# cannot drift from the code (label docs):
#  - Example/Conformance.*: the two_choices algorithm example, judged by the
#    conformance kit (conformance_test.cc built over that one spec);
#  - Example/GroupKit.*: the hotspot group example, run by the group kit
#    (group_kit_test.cc built over that one group);
#  - ReadmeWorkload.*: the prefixed workload example, read and run through its
#    spec.
set(_ex_dir ${CMAKE_CURRENT_BINARY_DIR}/readme_examples)
set(_ex_sources ${_ex_dir}/two_choices.cc ${_ex_dir}/group_hotspot.cc
                ${_ex_dir}/workload_prefixed.cc)
add_custom_command(
  OUTPUT ${_ex_sources}
  COMMAND ${CHSIM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/docs/extract_examples.py
          ${PROJECT_SOURCE_DIR}/docs/extending.md ${_ex_dir} two_choices.cc group_hotspot.cc
          workload_prefixed.cc
  DEPENDS ${PROJECT_SOURCE_DIR}/docs/extending.md ${CMAKE_CURRENT_SOURCE_DIR}/docs/extract_examples.py
  COMMENT "Extracting docs/extending.md's worked examples")
add_executable(chsim_docs_tests ${CMAKE_CURRENT_SOURCE_DIR}/algorithms/conformance_test.cc
                                ${CMAKE_CURRENT_SOURCE_DIR}/sim/group_kit_test.cc
                                ${CMAKE_CURRENT_SOURCE_DIR}/docs/readme_workload_test.cc
                                ${_ex_sources})
target_compile_definitions(chsim_docs_tests PRIVATE CHSIM_CONFORMANCE_EXAMPLE=kTwoChoicesSpec
                                                    CHSIM_GROUP_KIT_EXAMPLE=kHotspotGroup)
chsim_test_program(chsim_docs_tests)
target_include_directories(chsim_docs_tests PRIVATE ${PROJECT_SOURCE_DIR}/core/src/algorithms
                                                    ${CMAKE_CURRENT_SOURCE_DIR}/algorithms)
# The group example includes sim/run/runner_internal.h, as every group does (Eigen).
find_package(Eigen3 3.3 REQUIRED NO_MODULE)
target_link_libraries(chsim_docs_tests PRIVATE chsim_sim chsim::core GTest::gtest_main
                                               Eigen3::Eigen chsim_warnings)
gtest_discover_tests(chsim_docs_tests DISCOVERY_TIMEOUT 120 PROPERTIES LABELS docs)
# README's opening figure exists, has a caption and is not stale against its JSON sidecar.
add_test(NAME docs_readme_figure
         COMMAND ${CHSIM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/docs/readme_figure_test.py
                 ${PROJECT_SOURCE_DIR})
set_tests_properties(docs_readme_figure PROPERTIES LABELS docs TIMEOUT 60)
# The guide's examples cannot shadow real specs: no source file defines a spec
# identifier that docs/extending.md's C++ examples define (they are linked into
# chsim_docs_tests beside the libraries, where a copy would silently win).
add_test(NAME docs_example_names
         COMMAND ${CHSIM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/docs/example_names.py
                 ${PROJECT_SOURCE_DIR})
set_tests_properties(docs_example_names PROPERTIES LABELS docs TIMEOUT 60)
# Every committed scenario's description says how long it takes, as README.md promises.
add_test(NAME docs_scenario_durations
         COMMAND ${CHSIM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/docs/scenario_durations.py
                 ${PROJECT_SOURCE_DIR})
set_tests_properties(docs_scenario_durations PROPERTIES LABELS docs TIMEOUT 60)
