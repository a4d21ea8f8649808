# Run at build time, after a GoogleTest binary links (core_test(), core/CMakeLists.txt):
#   cmake -D TEST_EXECUTABLE=<binary> -D OUT=<file> -P gtest_suites.cmake
# Lists the binary's tests and writes to OUT one CTest test per suite (a fixture, or one
# instantiation of a parameterised suite) that runs `<binary> --gtest_filter=<Suite>.*`. One
# process per suite rather than per case: a sanitizer-built test binary takes a quarter of a
# second to start, and the suite has hundreds of cases (docs/testing.md).
execute_process(COMMAND "${TEST_EXECUTABLE}" --gtest_list_tests
                OUTPUT_VARIABLE listing ERROR_VARIABLE errors RESULT_VARIABLE status TIMEOUT 60)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${TEST_EXECUTABLE} --gtest_list_tests failed (${status}): ${errors}")
endif()
string(REPLACE "\n" ";" lines "${listing}")
set(script "")
foreach(line IN LISTS lines)
  # A suite line starts in the first column and ends its name with a dot ("Suite." or
  # "Prefix/Suite/0.  # TypeParam = ..."); its cases are indented below it.
  if(line MATCHES "^([^ #][^ ]*)\\.")
    set(suite "${CMAKE_MATCH_1}")
    string(APPEND script
      "add_test([==[${suite}]==] [==[${TEST_EXECUTABLE}]==] [==[--gtest_filter=${suite}.*]==])\n"
      "set_tests_properties([==[${suite}]==] PROPERTIES TIMEOUT 900)\n")
  endif()
endforeach()
file(WRITE "${OUT}" "${script}")
