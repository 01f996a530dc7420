# SPDX-License-Identifier: Apache-2.0
# The Python module's tests (pytest, Debian's python3-pytest), when the module is built:
# one CTest per file, each run by pytest_main.py (pytest's exit 5, "no tests collected", is a
# failure there). Label python: the sanitizer builds leave them out (a sanitized module
# cannot be loaded by python3; they build none).
if(CHSIM_PYTHON_DIR)
  file(GLOB python_tests CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/test_*.py)
  foreach(t ${python_tests})
    get_filename_component(name ${t} NAME_WE)
    string(REPLACE "test_" "python_" name ${name})
    add_test(NAME ${name} COMMAND ${CHSIM_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/pytest_main.py ${t})
    set_tests_properties(${name} PROPERTIES LABELS python TIMEOUT ${CHSIM_HANG_S} ENVIRONMENT
      "PYTHONPATH=${CHSIM_PYTHON_DIR};CHSIM=$<TARGET_FILE:chsim>;CHSIM_SOURCE=${PROJECT_SOURCE_DIR}")
  endforeach()
endif()
