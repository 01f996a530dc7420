# `chsim locate --algorithm NAME` serves every algorithm (label algorithms).
#  - cli_locate_*: 100 keys, KEY<TAB>SERVER for each, equal line for line to an
#    independent Python reference of the algorithm (cli_locate_reference.py:
#    the papers' definitions over libxxhash, none of chsim's code); the exit
#    status is checked too.
#  - cli_locate_refuses_weights_*: a weighted list on an unweighted algorithm is
#    exit 2 with one line naming the file, the algorithm and the node.
set(_alg_data ${CMAKE_CURRENT_SOURCE_DIR}/algorithms/data)
set(_alg_ref ${CMAKE_CURRENT_SOURCE_DIR}/algorithms/cli_locate_reference.py)
set(_expect ${CMAKE_CURRENT_SOURCE_DIR}/expect_run.py)
foreach(alg ring jump rendezvous maglev multi_probe bounded_load anchor memento modulo)
  add_test(NAME algorithms.cli_locate_${alg}
           COMMAND ${CHSIM_PYTHON} ${_alg_ref} $<TARGET_FILE:chsim> --algorithm ${alg}
                   --servers ${_alg_data}/servers.txt --keys ${_alg_data}/keys.txt)
endforeach()
foreach(alg ring rendezvous maglev)
  add_test(NAME algorithms.cli_locate_weighted_${alg}
           COMMAND ${CHSIM_PYTHON} ${_alg_ref} $<TARGET_FILE:chsim> --algorithm ${alg}
                   --servers ${_alg_data}/weighted.txt --keys ${_alg_data}/keys.txt)
endforeach()
foreach(alg jump multi_probe bounded_load anchor memento modulo)
  add_test(NAME algorithms.cli_locate_refuses_weights_${alg}
           COMMAND ${CHSIM_PYTHON} ${_expect} --exit 2
                   --stderr "^chsim: error: [^\n]*weighted\\.txt: ${alg} does not support weights \\(node '10\\.0\\.0\\.2:11211' has weight 3\\); use ring, ketama, rendezvous or maglev[^\n]*\n$"
                   -- $<TARGET_FILE:chsim> locate --servers ${_alg_data}/weighted.txt
                   --algorithm ${alg} ${_alg_data}/keys.txt)
endforeach()
add_test(NAME algorithms.cli_list_shows_algorithms
         COMMAND ${CHSIM_PYTHON} ${_expect} --exit 0
                 --stdout "  memento [^\n]*\n[^\n]*parameters: [^\n]*\n[^\n]*capabilities: arbitrary removal"
                 -- $<TARGET_FILE:chsim> list)
get_property(_alg_tests DIRECTORY PROPERTY TESTS)
list(FILTER _alg_tests INCLUDE REGEX "^algorithms\\.cli_")
set_tests_properties(${_alg_tests} PROPERTIES LABELS algorithms TIMEOUT 120)
