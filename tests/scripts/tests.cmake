# SPDX-License-Identifier: Apache-2.0
# The Python scripts' shared helpers (tests/scripts/tools_test.py; < 1 s):
# finding chsim in one order, writing files whole or not at all, and no script
# keeping its own copy of either.
add_test(NAME scripts_tools
         COMMAND ${CHSIM_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/tools_test.py ${PROJECT_SOURCE_DIR})
set_tests_properties(scripts_tools PROPERTIES LABELS lint TIMEOUT ${CHSIM_HANG_S})

# scripts/regenerate, the one command behind every document made from the specs
# (tests/scripts/regenerate_test.py; < 2 s): --check agrees with the staleness
# tests on the checkout, names a stale document, and a run restores it.
if(TARGET chsim)
  add_test(NAME scripts_regenerate
           COMMAND ${CHSIM_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/regenerate_test.py ${PROJECT_SOURCE_DIR}
                   $<TARGET_FILE:chsim>)
  set_tests_properties(scripts_regenerate PROPERTIES LABELS lint TIMEOUT ${CHSIM_HANG_S})
endif()
