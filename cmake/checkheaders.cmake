# SPDX-License-Identifier: Apache-2.0
# `checkheaders`: compiles every public host header (.hpp) on its own, so each one
# includes what it uses.
file(GLOB_RECURSE _cuzk_public_headers CONFIGURE_DEPENDS
  ${PROJECT_SOURCE_DIR}/include/cuzk/*.hpp)
set(_cuzk_check_sources)
foreach(h IN LISTS _cuzk_public_headers)
  file(RELATIVE_PATH rel ${PROJECT_SOURCE_DIR}/include ${h})
  string(MAKE_C_IDENTIFIER ${rel} id)
  set(src ${CMAKE_BINARY_DIR}/checkheaders/${id}.cpp)
  file(CONFIGURE OUTPUT ${src} CONTENT "#include <${rel}>\n")
  list(APPEND _cuzk_check_sources ${src})
endforeach()
add_library(checkheaders OBJECT EXCLUDE_FROM_ALL ${_cuzk_check_sources})
target_link_libraries(checkheaders PRIVATE cuzk)
