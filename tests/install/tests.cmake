# SPDX-License-Identifier: Apache-2.0
# The installed library from another project: cmake --install into a temporary
# prefix, then a consumer project that uses only find_package(chsim) and
# chsim::core (label install: a sanitizer build's library cannot be linked by a
# plain consumer, so the sanitizer runs skip it).
add_test(NAME install_consumer
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/install_test.sh ${CMAKE_BINARY_DIR} $<TARGET_FILE:chsim>)
set_tests_properties(install_consumer PROPERTIES LABELS install TIMEOUT ${CHSIM_HANG_S})
