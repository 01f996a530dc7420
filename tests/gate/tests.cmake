# SPDX-License-Identifier: Apache-2.0
# Self-tests of scripts/bench-gate (label `gate`) that need no valgrind and no
# build: everything but the class EndToEnd. The end-to-end cases under
# valgrind, and the gate itself, are registered in bench/CMakeLists.txt.
add_test(NAME gate_selftest
         COMMAND ${CHSIM_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/gate_selftest.py
                 ${PROJECT_SOURCE_DIR}/scripts/bench-gate
                 CompareCounts ObjectCosts CTestSkips MannWhitney AbMode)
set_tests_properties(gate_selftest PROPERTIES LABELS gate TIMEOUT ${CHSIM_HANG_S})
