# embed_api_descriptions(<target> <dir>)
# Compiles every <dir>/**/*.api.json (a module's API description, beside its handlers:
# core/openapi/document.hpp) into <target>, a static library exposing
#   std::span<const std::string_view> <target>();
# in the order of their paths. An edited description rebuilds the binary.
function(embed_api_descriptions target dir)
  file(GLOB_RECURSE json_files CONFIGURE_DEPENDS "${dir}/*.api.json")
  list(SORT json_files)
  set(out "${CMAKE_CURRENT_BINARY_DIR}/${target}_embedded.cpp")
  add_custom_command(
    OUTPUT "${out}"
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DFUNC=${target} "-DFILES=${json_files}"
            -P "${PROJECT_SOURCE_DIR}/cmake/write_texts.cmake"
    DEPENDS ${json_files} "${PROJECT_SOURCE_DIR}/cmake/write_texts.cmake" "${PROJECT_SOURCE_DIR}/cmake/byte_array.cmake"
    COMMENT "Embedding API descriptions of ${target}"
    VERBATIM)
  add_library(${target} STATIC "${out}")
  set_target_properties(${target} PROPERTIES DISABLE_PRECOMPILE_HEADERS ON)
endfunction()
