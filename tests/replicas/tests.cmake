# SPDX-License-Identifier: Apache-2.0
# `chsim locate --replicas K` against independent Python readings, key for key
# (label replicas; tests/replicas/cli_replicas_test.py says what each reads):
#  - replicas.cli_walk: the ring walk over `chsim ring`'s points for every peer
#    profile whose key hash Python computes, and over the research ring rebuilt
#    in Python; K = 1 equals plain locate, --remove walks the smaller ring;
#  - replicas.cli_topk: the K highest rendezvous scores, equal and weighted;
#  - replicas.cli_salted: K distinct servers from jump over salted hashes;
#  - replicas.cli_bad_input: each refusal in one line with exit 2, naming the
#    accepted values from `chsim list --json`.
foreach(_test walk topk salted bad_input)
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
