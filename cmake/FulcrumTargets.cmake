# One library per source folder. Sources are the folder's own *.cpp files (not its sub-folders);
# a folder with only headers becomes an INTERFACE library. Tests and benches mirror the tree:
# tests/<folder>/*_test.cpp -> test_<name>, bench/<folder>/*_bench.cpp -> bench_<name>, linked
# against the folder's library and, for what only the tests or benches use, TEST_DEPS.

set(FULCRUM_WARNINGS -Wall -Wextra -Wpedantic -Werror)
set(FULCRUM_DATA_DIR "${PROJECT_SOURCE_DIR}/models/data")

# The public reference data (DESIGN.md, "reference/"): read in place, never copied into the
# project. Default: the shared/reference folder beside the checkout. Tests that need it skip when
# it is absent; `fulcrum calibrate` uses it as its default --reference.
cmake_path(SET _fulcrum_reference_default NORMALIZE "${PROJECT_SOURCE_DIR}/../shared/reference")
set(FULCRUM_REFERENCE_DIR "${_fulcrum_reference_default}" CACHE PATH
    "Folder with the public reference data, read in place (tests skip without it)")
# Printed by a test that skips (tests/reference_data.hpp); CTest reports such a test as skipped.
set(FULCRUM_SKIP_MARKER "fulcrum-test-skipped:")

function(fulcrum_library name dir)
  cmake_parse_arguments(ARG "" "" "DEPS;TEST_DEPS" ${ARGN})
  file(GLOB srcs CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/${dir}/*.cpp")
  list(FILTER srcs EXCLUDE REGEX "_main\\.cpp$")  # entry points are executables, not library code
  if(srcs)
    add_library(${name} STATIC ${srcs})
    target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR})
    target_compile_options(${name} PRIVATE ${FULCRUM_WARNINGS})
    target_link_libraries(${name} PUBLIC ${ARG_DEPS})
  else()
    add_library(${name} INTERFACE)
    target_include_directories(${name} INTERFACE ${PROJECT_SOURCE_DIR})
    target_link_libraries(${name} INTERFACE ${ARG_DEPS})
  endif()
  fulcrum_tests(${name} ${dir} ${ARG_TEST_DEPS})
  fulcrum_bench(${name} ${dir} ${ARG_TEST_DEPS})
endfunction()

function(fulcrum_tests name dir)
  if(NOT FULCRUM_BUILD_TESTS)
    return()
  endif()
  file(GLOB srcs CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/tests/${dir}/*_test.cpp")
  if(NOT srcs)
    return()
  endif()
  string(REPLACE "/" "_" exe "test_${dir}")
  add_executable(${exe} ${srcs} $<TARGET_OBJECTS:fulcrum_catch_main>)
  target_link_libraries(${exe} PRIVATE ${name} ${ARGN} Catch2::Catch2)
  target_compile_options(${exe} PRIVATE ${FULCRUM_WARNINGS})
  target_compile_definitions(${exe} PRIVATE
    FULCRUM_DATA_DIR="${FULCRUM_DATA_DIR}"
    FULCRUM_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    FULCRUM_REFERENCE_DIR="${FULCRUM_REFERENCE_DIR}"
    FULCRUM_SKIP_MARKER="${FULCRUM_SKIP_MARKER}"
    FULCRUM_BINARY="$<TARGET_FILE:fulcrum>")
  # Tests that measure wall-clock time carry the Catch2 tag [wall]: CTest runs each of them alone
  # (RUN_SERIAL, and one lock they all share), so `ctest -j2` never runs one beside other tests.
  # Their bounds must still hold on a machine loaded by other processes.
  set(has_wall FALSE)
  foreach(src IN LISTS srcs)
    file(STRINGS "${src}" wall_lines REGEX "\\[wall\\]")
    if(wall_lines)
      set(has_wall TRUE)
    endif()
  endforeach()
  if(has_wall)
    catch_discover_tests(${exe} TEST_SPEC "~[wall]" TEST_PREFIX "${dir}: "
                         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                         PROPERTIES SKIP_REGULAR_EXPRESSION "${FULCRUM_SKIP_MARKER}")
    catch_discover_tests(${exe} TEST_SPEC "[wall]" TEST_PREFIX "${dir}: "
                         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                         PROPERTIES SKIP_REGULAR_EXPRESSION "${FULCRUM_SKIP_MARKER}"
                                    RUN_SERIAL TRUE RESOURCE_LOCK fulcrum_wall_clock
                                    LABELS wall)
  else()
    catch_discover_tests(${exe} TEST_PREFIX "${dir}: " WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                         PROPERTIES SKIP_REGULAR_EXPRESSION "${FULCRUM_SKIP_MARKER}")
  endif()
endfunction()

function(fulcrum_bench name dir)
  if(NOT FULCRUM_BUILD_BENCH)
    return()
  endif()
  file(GLOB srcs CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/bench/${dir}/*_bench.cpp")
  if(NOT srcs)
    return()
  endif()
  string(REPLACE "/" "_" exe "bench_${dir}")
  add_executable(${exe} ${srcs})
  target_link_libraries(${exe} PRIVATE ${name} ${ARGN} benchmark::benchmark
                        benchmark::benchmark_main)
  target_compile_options(${exe} PRIVATE ${FULCRUM_WARNINGS})
  target_compile_definitions(${exe} PRIVATE
    FULCRUM_DATA_DIR="${FULCRUM_DATA_DIR}"
    FULCRUM_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    FULCRUM_REFERENCE_DIR="${FULCRUM_REFERENCE_DIR}")
endfunction()
