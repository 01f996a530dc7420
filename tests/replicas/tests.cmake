# SPDX-License-Identifier: Apache-2.0
# `chsim locate --replicas K` against independent Python readings, key for key
# (label replicas; tests/replicas/cli_replicas_test.py says what each reads):
#  - replicas.cli_walk: the ring walk over `chsim ring`'s points for every peer
#    profile whose key hash Python computes, and over the research ring rebuilt
#    in Python; K = 1 equals plain locate, --remove walks the smaller ring;
#  - replicas.cli_topk: the K highest rendezvous scores, equal and weighted;
#  - replicas.cli_salted: K distinct servers from jump over salted hashes;
#  - replicas.cli_nts: Cassandra NetworkTopologyStrategy ported from its source, both rack rules,
#    over zones and racks; replicas.cli_topk_domain: rendezvous over racks, then nodes;
#    replicas.cli_choosek: ConsistentChooseK's recurrence over jump;
#  - replicas.cli_crush: object names placed as osdmaptool placed them, through
#    --strategy crush --crush-map (tests/compat/golden-crush/);
#  - replicas.cli_bad_input: each refusal in one line with exit 2, naming the
#    accepted values from `chsim list --json`.
foreach(_test walk topk salted nts topk_domain choosek crush bad_input)
  add_test(NAME replicas.cli_${_test}
           COMMAND ${CHSIM_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/cli_replicas_test.py
                   $<TARGET_FILE:chsim> ${_test})
  set_tests_properties(replicas.cli_${_test} PROPERTIES LABELS replicas TIMEOUT ${CHSIM_HANG_S})
endforeach()

# The replicas metric group and `chsim tune --replicas` against counts made in
# Python from `chsim locate --replicas` and from the research ring's arcs
# (tests/replicas/replicas_group_test.py says what each reads):
#  - replicas.group_churn: balance, churn, fan-in/out, copysets, scatter width;
#  - replicas.group_loss: the loss by brute force over every failure set;
#  - replicas.group_tune: copy shares, copysets and scatter width over the arcs.
foreach(_test churn loss tune)
  add_test(NAME replicas.group_${_test}
           COMMAND ${CHSIM_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/replicas_group_test.py
                   $<TARGET_FILE:chsim> ${_test})
  set_tests_properties(replicas.group_${_test} PROPERTIES LABELS replicas TIMEOUT ${CHSIM_HANG_S})
endforeach()

# Failure domains as a user meets them (label replicas; tests/replicas/cli_topology_test.py):
#  - replicas.cli_topology_server_list: domain columns change nothing else a server list says,
#    and a bad column is refused naming its line;
#  - replicas.cli_topology_locate_domain: locate --replicas K --domain rack against a Python walk
#    with the rack rule over `chsim ring`'s points;
#  - replicas.cli_topology_scenario: generated racks and zones, whole-domain failures and their
#    refusals in validate and run alike.
foreach(_test server_list locate_domain scenario)
  add_test(NAME replicas.cli_topology_${_test}
           COMMAND ${CHSIM_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/cli_topology_test.py
                   $<TARGET_FILE:chsim> ${_test})
  set_tests_properties(replicas.cli_topology_${_test} PROPERTIES LABELS replicas
                                                          TIMEOUT ${CHSIM_HANG_S})
endforeach()

# The Python module's side (label replicas and python, when the module is built):
# chsim.topology(), Algorithm.domains and add's domains, locate_replicas against Python
# rankings and walks and against `chsim locate --replicas` (test_module_replicas.py).
if(CHSIM_PYTHON_DIR)
  add_test(NAME replicas.python_module
           COMMAND ${CHSIM_PYTHON} ${PROJECT_SOURCE_DIR}/tests/python/pytest_main.py
                   ${CMAKE_CURRENT_LIST_DIR}/test_module_replicas.py)
  set_tests_properties(replicas.python_module PROPERTIES LABELS "replicas;python"
    TIMEOUT ${CHSIM_HANG_S} ENVIRONMENT
    "PYTHONPATH=${CHSIM_PYTHON_DIR};CHSIM=$<TARGET_FILE:chsim>;CHSIM_SOURCE=${PROJECT_SOURCE_DIR}")
endif()
