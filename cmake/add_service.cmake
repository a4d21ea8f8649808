# add_service(<dir> <binary> SOURCES <file>... [TEST_LIBS <target>...]): a service's library
# (<dir>_lib: its sources and embedded migrations), its executable (build/bin/<binary>), the
# shared service contract run against that executable (<dir>_contract_tests:
# <dir>/tests/service_test.cpp) and its API tests (<dir>_api_tests: the other
# <dir>/tests/*_test.cpp, linked with TEST_LIBS too).
function(add_service dir binary)
  cmake_parse_arguments(SVC "" "" "SOURCES;TEST_LIBS" ${ARGN})
  embed_migrations(${dir}_migrations ${CMAKE_CURRENT_SOURCE_DIR}/migrations)

  add_library(${dir}_lib STATIC ${SVC_SOURCES})
  target_link_libraries(${dir}_lib PUBLIC core ${dir}_migrations)
  target_precompile_headers(${dir}_lib REUSE_FROM core)

  add_executable(${binary} main.cpp)
  target_link_libraries(${binary} PRIVATE ${dir}_lib)
  target_precompile_headers(${binary} REUSE_FROM core)

  # The service contract against the built binary: in every tree, since build/ runs it against
  # the optimised binary. The API tests: <dir>/tests/*_test.cpp but service_test.cpp.
  string(TOUPPER ${dir} upper)
  set(binary_path ${upper}_BINARY="$<TARGET_FILE:${binary}>")
  core_test(${dir}_contract_tests ALWAYS
    SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/tests/service_test.cpp
            ${PROJECT_SOURCE_DIR}/core/testing/service_contract.cpp
    LIBS ${dir}_lib DEFINITIONS ${binary_path} DEPENDS ${binary})

  file(GLOB api_tests CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/tests/*_test.cpp)
  list(REMOVE_ITEM api_tests ${CMAKE_CURRENT_SOURCE_DIR}/tests/service_test.cpp)
  core_test(${dir}_api_tests SOURCES ${api_tests} LIBS ${dir}_lib ${SVC_TEST_LIBS})
endfunction()
