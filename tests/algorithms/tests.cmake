# `chsim locate --algorithm NAME` serves every algorithm (label algorithms).
#  - cli_locate_every_algorithm: for each algorithm `chsim list` names (no list
#    here: a new one without a reference fails), 100 keys over 3 and over 37
#    servers, KEY<TAB>SERVER for each, equal line for line to an independent
#    Python reference of the algorithm (cli_locate_reference.py: the papers'
#    definitions over libxxhash, none of chsim's code); the weighted list is
#    located likewise by algorithms with weights and refused by the others
#    (exit 2, one line naming the file, the algorithm and the node).
set(_alg_data ${CMAKE_CURRENT_SOURCE_DIR}/algorithms/data)
set(_alg_ref ${CMAKE_CURRENT_SOURCE_DIR}/algorithms/cli_locate_reference.py)
set(_expect ${CMAKE_CURRENT_SOURCE_DIR}/expect_run.py)
add_test(NAME algorithms.cli_locate_every_algorithm
         COMMAND ${CHSIM_PYTHON} ${_alg_ref} $<TARGET_FILE:chsim> --every-algorithm
                 --servers ${_alg_data}/servers.txt --weighted ${_alg_data}/weighted.txt
                 --keys ${_alg_data}/keys.txt)
add_test(NAME algorithms.cli_list_shows_algorithms
         COMMAND ${CHSIM_PYTHON} ${_expect} --exit 0
                 --stdout "  memento [^\n]*\n[^\n]*parameters: [^\n]*\n[^\n]*capabilities: arbitrary removal"
                 -- $<TARGET_FILE:chsim> list)
get_property(_alg_tests DIRECTORY PROPERTY TESTS)
list(FILTER _alg_tests INCLUDE REGEX "^algorithms\\.cli_")
set_tests_properties(${_alg_tests} PROPERTIES LABELS algorithms TIMEOUT ${CHSIM_HANG_S})
