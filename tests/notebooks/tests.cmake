# SPDX-License-Identifier: Apache-2.0
# Notebook tests (label `notebooks`): the notebooks' package's unit tests, its theory against
# chsim's, and no committed notebook carries outputs. The notebooks themselves run end to end in tests/report/ (report_make).
add_test(NAME notebooks_loader
         COMMAND ${CHSIM_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/loader_test.py)
add_test(NAME notebooks_clean
         COMMAND ${CHSIM_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_clean.py
                 ${PROJECT_SOURCE_DIR}/notebooks
                 --expect balance remapping throughput tuning report python_api cache replicas)
# The notebooks' ring-balance theory against chsim's theory rows and tune's analytic answer.
add_test(NAME notebooks_theory_matches_chsim
         COMMAND ${CHSIM_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/theory_test.py $<TARGET_FILE:chsim>)
# The report's generic table groups metrics by the catalog's groups, whatever their prefix.
add_test(NAME notebooks_report_groups
         COMMAND ${CHSIM_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/report_groups_test.py $<TARGET_FILE:chsim>)
set_tests_properties(notebooks_loader notebooks_clean notebooks_theory_matches_chsim
                     notebooks_report_groups PROPERTIES LABELS notebooks TIMEOUT ${CHSIM_HANG_S})
# The package's catalog (labels, colours) comes from this build's chsim, so the test
# needs no other build of the checkout (a sanitizer build alone has only its own).
if(TARGET chsim)
  set_tests_properties(notebooks_loader PROPERTIES ENVIRONMENT "CHSIM=$<TARGET_FILE:chsim>")
endif()
# The report's proxies answer over a 2-trial run of scenarios/proxies.json, and that scenario
# naming every proxy profile the proxy goldens prove.
if(TARGET chsim)
  add_test(NAME notebooks_proxies_answer
           COMMAND ${CHSIM_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/proxies_answer_test.py
                   $<TARGET_FILE:chsim> ${PROJECT_SOURCE_DIR})
  set_tests_properties(notebooks_proxies_answer PROPERTIES LABELS notebooks
                       TIMEOUT ${CHSIM_HANG_S})
  if(CHSIM_SANITIZER_RUN)  # the smaller twin (proxies_answer_test.py)
    set_tests_properties(notebooks_proxies_answer PROPERTIES ENVIRONMENT CHSIM_TEST_SANITIZED=1)
  endif()
endif()
