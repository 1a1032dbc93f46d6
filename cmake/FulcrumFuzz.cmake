# Coverage-guided fuzzing of the input parsers with libFuzzer (tests/fuzz/*_fuzz.cpp ->
# fuzz_<name>). Only with -DFULCRUM_FUZZ=ON and clang, in a build folder of its own
# (scripts/fuzz.sh uses build-fuzz): the whole build is instrumented so that coverage reaches
# into the parsers' libraries, and every sanitizer report aborts so libFuzzer records it.

if(NOT FULCRUM_FUZZ)
  return()
endif()

if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR
    "FULCRUM_FUZZ=ON needs clang (libFuzzer); the C++ compiler is ${CMAKE_CXX_COMPILER_ID}. "
    "Configure a separate build folder with CC=clang CXX=clang++, or run scripts/fuzz.sh.")
endif()

set(FULCRUM_FUZZ_SANITIZERS address,undefined)
add_compile_options(-fsanitize=fuzzer-no-link,${FULCRUM_FUZZ_SANITIZERS}
                    -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g)
add_link_options(-fsanitize=${FULCRUM_FUZZ_SANITIZERS})

# Each target names the libraries that hold the parser it drives; they are defined later by
# add_subdirectory, which target_link_libraries allows.
function(fulcrum_fuzz_target name)
  cmake_parse_arguments(ARG "" "" "DEPS" ${ARGN})
  add_executable(fuzz_${name} ${PROJECT_SOURCE_DIR}/tests/fuzz/${name}_fuzz.cpp)
  target_link_libraries(fuzz_${name} PRIVATE ${ARG_DEPS})
  target_compile_options(fuzz_${name} PRIVATE ${FULCRUM_WARNINGS} -fsanitize=fuzzer)
  target_link_options(fuzz_${name} PRIVATE -fsanitize=fuzzer)
  target_compile_definitions(fuzz_${name} PRIVATE
    FULCRUM_DATA_DIR="${FULCRUM_DATA_DIR}"
    FULCRUM_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  set_target_properties(fuzz_${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/fuzz)
endfunction()

fulcrum_fuzz_target(scenario DEPS fulcrum_sim_config)
fulcrum_fuzz_target(overrides DEPS fulcrum_sim_config)
fulcrum_fuzz_target(trace DEPS fulcrum_sim_config)
fulcrum_fuzz_target(profile_csv DEPS fulcrum_models_perf)
fulcrum_fuzz_target(workload_file DEPS fulcrum_sim_config)

add_custom_target(fuzzers DEPENDS fuzz_scenario fuzz_overrides fuzz_trace fuzz_profile_csv
  fuzz_workload_file)
