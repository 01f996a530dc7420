# SPDX-License-Identifier: Apache-2.0
# `chsim locate --replicas K` against independent Python readings, key for key
# (label replicas; tests/replicas/cli_replicas_test.py says what each reads):
#  - replicas.cli_walk: the ring walk over `chsim ring`'s points for every peer
#    profile whose key hash Python computes, and over the research ring rebuilt
#    in Python; K = 1 equals plain locate, --remove walks the smaller ring;
#  - replicas.cli_topk: the K highest rendezvous scores, equal and weighted;
#  - replicas.cli_salted: K distinct servers from jump over salted hashes;
#  - replicas.cli_crush: object names placed as osdmaptool placed them, through
#    --strategy crush --crush-map (tests/compat/golden-crush/);
#  - replicas.cli_bad_input: each refusal in one line with exit 2, naming the
#    accepted values from `chsim list --json`.
foreach(_test walk topk salted crush bad_input)
  add_test(NAME replicas.cli_${_test}
           COMMAND ${CHSIM_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/cli_replicas_test.py
                   $<TARGET_FILE:chsim> ${_test})
  set_tests_properties(replicas.cli_${_test} PROPERTIES LABELS replicas TIMEOUT ${CHSIM_HANG_S})
endforeach()
