# SPDX-License-Identifier: Apache-2.0
# Compatibility with the real peers (label compat):
#  - compat_golden: chsim locate/ring against every golden file, key for key.
#  - compat_generate_check: reruns the generator against the live peers
#    (spymemcached, libmemcached, uhashring, nutcracker + memcached, Guava) and
#    fails if the committed golden files differ: the golden data is provably
#    the peers' own.
add_test(NAME compat_golden
         COMMAND ${CHSIM_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_golden.py --chsim $<TARGET_FILE:chsim>)
add_test(NAME compat_generate_check COMMAND ${CMAKE_CURRENT_LIST_DIR}/generate --check)
set_tests_properties(compat_golden compat_generate_check PROPERTIES LABELS compat TIMEOUT ${CHSIM_HANG_S})
# check_golden.py fails (never skips) on missing, empty or unnamed golden data.
add_test(NAME compat_check_golden_selftest
         COMMAND ${CHSIM_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_golden_selftest.py
                 $<TARGET_FILE:chsim>)
set_tests_properties(compat_check_golden_selftest PROPERTIES LABELS compat TIMEOUT ${CHSIM_HANG_S})
# jumpback_anchor against hash4j live (label compat): tests/compat/generate-hash4j compiles
# peers/Hash4jDriver.java against the hash4j snapshot named by CHSIM_HASH4J_SNAPSHOT (a git
# directory or checkout, read at test time), checks that hash4j rewrites
# golden-hash4j/jumpback_anchor.txt byte for byte, and replays its fresh output through
# chsim_algorithms_tests (Hash4jGolden.*). Skipped (exit 77) without a snapshot; the committed
# golden is replayed everywhere by tests/algorithms/jumpback_anchor_hash4j_test.cc.
add_test(NAME compat_hash4j_live
         COMMAND ${CHSIM_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/generate-hash4j --check
                 --replay $<TARGET_FILE:chsim_algorithms_tests>)
set_tests_properties(compat_hash4j_live PROPERTIES LABELS compat TIMEOUT ${CHSIM_HANG_S}
                     SKIP_RETURN_CODE 77)
# The proxies (label compat): chsim against the goldens nginx wrote
# (tests/compat/generate-proxies), and a rerun of that generator against the
# installed programs on 127.0.0.1, which fails if the committed goldens differ.
add_test(NAME compat_proxies_golden
         COMMAND ${CHSIM_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_golden.py --chsim $<TARGET_FILE:chsim>
                 --golden ${CMAKE_CURRENT_LIST_DIR}/golden-proxies)
add_test(NAME compat_proxies_generate_check COMMAND ${CMAKE_CURRENT_LIST_DIR}/generate-proxies --check)
set_tests_properties(compat_proxies_golden compat_proxies_generate_check
                     PROPERTIES LABELS compat TIMEOUT ${CHSIM_HANG_S})
# CRUSH (label compat): a rerun of tests/compat/generate-crush against the installed crushtool
# and osdmaptool (ceph-base), which fails if the committed golden-crush/ differs. The goldens
# themselves are replayed in the normal run by chsim_core_tests (CrushGolden.*) and
# chsim_replicas_tests (CrushStrategy.*).
add_test(NAME compat_crush_generate_check COMMAND ${CMAKE_CURRENT_LIST_DIR}/generate-crush --check)
set_tests_properties(compat_crush_generate_check PROPERTIES LABELS compat TIMEOUT ${CHSIM_HANG_S})
# CRUSH maps chsim refuses, each against crushtool -c on the same text (label compat;
# tests/compat/crush_refusals.py): one line naming the file and line, exit 2; crushtool refuses
# the same maps, except those chsim does not model or finds ambiguous, which it compiles.
add_test(NAME compat_crush_refusals
         COMMAND ${CHSIM_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/crush_refusals.py $<TARGET_FILE:chsim>)
set_tests_properties(compat_crush_refusals PROPERTIES LABELS compat TIMEOUT ${CHSIM_HANG_S})
# The proxies' own configurations (label compat): the nginx.conf and VCL that
# generate-proxies ran, read by chsim (--servers FILE:BLOCK, the profile they
# imply), map keys as nginx and varnishd answered (tests/compat/check_configs.py).
add_test(NAME compat_proxies_configs
         COMMAND ${CHSIM_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_configs.py --chsim $<TARGET_FILE:chsim>)
set_tests_properties(compat_proxies_configs PROPERTIES LABELS compat TIMEOUT ${CHSIM_HANG_S})
# Envoy and Jedis (label compat): generate-upstream --check rereads the upstream tests from the
# snapshots CHSIM_ENVOY_SNAPSHOT and CHSIM_JEDIS_SNAPSHOT name and fails if golden-upstream/
# differs; skipped (77) without them. tests/core/upstream_golden_test.cc replays the goldens.
add_test(NAME compat_upstream_generate_check
         COMMAND ${CHSIM_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/generate-upstream --check)
set_tests_properties(compat_upstream_generate_check PROPERTIES LABELS compat
                     TIMEOUT ${CHSIM_HANG_S} SKIP_RETURN_CODE 77)
