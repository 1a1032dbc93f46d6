# Source checks that run with the test suite (ctest, `make test`), from the source folder; they
# read the sources, not the build:
#   lint: layering      scripts/check_layering.sh: every #include follows the declared layering
# clang-tidy stays out of the suite (scripts/lint.sh, `make lint`).
if(NOT FULCRUM_BUILD_TESTS)
  return()
endif()

add_test(NAME "lint: layering"
  COMMAND ${PROJECT_SOURCE_DIR}/scripts/check_layering.sh
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties("lint: layering" PROPERTIES LABELS lint)
