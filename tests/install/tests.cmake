# SPDX-License-Identifier: Apache-2.0
# The installed library from another project: cmake --install into a temporary
# prefix, then a consumer project that uses only find_package(chsim) and
# chsim::core (label install: a sanitizer build's library cannot be linked by a
# plain consumer, so the sanitizer runs skip it).
add_test(NAME install_consumer
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/install_test.sh ${CMAKE_BINARY_DIR} $<TARGET_FILE:chsim>)
set_tests_properties(install_consumer PROPERTIES LABELS install TIMEOUT ${CHSIM_HANG_S})
# The Debian package (cmake/packaging/package.cmake): cpack -G DEB, unpacked with dpkg -x into a
# scratch root, run from there (chsim --version and list, import chsim, the consumer above
# against the root), and its man page and bash completion checked to cover every subcommand
# and flag (tests/install/package_test.sh; label install, as above). It needs the full build
# (the Python module, the man page: help2man from scripts/install-deps --test).
add_test(NAME install_package_deb
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/package_test.sh ${CMAKE_BINARY_DIR} ${PROJECT_SOURCE_DIR})
set_tests_properties(install_package_deb PROPERTIES LABELS install TIMEOUT ${CHSIM_HANG_S})
