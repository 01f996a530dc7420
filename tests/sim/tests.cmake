# SPDX-License-Identifier: Apache-2.0
# Script tests of the chsim command line (tests/sim/cli_test.py): JSON Schema
# validation from Python, determinism across thread counts, shard + merge,
# Ctrl-C, bad input, help, the plan from the command line, locate's flags and
# --remove, tune files against their schema. Included by tests/CMakeLists.txt.
if(TARGET chsim)
  foreach(t schemas determinism shard_merge interrupt bad_input help plan locate tune)
    add_test(NAME sim_cli_${t}
             COMMAND ${CHSIM_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/cli_test.py $<TARGET_FILE:chsim>
                     ${PROJECT_SOURCE_DIR} ${t})
    set_tests_properties(sim_cli_${t} PROPERTIES LABELS sim TIMEOUT ${CHSIM_HANG_S})
  endforeach()
  if(CHSIM_SANITIZER_RUN)  # the smaller twins (cli_test.py's SANITIZED)
    foreach(t schemas determinism shard_merge interrupt bad_input help plan locate tune)
      set_tests_properties(sim_cli_${t} PROPERTIES ENVIRONMENT CHSIM_TEST_SANITIZED=1)
    endforeach()
  endif()
endif()

# The cache replay against a plain Python LRU/FIFO over `chsim locate`'s
# mappings (tests/sim/cache_reference_test.py).
if(TARGET chsim)
  foreach(t twitter zipf)
    add_test(NAME sim_cache_reference_${t}
             COMMAND ${CHSIM_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/cache_reference_test.py
                     $<TARGET_FILE:chsim> ${PROJECT_SOURCE_DIR} ${t})
    set_tests_properties(sim_cache_reference_${t} PROPERTIES LABELS sim TIMEOUT ${CHSIM_HANG_S})
  endforeach()
endif()

# `chsim diff` against this script's own counts, overlays and formula
# (tests/sim/diff_test.py).
if(TARGET chsim)
  foreach(t keys exact exact64 modulo changes json bad_input)
    add_test(NAME sim_diff_${t}
             COMMAND ${CHSIM_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/diff_test.py $<TARGET_FILE:chsim>
                     ${PROJECT_SOURCE_DIR} ${t})
    set_tests_properties(sim_diff_${t} PROPERTIES LABELS sim TIMEOUT ${CHSIM_HANG_S})
  endforeach()
endif()

# Proxies' configurations as server lists: refusals, ignored directives, nginx's
# include, and every command reading them alike (tests/sim/config_test.py).
if(TARGET chsim)
  foreach(t bad_input ignored commands tune envoy include)
    add_test(NAME sim_config_${t}
             COMMAND ${CHSIM_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/config_test.py $<TARGET_FILE:chsim>
                     ${PROJECT_SOURCE_DIR} ${t})
    set_tests_properties(sim_config_${t} PROPERTIES LABELS sim TIMEOUT ${CHSIM_HANG_S})
  endforeach()
endif()
