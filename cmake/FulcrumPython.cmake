# The Python package (python/, docs/PYTHON.md) is built where Debian's pybind11 and the Python
# headers are found (python3-pybind11, python3-dev), like the CUDA backend where nvcc is; without
# them, or with -DFULCRUM_PYTHON=OFF, the project builds and tests without it. Its extension
# module links the project's static libraries into a shared object, which the top-level
# CMakeLists's CMAKE_POSITION_INDEPENDENT_CODE makes possible (as for the CUDA plugin).
option(FULCRUM_PYTHON "Build the Python package where pybind11 and the Python headers are found" ON)
set(FULCRUM_HAVE_PYTHON OFF)
if(FULCRUM_PYTHON)
  # Debian's Python first (its pybind11, pandas and pytest are Debian packages), unless the user
  # names another with -DPython3_EXECUTABLE=...
  if(NOT DEFINED Python3_EXECUTABLE AND EXISTS /usr/bin/python3)
    set(Python3_EXECUTABLE /usr/bin/python3)
  endif()
  find_package(Python3 COMPONENTS Interpreter Development.Module QUIET)
  if(Python3_FOUND)
    find_package(pybind11 CONFIG QUIET)
  endif()
  if(Python3_FOUND AND pybind11_FOUND)
    set(FULCRUM_HAVE_PYTHON ON)
    message(STATUS "fulcrum: building the Python package for Python ${Python3_VERSION}")
  else()
    message(STATUS "fulcrum: pybind11 or the Python headers not found; building without the Python package")
  endif()
endif()
