# add_service(<dir> <binary> SOURCES <file>... [TEST_LIBS <target>...]): a service's library
# (<dir>_lib: its sources, embedded migrations and API descriptions), its executable (build/bin/<binary>), the
# shared service contract run against that executable (<dir>_contract_tests:
# <dir>/tests/service_test.cpp) and the rest of its tests in one binary (<dir>_tests: every other
# *_test.cpp under <dir>, linked with TEST_LIBS too): a module's test beside its code, the tests
# that drive the service or share its fixtures in <dir>/tests/ (docs/conventions.md). One binary
# per service, because each links the whole service library: a binary per directory would
# multiply the link time.
function(add_service dir binary)
  cmake_parse_arguments(SVC "" "" "SOURCES;TEST_LIBS" ${ARGN})
  embed_migrations(${dir}_migrations ${CMAKE_CURRENT_SOURCE_DIR}/migrations)
  embed_api_descriptions(${dir}_api_descriptions ${CMAKE_CURRENT_SOURCE_DIR})

  add_library(${dir}_lib STATIC ${SVC_SOURCES})
  target_link_libraries(${dir}_lib PUBLIC core ${dir}_migrations ${dir}_api_descriptions)
  target_precompile_headers(${dir}_lib REUSE_FROM core)

  add_executable(${binary} main.cpp)
  target_link_libraries(${binary} PRIVATE ${dir}_lib)
  target_precompile_headers(${binary} REUSE_FROM core)

  # The service contract against the built binary: in every tree, since build/ runs it against
  # the optimised binary. The other tests: every <dir>/**/*_test.cpp but service_test.cpp.
  string(TOUPPER ${dir} upper)
  set(binary_path ${upper}_BINARY="$<TARGET_FILE:${binary}>")
  core_test(${dir}_contract_tests ALWAYS
    SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/tests/service_test.cpp
            ${PROJECT_SOURCE_DIR}/core/testing/service_contract.cpp
    LIBS ${dir}_lib DEFINITIONS ${binary_path} DEPENDS ${binary})

  file(GLOB_RECURSE tests CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*_test.cpp)
  list(REMOVE_ITEM tests ${CMAKE_CURRENT_SOURCE_DIR}/tests/service_test.cpp)
  # The binary too, for the tests that kill a running service (rmm_test.cpp).
  core_test(${dir}_tests SOURCES ${tests} LIBS ${dir}_lib ${SVC_TEST_LIBS} DEFINITIONS ${binary_path} DEPENDS ${binary})
endfunction()
