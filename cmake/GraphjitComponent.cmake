# graphjit's component libraries, declared as LLVM declares its own
# (add_llvm_component_library with LINK_COMPONENTS): each is one static
# library graphjit_NAME built from the .cpp files of its folders, linking
# exactly the components it DEPENDS on. The declarations are the layering:
# utils/check-layers.py proves from them that no include and no symbol
# crosses a layer the wrong way (the layers/ tests), and install(EXPORT)
# ships the same graph as graphjit::NAME targets (docs/architecture.md).
#
#   graphjit_component(NAME
#     DIRS folder...               source folders: lib/NAME and below
#     DEPENDS component...         the components it may use
#     PUBLIC_HEADERS name.h...     its headers in include/graphjit/ (subfolders
#                                  installed as they are)
#     SOURCES file...              extra sources (generated ones)
#     EXCLUDE regex                sources of DIRS not in the library
#     HEADER_ONLY)                 an INTERFACE library

define_property(GLOBAL PROPERTY GRAPHJIT_COMPONENTS
  BRIEF_DOCS "graphjit's components, lowest first"
  FULL_DOCS "Read by graphjit_write_component_manifest.")

function(graphjit_component name)
  cmake_parse_arguments(C "HEADER_ONLY" "EXCLUDE"
    "DIRS;DEPENDS;PUBLIC_HEADERS;SOURCES" ${ARGN})
  set(target graphjit_${name})
  set(sources ${C_SOURCES})
  foreach(dir ${C_DIRS})
    file(GLOB dir_sources CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/${dir}/*.cpp)
    if(C_EXCLUDE)
      list(FILTER dir_sources EXCLUDE REGEX "${C_EXCLUDE}")
    endif()
    list(APPEND sources ${dir_sources})
  endforeach()
  set(dep_targets)
  foreach(dep ${C_DEPENDS})
    if(NOT TARGET graphjit_${dep})
      message(FATAL_ERROR "component ${name} depends on ${dep}, which is "
        "not declared before it: components are declared lowest first")
    endif()
    list(APPEND dep_targets graphjit_${dep})
  endforeach()
  if(C_HEADER_ONLY)
    add_library(${target} INTERFACE)
    set(scope INTERFACE)
  else()
    add_library(${target} STATIC ${sources})
    set(scope PUBLIC)
    # Internal headers are the components' own: found from the source tree
    # while building, never installed. The layers/ tests check which of
    # them each component includes.
    target_include_directories(${target} PRIVATE ${CMAKE_SOURCE_DIR}/lib)
    target_link_libraries(${target} PUBLIC LLVM)
  endif()
  target_include_directories(${target} ${scope}
    $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_link_libraries(${target} ${scope} ${dep_targets})
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${name})
  add_library(graphjit::${name} ALIAS ${target})
  install(TARGETS ${target} EXPORT graphjitTargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  foreach(h ${C_PUBLIC_HEADERS})
    get_filename_component(h_dir graphjit/${h} DIRECTORY)
    install(FILES ${CMAKE_SOURCE_DIR}/include/graphjit/${h}
      DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/${h_dir})
  endforeach()

  set_property(GLOBAL APPEND PROPERTY GRAPHJIT_COMPONENTS ${name})
  set_property(GLOBAL PROPERTY GRAPHJIT_COMPONENT_${name}_DIRS ${C_DIRS})
  set_property(GLOBAL PROPERTY GRAPHJIT_COMPONENT_${name}_DEPENDS
    ${C_DEPENDS})
  set(headers)
  foreach(h ${C_PUBLIC_HEADERS})
    list(APPEND headers include/graphjit/${h})
  endforeach()
  set_property(GLOBAL PROPERTY GRAPHJIT_COMPONENT_${name}_HEADERS ${headers})
  set_property(GLOBAL PROPERTY GRAPHJIT_COMPONENT_${name}_HEADER_ONLY
    ${C_HEADER_ONLY})
endfunction()

# Writes the declared components as JSON (folders, headers, dependencies
# and each library's file) for utils/check-layers.py.
function(graphjit_write_component_manifest file)
  get_property(components GLOBAL PROPERTY GRAPHJIT_COMPONENTS)
  set(entries)
  foreach(name ${components})
    get_property(dirs GLOBAL PROPERTY GRAPHJIT_COMPONENT_${name}_DIRS)
    get_property(deps GLOBAL PROPERTY GRAPHJIT_COMPONENT_${name}_DEPENDS)
    get_property(headers GLOBAL PROPERTY GRAPHJIT_COMPONENT_${name}_HEADERS)
    get_property(header_only GLOBAL PROPERTY
      GRAPHJIT_COMPONENT_${name}_HEADER_ONLY)
    set(json_lists)
    foreach(key dirs deps headers)
      set(items)
      foreach(item ${${key}})
        list(APPEND items "\"${item}\"")
      endforeach()
      list(JOIN items ", " joined)
      list(APPEND json_lists "\"${key}\": [${joined}]")
    endforeach()
    list(JOIN json_lists ", " fields)
    if(header_only)
      set(lib "null")
    else()
      set(lib "\"$<TARGET_FILE:graphjit_${name}>\"")
    endif()
    list(APPEND entries "  \"${name}\": {${fields}, \"library\": ${lib}}")
  endforeach()
  list(JOIN entries ",\n" body)
  file(GENERATE OUTPUT ${file} CONTENT "{\n${body}\n}\n")
endfunction()
