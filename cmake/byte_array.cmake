# append_byte_array(<out_var> <c_name> <file> <len_var>): appends to <out_var> a C++ definition
#   constexpr char <c_name>[] = {'\x..', ..., 0};
# holding <file>'s bytes, and sets <len_var> to their count. For the scripts that embed files
# (write_migrations.cmake, write_texts.cmake): bytes, so that no character of a file needs escaping.
function(append_byte_array out_var c_name file len_var)
  file(READ "${file}" hex HEX)
  string(LENGTH "${hex}" hexlen)
  math(EXPR len "${hexlen} / 2")
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "'\\\\x\\1'," bytes "${hex}")
  set(${out_var} "${${out_var}}constexpr char ${c_name}[] = {${bytes} 0};\n" PARENT_SCOPE)
  set(${len_var} ${len} PARENT_SCOPE)
endfunction()
