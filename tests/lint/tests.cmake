# SPDX-License-Identifier: Apache-2.0
# Source checks that keep a rule true (label lint): no function in core/ or
# sim/ longer than 80 lines, the SIMD MD5 kernel aside (scripts/check-function-length; < 1 s).
add_test(NAME lint_function_length
         COMMAND ${CHSIM_PYTHON} ${PROJECT_SOURCE_DIR}/scripts/check-function-length
                 ${PROJECT_SOURCE_DIR})
set_tests_properties(lint_function_length PROPERTIES LABELS lint TIMEOUT ${CHSIM_HANG_S})
# README is a guide (at most 350 lines); README, docs, comments and test names carry no
# issue numbers; every source file names its licence (scripts/check-house-rules; < 1 s).
add_test(NAME lint_house_rules
         COMMAND ${CHSIM_PYTHON} ${PROJECT_SOURCE_DIR}/scripts/check-house-rules
                 ${PROJECT_SOURCE_DIR})
set_tests_properties(lint_house_rules PROPERTIES LABELS lint TIMEOUT ${CHSIM_HANG_S})

# Includes and citations (tests/lint/source_rules.py; < 1 s): sim headers are
# named from the repository root, *_internal.h headers stay in their folder,
# and comments cite only files in the repository (docs/design.md's headings).
add_test(NAME lint_source_rules
         COMMAND ${CHSIM_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/source_rules.py ${PROJECT_SOURCE_DIR})
set_tests_properties(lint_source_rules PROPERTIES LABELS lint TIMEOUT ${CHSIM_HANG_S})

# Algorithm names live in one place (tests/lint/algorithm_names.py; < 1 s): each
# registered algorithm is named only in its own file, its registry row, tests,
# scenarios, docs and the exceptions the script lists with their reasons.
add_test(NAME lint_algorithm_names
         COMMAND ${CHSIM_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/algorithm_names.py ${PROJECT_SOURCE_DIR})
set_tests_properties(lint_algorithm_names PROPERTIES LABELS lint TIMEOUT ${CHSIM_HANG_S})

# Every catalog row of a metric group is written by a Metric("...") of its own
# file (tests/lint/metric_rows.py; < 1 s): a row no hook writes is named.
add_test(NAME lint_metric_rows
         COMMAND ${CHSIM_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/metric_rows.py ${PROJECT_SOURCE_DIR})
set_tests_properties(lint_metric_rows PROPERTIES LABELS lint TIMEOUT ${CHSIM_HANG_S})

# The public headers of chsim::core are self-contained: each compiles alone
# with only core/include (and system headers) on the include path, so no
# private (core/src) or sim header is reachable from them. Built with the
# tests; a header that needs more fails the build (not in sanitizer builds: it
# compiles, runs nothing, and the release build has checked it).
if(NOT CHSIM_SANITIZER_RUN)
  file(GLOB_RECURSE _public_headers CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/core/include/chsim/*.h)
  set(_header_sources)
  foreach(h ${_public_headers})
    file(RELATIVE_PATH rel ${PROJECT_SOURCE_DIR}/core/include ${h})
    string(MAKE_C_IDENTIFIER ${rel} id)
    set(src ${CMAKE_CURRENT_BINARY_DIR}/public_headers/${id}.cc)
    file(CONFIGURE OUTPUT ${src} CONTENT "#include \"${rel}\"\n#include \"${rel}\"  // include guard\n")
    list(APPEND _header_sources ${src})
  endforeach()
  add_library(chsim_public_headers OBJECT ${_header_sources})
  target_include_directories(chsim_public_headers PRIVATE ${PROJECT_SOURCE_DIR}/core/include)
  target_compile_features(chsim_public_headers PRIVATE cxx_std_20)
  target_link_libraries(chsim_public_headers PRIVATE chsim_warnings)
endif()
