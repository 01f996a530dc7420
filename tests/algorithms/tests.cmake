# `chsim locate --algorithm NAME` serves every algorithm (label algorithms):
# 100 keys on three servers, each line KEY<TAB>SERVER; and the refusals exit 2.
set(_alg_data ${CMAKE_CURRENT_SOURCE_DIR}/algorithms/data)
foreach(alg ring jump rendezvous maglev multi_probe bounded_load anchor memento modulo)
  add_test(NAME algorithms.cli_locate_${alg}
           COMMAND chsim locate --servers ${_alg_data}/servers.txt --algorithm ${alg}
                   ${_alg_data}/keys.txt)
  set_tests_properties(algorithms.cli_locate_${alg} PROPERTIES LABELS algorithms
                       PASS_REGULAR_EXPRESSION "key:0\t10\\.0\\.0\\.[123]:11211\n(.*\n)*key:99\t10\\.0\\.0\\.[123]:11211\n")
endforeach()
foreach(alg ring rendezvous maglev)
  add_test(NAME algorithms.cli_locate_weighted_${alg}
           COMMAND chsim locate --servers ${_alg_data}/weighted.txt --algorithm ${alg}
                   ${_alg_data}/keys.txt)
  set_tests_properties(algorithms.cli_locate_weighted_${alg} PROPERTIES LABELS algorithms
                       PASS_REGULAR_EXPRESSION "key:99\t10\\.0\\.0\\.[12]:11211\n")
endforeach()
# Weights on jump: a one-line usage error (exit 2) naming the file.
add_test(NAME algorithms.cli_locate_jump_refuses_weights
         COMMAND chsim locate --servers ${_alg_data}/weighted.txt --algorithm jump
                 ${_alg_data}/keys.txt)
set_tests_properties(algorithms.cli_locate_jump_refuses_weights PROPERTIES LABELS algorithms
                     WILL_FAIL TRUE)
add_test(NAME algorithms.cli_list_shows_algorithms COMMAND chsim list)
set_tests_properties(algorithms.cli_list_shows_algorithms PROPERTIES LABELS algorithms
                     PASS_REGULAR_EXPRESSION "  memento [^\n]*\n[^\n]*parameters: [^\n]*\n[^\n]*capabilities: arbitrary removal")
# (A nested "(.*\n)*" here made CMake's backtracking regex spin for minutes.)
