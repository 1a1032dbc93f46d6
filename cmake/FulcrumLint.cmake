# Source checks that run with the test suite (ctest, `make test`), from the source folder; they
# read the sources, not the build:
#   lint: layering      scripts/check_layering.sh: every #include follows the declared layering
#   lint: clang-format  scripts/lint.sh --format: every C++ source is clang-format clean
#                       (skipped, not failed, where clang-format is not installed)
# clang-tidy stays out of the suite (scripts/lint.sh, `make lint`).
if(NOT FULCRUM_BUILD_TESTS)
  return()
endif()

add_test(NAME "lint: layering"
  COMMAND ${PROJECT_SOURCE_DIR}/scripts/check_layering.sh
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
add_test(NAME "lint: clang-format"
  COMMAND ${PROJECT_SOURCE_DIR}/scripts/lint.sh --format
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties("lint: layering" "lint: clang-format" PROPERTIES LABELS lint)
set_tests_properties("lint: clang-format" PROPERTIES SKIP_RETURN_CODE 77)
