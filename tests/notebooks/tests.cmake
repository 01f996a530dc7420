# Notebook tests (label `notebooks`): the loader's unit tests, and no committed notebook
# carries outputs. The notebooks themselves run end to end in tests/report/ (report_make).
add_test(NAME notebooks_loader
         COMMAND ${CHSIM_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/loader_test.py)
add_test(NAME notebooks_clean
         COMMAND ${CHSIM_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_clean.py
                 ${PROJECT_SOURCE_DIR}/notebooks
                 --expect balance remapping throughput tuning report)
set_tests_properties(notebooks_loader notebooks_clean PROPERTIES LABELS notebooks TIMEOUT ${CHSIM_HANG_S})
