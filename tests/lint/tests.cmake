# Source checks that keep a rule true (label lint): no function in core/ or
# sim/ longer than about 120 lines (scripts/check-function-length; < 1 s).
add_test(NAME lint_function_length
         COMMAND ${CHSIM_PYTHON} ${PROJECT_SOURCE_DIR}/scripts/check-function-length
                 ${PROJECT_SOURCE_DIR})
set_tests_properties(lint_function_length PROPERTIES LABELS lint TIMEOUT 60)
