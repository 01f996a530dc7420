# Self-tests of scripts/bench-gate (label `gate`). The end-to-end case under
# valgrind, and the gate itself, are registered in bench/CMakeLists.txt.
add_test(NAME gate_selftest
         COMMAND ${CHSIM_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/gate_selftest.py
                 ${PROJECT_SOURCE_DIR}/scripts/bench-gate)
set_tests_properties(gate_selftest PROPERTIES LABELS gate TIMEOUT 300)
