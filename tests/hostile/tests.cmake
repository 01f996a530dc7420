# SPDX-License-Identifier: Apache-2.0
# Hostile inputs, faults and scale (tests/hostile/README.md).
#  - hostile_table: hostile.py, one row per bad input (label hostile).
#  - hostile_big: the rows that stream a 1 GB line or write 10^6-server
#    lists (labels hostile, scale: seconds and memory, so sanitizer runs skip them).
#  - hostile_kill: a forced clean stop per signal (exit 128+SIG and its line),
#    then SIGINT/SIGTERM at seeded random moments of `chsim run`; the result
#    file is whole or absent, no temporary file is left (label hostile).
#  - chsim_scale_tests: 100,000 nodes under every profile and algorithm
#    (labels scale, slow).
add_test(NAME hostile_table
         COMMAND ${CHSIM_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/hostile.py $<TARGET_FILE:chsim>
                 --skip-tag big)
add_test(NAME hostile_big
         COMMAND ${CHSIM_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/hostile.py $<TARGET_FILE:chsim>
                 --tag big)
# Under a sanitizer (5-10x slower) the twin runs 25,000 keys and a 20 s trial
# budget: the delays scale with its own baseline, so the signals still land
# while loading, mid-case and while writing, and every check is the same; the
# sanitizers look for what a signal does to memory and threads, which ten
# trials show as well as thirty.
set(_kill_size --trials 30)
if(CHSIM_SANITIZER_RUN)
  set(_kill_size --trials 30 --keys 25000 --budget 20)
endif()
add_test(NAME hostile_kill
         COMMAND ${CHSIM_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/kill_test.py $<TARGET_FILE:chsim>
                 ${_kill_size})
set_tests_properties(hostile_table hostile_kill PROPERTIES LABELS hostile TIMEOUT ${CHSIM_HANG_S})
set_tests_properties(hostile_big PROPERTIES LABELS "hostile;scale" TIMEOUT ${CHSIM_HANG_S})

if(NOT CHSIM_SANITIZER_RUN)  # minutes x 3-15 under a sanitizer; the release run covers it
  add_executable(chsim_scale_tests ${CMAKE_CURRENT_LIST_DIR}/scale_test.cc)
  target_link_libraries(chsim_scale_tests PRIVATE chsim_sim chsim::core GTest::gtest_main
                                                  chsim_warnings)
  chsim_test_program(chsim_scale_tests)
  add_test(NAME chsim_scale_tests COMMAND chsim_scale_tests)
  set_tests_properties(chsim_scale_tests PROPERTIES LABELS "scale;slow" TIMEOUT ${CHSIM_HANG_LONG_S})
endif()
