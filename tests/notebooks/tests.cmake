# Notebook tests (label `notebooks`): the loader's unit tests; no committed notebook carries
# outputs; and, end to end, the freshly built chsim runs the short scenarios here, then
# scripts/make-report executes every notebook on them (Debian's python3 kernel) and the test
# checks every figure and the report (tests/notebooks/notebooks_test.py).
add_test(NAME notebooks_loader
         COMMAND ${CHSIM_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/loader_test.py)
add_test(NAME notebooks_clean
         COMMAND ${CHSIM_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_clean.py
                 ${PROJECT_SOURCE_DIR}/notebooks
                 --expect balance remapping throughput tuning report)
add_test(NAME notebooks_execute
         COMMAND ${CHSIM_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/notebooks_test.py
                 --chsim $<TARGET_FILE:chsim> --source ${PROJECT_SOURCE_DIR}
                 --work ${CMAKE_BINARY_DIR}/notebooks-test)
set_tests_properties(notebooks_loader notebooks_clean PROPERTIES LABELS notebooks TIMEOUT 60)
set_tests_properties(notebooks_execute PROPERTIES LABELS notebooks TIMEOUT 600)
