# SPDX-License-Identifier: Apache-2.0
# Dependencies of the daemon (cuzk_service, apps/cuzk, cuzk-bench's gRPC
# client): gRPC C++ and protobuf through pkg-config (Debian 12 ships no
# usable CMake config for every piece), protoc + grpc_cpp_plugin, toml++,
# cpp-httplib, spdlog. scripts/install-deps.sh installs all of them.
# A missing one stops the configure with the package to install, unless
# -DCUZK_BUILD_DAEMON=OFF.
find_package(PkgConfig)
set(_cuzk_daemon_missing)
if(PKG_CONFIG_FOUND)
  pkg_check_modules(CUZK_GRPCPP IMPORTED_TARGET grpc++)
  pkg_check_modules(CUZK_PROTOBUF IMPORTED_TARGET protobuf)
  pkg_check_modules(CUZK_TOMLPP IMPORTED_TARGET tomlplusplus)
  pkg_check_modules(CUZK_HTTPLIB IMPORTED_TARGET cpp-httplib)
else()
  list(APPEND _cuzk_daemon_missing "pkg-config")
endif()
find_program(CUZK_PROTOC protoc)
find_program(CUZK_GRPC_CPP_PLUGIN grpc_cpp_plugin)
find_package(spdlog QUIET)
if(NOT CUZK_GRPCPP_FOUND)
  list(APPEND _cuzk_daemon_missing "libgrpc++-dev (pkg-config grpc++)")
endif()
if(NOT CUZK_PROTOBUF_FOUND)
  list(APPEND _cuzk_daemon_missing "libprotobuf-dev (pkg-config protobuf)")
endif()
if(NOT CUZK_PROTOC)
  list(APPEND _cuzk_daemon_missing "protobuf-compiler (protoc)")
endif()
if(NOT CUZK_GRPC_CPP_PLUGIN)
  list(APPEND _cuzk_daemon_missing "protobuf-compiler-grpc (grpc_cpp_plugin)")
endif()
if(NOT CUZK_TOMLPP_FOUND)
  list(APPEND _cuzk_daemon_missing "libtomlplusplus-dev")
endif()
if(NOT CUZK_HTTPLIB_FOUND)
  list(APPEND _cuzk_daemon_missing "libcpp-httplib-dev")
endif()
if(NOT spdlog_FOUND)
  list(APPEND _cuzk_daemon_missing "libspdlog-dev")
endif()
if(_cuzk_daemon_missing)
  string(REPLACE ";" ", " _m "${_cuzk_daemon_missing}")
  message(FATAL_ERROR "CUZK_BUILD_DAEMON is ON but these are missing: ${_m}. "
                      "Run scripts/install-deps.sh, or configure with -DCUZK_BUILD_DAEMON=OFF.")
endif()

# cuzk_proto: the generated cuzk.v1 messages and service stubs.
set(_proto_src ${PROJECT_SOURCE_DIR}/proto/cuzk/v1/proving.proto)
set(_gen ${CMAKE_BINARY_DIR}/generated)
set(_gen_files ${_gen}/cuzk/v1/proving.pb.cc ${_gen}/cuzk/v1/proving.pb.h
               ${_gen}/cuzk/v1/proving.grpc.pb.cc ${_gen}/cuzk/v1/proving.grpc.pb.h)
add_custom_command(
  OUTPUT ${_gen_files}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${_gen}
  COMMAND ${CUZK_PROTOC} -I ${PROJECT_SOURCE_DIR}/proto --cpp_out=${_gen} --grpc_out=${_gen}
          --plugin=protoc-gen-grpc=${CUZK_GRPC_CPP_PLUGIN} ${_proto_src}
  DEPENDS ${_proto_src}
  COMMENT "protoc: proto/cuzk/v1/proving.proto")
add_library(cuzk_proto STATIC ${_gen}/cuzk/v1/proving.pb.cc ${_gen}/cuzk/v1/proving.grpc.pb.cc)
target_include_directories(cuzk_proto SYSTEM PUBLIC ${_gen})
target_link_libraries(cuzk_proto PUBLIC PkgConfig::CUZK_GRPCPP PkgConfig::CUZK_PROTOBUF)
