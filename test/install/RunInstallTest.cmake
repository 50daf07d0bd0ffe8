# cmake -DBUILD=... -DSOURCE=... -DWORK=... -P RunInstallTest.cmake
# Installs the build tree into WORK/prefix, configures and builds
# test/install/ against it, and runs the program.
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}")
  endif()
endfunction()

file(REMOVE_RECURSE ${WORK})
run(${CMAKE_COMMAND} --install ${BUILD} --prefix ${WORK}/prefix)
foreach(f bin/graphjit bin/graphjit-prof lib/GraphjitPasses.so
          include/graphjit/Function.h include/graphjit/runtime/RuntimeABI.h
          lib/cmake/graphjit/graphjitConfig.cmake)
  if(NOT EXISTS ${WORK}/prefix/${f})
    message(FATAL_ERROR "not installed: ${f}")
  endif()
endforeach()
# Internal headers stay in the source tree.
file(GLOB_RECURSE headers RELATIVE ${WORK}/prefix/include
  ${WORK}/prefix/include/*.h)
foreach(h ${headers})
  if(NOT h MATCHES "^graphjit/")
    message(FATAL_ERROR "an internal header was installed: ${h}")
  endif()
endforeach()
run(${CMAKE_COMMAND} -S ${SOURCE}/test/install -B ${WORK}/build -G Ninja
  -DCMAKE_PREFIX_PATH=${WORK}/prefix -DCMAKE_BUILD_TYPE=Release)
run(${CMAKE_COMMAND} --build ${WORK}/build)
run(${WORK}/build/uses-graphjit)
