# SPDX-License-Identifier: Apache-2.0
# Fuzz targets. In every build, each target is linked with replay_main.cc and
# CTest replays its committed corpus (label fuzz): every file, or it fails. With clang and
# -DCHSIM_FUZZ=ON, real libFuzzer binaries fuzz_<target> are built too:
#   CC=clang CXX=clang++ cmake -S . -B build/fuzz -DCHSIM_FUZZ=ON -DCHSIM_BUILD_BENCH=OFF
#   build/fuzz/tests/fuzz_ring tests/fuzz/corpus/ring -max_total_time=600
option(CHSIM_FUZZ "Build libFuzzer targets (clang only)" OFF)
file(GLOB chsim_fuzz_sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/fuzz_*.cc)
foreach(src ${chsim_fuzz_sources})
  get_filename_component(target ${src} NAME_WE)
  string(REPLACE "fuzz_" "" corpus ${target})
  add_executable(${target}_replay ${src} ${CMAKE_CURRENT_LIST_DIR}/replay_main.cc)
  target_link_libraries(${target}_replay PRIVATE chsim_sim chsim::core chsim_warnings)
  chsim_test_program(${target}_replay)
  # Every committed input must be replayed: the count at configure time is the floor.
  file(GLOB_RECURSE corpus_files CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/corpus/${corpus}/*)
  list(LENGTH corpus_files corpus_count)
  if(corpus_count EQUAL 0)
    message(FATAL_ERROR "tests/fuzz/corpus/${corpus}: no committed inputs for ${target}")
  endif()
  add_test(NAME ${target}_corpus
           COMMAND ${target}_replay --min-inputs ${corpus_count}
                   ${CMAKE_CURRENT_LIST_DIR}/corpus/${corpus})
  set_tests_properties(${target}_corpus PROPERTIES LABELS fuzz)
  if(CHSIM_FUZZ)
    add_executable(${target} ${src})
    target_compile_options(${target} PRIVATE -fsanitize=fuzzer,address,undefined)
    target_link_options(${target} PRIVATE -fsanitize=fuzzer,address,undefined)
    target_link_libraries(${target} PRIVATE chsim_sim chsim::core)
  endif()
endforeach()

# The replayer itself refuses what would let a lost corpus pass: a missing path,
# an empty directory, fewer inputs than the corpus holds.
set(_replay $<TARGET_FILE:fuzz_ring_replay>)
add_test(NAME fuzz_replay_refuses_a_missing_corpus
         COMMAND ${CHSIM_PYTHON} ${PROJECT_SOURCE_DIR}/tests/expect_run.py --exit 1
                 --stderr "replay: error: .*no-such-corpus: no such file or directory"
                 -- ${_replay} ${CMAKE_CURRENT_BINARY_DIR}/no-such-corpus)
add_test(NAME fuzz_replay_refuses_an_empty_directory
         COMMAND ${CHSIM_PYTHON} ${PROJECT_SOURCE_DIR}/tests/expect_run.py --exit 1
                 --stderr "replay: error: .*: an empty corpus directory"
                 -- ${_replay} ${CMAKE_CURRENT_BINARY_DIR}/empty-corpus)
file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/empty-corpus)
add_test(NAME fuzz_replay_refuses_fewer_inputs
         COMMAND ${CHSIM_PYTHON} ${PROJECT_SOURCE_DIR}/tests/expect_run.py --exit 1
                 --stderr "replayed 1 inputs; the corpus holds at least 2"
                 -- ${_replay} --min-inputs 2 ${CMAKE_CURRENT_LIST_DIR}/scenario.dict)
set_tests_properties(fuzz_replay_refuses_a_missing_corpus fuzz_replay_refuses_an_empty_directory
                     fuzz_replay_refuses_fewer_inputs PROPERTIES LABELS fuzz)

# The fuzz dictionary is made from the catalog (tests/fuzz/make_dict.py): the
# committed copy must be current.
if(TARGET chsim)
  add_test(NAME fuzz_dictionary_is_current
           COMMAND ${CHSIM_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/make_dict.py $<TARGET_FILE:chsim>
                   --check ${CMAKE_CURRENT_LIST_DIR}/scenario.dict)
  set_tests_properties(fuzz_dictionary_is_current PROPERTIES LABELS fuzz TIMEOUT ${CHSIM_HANG_S})
endif()
