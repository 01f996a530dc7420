# SPDX-License-Identifier: Apache-2.0
# The Python scripts' shared helpers (tests/scripts/tools_test.py; < 1 s):
# finding chsim in one order, writing files whole or not at all, and no script
# keeping its own copy of either.
add_test(NAME scripts_tools
         COMMAND ${CHSIM_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/tools_test.py ${PROJECT_SOURCE_DIR})
set_tests_properties(scripts_tools PROPERTIES LABELS lint TIMEOUT ${CHSIM_HANG_S})
