# The BLAS and LAPACK graphjit calls (lib/ops/linalg/BlasSymbols.h).
#
# GRAPHJIT_BLAS=scipy-openblas (the default): the scipy-openblas32 package
# from PyPI, the OpenBLAS NumPy and SciPy ship, which knows current CPUs
# (Debian 12's OpenBLAS 0.3.21 runs Sapphire Rapids on its generic Prescott
# kernels: issue 35). Its symbols carry a scipy_ prefix, so it lives beside
# NumPy's own OpenBLAS in one process. utils/setup.sh installs the version
# pinned in utils/requirements-blas.txt into .venv-blas; pip's build of the
# package gets it from pyproject.toml's build requirements;
# GRAPHJIT_BLAS_PYTHON names another Python that can import it.
# GRAPHJIT_BLAS=system: the system's BLAS and LAPACK (find_package).
#
# Sets GRAPHJIT_BLAS_LIBRARIES (to link), GRAPHJIT_BLAS_LIBRARY_DIR (where
# the library lies, for an installed module's RPATH; empty for the
# system's) and graphjit_use_blas(TARGET), which gives TARGET the headers
# and the symbol prefix.
set(GRAPHJIT_BLAS "scipy-openblas" CACHE STRING
  "The BLAS and LAPACK: scipy-openblas (PyPI's, pinned) or system")
set_property(CACHE GRAPHJIT_BLAS PROPERTY STRINGS scipy-openblas system)
# pip's build (pyproject.toml) has the package in its own environment.
if(SKBUILD AND Python_EXECUTABLE)
  set(blas_python "${Python_EXECUTABLE}")
else()
  set(blas_python "${CMAKE_SOURCE_DIR}/.venv-blas/bin/python")
endif()
set(GRAPHJIT_BLAS_PYTHON "${blas_python}" CACHE
  FILEPATH "A Python that imports scipy_openblas32 (GRAPHJIT_BLAS=scipy-openblas)")

if(GRAPHJIT_BLAS STREQUAL "scipy-openblas")
  execute_process(
    COMMAND "${GRAPHJIT_BLAS_PYTHON}" -c
      "import scipy_openblas32 as s; print(s.get_include_dir()); print(s.get_lib_dir()); print(s.get_library(True)); print(s.__version__)"
    OUTPUT_VARIABLE blas_info RESULT_VARIABLE blas_rc
    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(NOT blas_rc EQUAL 0)
    message(FATAL_ERROR "GRAPHJIT_BLAS=scipy-openblas: ${GRAPHJIT_BLAS_PYTHON} "
      "cannot import scipy_openblas32. Run utils/setup.sh (it installs the "
      "pinned package into .venv-blas), set GRAPHJIT_BLAS_PYTHON, or "
      "configure with -DGRAPHJIT_BLAS=system.")
  endif()
  string(REPLACE "\n" ";" blas_info "${blas_info}")
  list(GET blas_info 0 GRAPHJIT_BLAS_INCLUDE_DIR)
  list(GET blas_info 1 GRAPHJIT_BLAS_LIBRARY_DIR)
  list(GET blas_info 2 blas_file)
  list(GET blas_info 3 blas_version)
  set(GRAPHJIT_BLAS_LIBRARIES "${GRAPHJIT_BLAS_LIBRARY_DIR}/${blas_file}")
  set(GRAPHJIT_BLAS_PREFIX scipy_)
  message(STATUS "BLAS and LAPACK: scipy-openblas32 ${blas_version} "
    "(${GRAPHJIT_BLAS_LIBRARIES})")
elseif(GRAPHJIT_BLAS STREQUAL "system")
  find_package(BLAS REQUIRED)
  find_package(LAPACK REQUIRED)
  set(GRAPHJIT_BLAS_LIBRARIES ${LAPACK_LIBRARIES} ${BLAS_LIBRARIES})
  set(GRAPHJIT_BLAS_INCLUDE_DIR "")
  set(GRAPHJIT_BLAS_LIBRARY_DIR "")
  set(GRAPHJIT_BLAS_PREFIX "")
  message(STATUS "BLAS and LAPACK: the system's (${GRAPHJIT_BLAS_LIBRARIES})")
else()
  message(FATAL_ERROR "GRAPHJIT_BLAS must be scipy-openblas or system, "
    "not '${GRAPHJIT_BLAS}'")
endif()

function(graphjit_use_blas target)
  if(GRAPHJIT_BLAS_INCLUDE_DIR)
    target_include_directories(${target} SYSTEM PRIVATE
      ${GRAPHJIT_BLAS_INCLUDE_DIR})
  endif()
  target_compile_definitions(${target} PRIVATE
    GRAPHJIT_BLAS_PREFIX=${GRAPHJIT_BLAS_PREFIX})
endfunction()
