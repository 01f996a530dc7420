# SPDX-License-Identifier: Apache-2.0
# chsim as a Debian package: `cpack -G DEB` in the build folder (after a full build) writes
# chsim_VERSION_amd64.deb with the chsim binary, the library with its headers and CMake
# package, the Python module in /usr/lib/python3/dist-packages, the scenario schema
# (/usr/share/chsim/scenario-schema.json), the man page chsim(1) and bash completion. Its
# dependencies are found by dpkg-shlibdeps; only what shlibdeps cannot see (the Python
# interpreter and numpy, which the module imports) is named here.
find_program(CHSIM_HELP2MAN help2man)
# Not in a sanitizer build: no package is made from it, and its chsim's leak report at exit
# would fail help2man.
if(CHSIM_HELP2MAN AND TARGET chsim AND NOT CHSIM_SANITIZER_RUN)
  # chsim(1) from chsim's own help text (cmake/packaging/make-man), redrawn whenever chsim relinks.
  set(_man ${CMAKE_BINARY_DIR}/packaging/chsim.1)
  add_custom_command(OUTPUT ${_man}
                     COMMAND ${CMAKE_CURRENT_LIST_DIR}/make-man $<TARGET_FILE:chsim> ${_man}
                     DEPENDS chsim ${CMAKE_CURRENT_LIST_DIR}/make-man
                     COMMENT "Writing the man page chsim(1) from chsim --help" VERBATIM)
  add_custom_target(chsim_man ALL DEPENDS ${_man})
  install(FILES ${_man} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
else()
  message(STATUS "chsim man page: off (a sanitizer build, or no help2man: install-deps --test)")
endif()
install(FILES ${CMAKE_CURRENT_LIST_DIR}/chsim.bash
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME chsim)
install(FILES ${PROJECT_SOURCE_DIR}/scenarios/schema.json
        DESTINATION ${CMAKE_INSTALL_DATADIR}/chsim RENAME scenario-schema.json)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME chsim)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "chsim developers <chsim@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "simulate and benchmark consistent hashing (Ketama and its successors)")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # chsim_VERSION_amd64.deb
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "python3, python3-numpy")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
include(CPack)
