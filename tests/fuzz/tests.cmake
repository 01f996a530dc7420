# Fuzz targets. In every build, each target is linked with replay_main.cc and
# CTest replays its committed corpus (label fuzz). With clang and
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
  add_test(NAME ${target}_corpus
           COMMAND ${target}_replay ${CMAKE_CURRENT_LIST_DIR}/corpus/${corpus})
  set_tests_properties(${target}_corpus PROPERTIES LABELS fuzz)
  if(CHSIM_FUZZ)
    add_executable(${target} ${src})
    target_compile_options(${target} PRIVATE -fsanitize=fuzzer,address,undefined)
    target_link_options(${target} PRIVATE -fsanitize=fuzzer,address,undefined)
    target_link_libraries(${target} PRIVATE chsim_sim chsim::core)
  endif()
endforeach()
