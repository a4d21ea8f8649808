# add_service(<dir> <binary>): a service's library (<dir>_lib: its sources and embedded
# migrations), its executable (build/bin/<binary>) and its API tests (<dir>_api_tests: the
# shared service contract plus <dir>/tests/*_test.cpp).
function(add_service dir binary)
  cmake_parse_arguments(SVC "" "" "SOURCES" ${ARGN})
  embed_migrations(${dir}_migrations ${CMAKE_CURRENT_SOURCE_DIR}/migrations)

  add_library(${dir}_lib STATIC ${SVC_SOURCES})
  target_link_libraries(${dir}_lib PUBLIC core ${dir}_migrations)
  target_precompile_headers(${dir}_lib REUSE_FROM core)

  add_executable(${binary} main.cpp)
  target_link_libraries(${binary} PRIVATE ${dir}_lib)
  target_precompile_headers(${binary} REUSE_FROM core)

  file(GLOB api_tests CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/tests/*_test.cpp)
  string(TOUPPER ${dir} upper)
  core_test(${dir}_api_tests ${api_tests} ${PROJECT_SOURCE_DIR}/core/testing/service_contract.cpp)
  target_link_libraries(${dir}_api_tests PRIVATE ${dir}_lib)
  target_compile_definitions(${dir}_api_tests PRIVATE ${upper}_BINARY="$<TARGET_FILE:${binary}>")
  add_dependencies(${dir}_api_tests ${binary})
endfunction()
