# embed_migrations(<target> <dir>)
# Compiles every <dir>/NNNN_name.sql into <target>, a static library exposing
#   std::span<const core::db::Migration> <target>();
# The files are read at build time, so an edited migration rebuilds the binary.
function(embed_migrations target dir)
  file(GLOB sql_files CONFIGURE_DEPENDS "${dir}/*.sql")
  list(SORT sql_files)
  set(out "${CMAKE_CURRENT_BINARY_DIR}/${target}_embedded.cpp")
  add_custom_command(
    OUTPUT "${out}"
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DFUNC=${target} "-DFILES=${sql_files}"
            -P "${PROJECT_SOURCE_DIR}/cmake/write_migrations.cmake"
    DEPENDS ${sql_files} "${PROJECT_SOURCE_DIR}/cmake/write_migrations.cmake" "${PROJECT_SOURCE_DIR}/cmake/byte_array.cmake"
    COMMENT "Embedding migrations of ${target}"
    VERBATIM)
  add_library(${target} STATIC "${out}")
  target_link_libraries(${target} PUBLIC core)
  # Text and a table of spans: core's precompiled header (Asio, Beast, nlohmann) would be built
  # again for this target alone, 7 s a tree, for nothing.
  set_target_properties(${target} PROPERTIES DISABLE_PRECOMPILE_HEADERS ON)
endfunction()
