# Run by ctest when it reads the test list (kueuepp_add_test in the top CMakeLists.txt
# writes the include file that sets these and includes this script):
#   KUEUEPP_GT_TARGET      the test program's target name (for the entries that say it failed)
#   KUEUEPP_GT_EXE         the test program
#   KUEUEPP_GT_LIST        where the ctest entries are written (kept until the program changes)
#   KUEUEPP_GT_WORKDIR     the entries' working directory
#   KUEUEPP_GT_PER_CASE    a regex: suites it matches get one entry per case ("" for none)
#   KUEUEPP_GT_PROPERTIES  the entries' ctest properties, as a list of names and values
#
# One ctest entry per GoogleTest suite (`Suite`, run with --gtest_filter=Suite.*), not per
# case: starting a test program costs 25-40 ms of CPU, more than most cases' own work,
# and the suite has some 2,700 cases in 420 suites. Suites that need a case each (a long
# randomized range, the end-to-end fault tests with a resource lock) say so by regex.

if(NOT EXISTS "${KUEUEPP_GT_EXE}")
  add_test("${KUEUEPP_GT_TARGET}_NOT_BUILT" "${KUEUEPP_GT_EXE}")
  return()
endif()

function(kueuepp_gt_quote out value)
  set(${out} "[==[${value}]==]" PARENT_SCOPE)
endfunction()

if(NOT EXISTS "${KUEUEPP_GT_LIST}" OR "${KUEUEPP_GT_EXE}" IS_NEWER_THAN "${KUEUEPP_GT_LIST}")
  execute_process(COMMAND "${KUEUEPP_GT_EXE}" --gtest_list_tests
                  WORKING_DIRECTORY "${KUEUEPP_GT_WORKDIR}"
                  OUTPUT_VARIABLE listed RESULT_VARIABLE listed_rc ERROR_VARIABLE listed_err TIMEOUT 120)
  set(body "")
  if(NOT listed_rc EQUAL 0)
    # One entry that fails the same way when run, so the run says what went wrong.
    kueuepp_gt_quote(name "${KUEUEPP_GT_TARGET}_LIST_FAILED")
    kueuepp_gt_quote(exe "${KUEUEPP_GT_EXE}")
    string(APPEND body "add_test(${name} ${exe} --gtest_list_tests)\n")
  else()
    # Parameter comments ("  # GetParam() = ...") may hold anything: dropped first.
    string(REGEX REPLACE "  #[^\n]*" "" listed "${listed}")
    string(REPLACE ";" "" listed "${listed}")
    string(REPLACE "\n" ";" lines "${listed}")
    set(properties "")
    foreach(p IN LISTS KUEUEPP_GT_PROPERTIES)
      kueuepp_gt_quote(q "${p}")
      string(APPEND properties " ${q}")
    endforeach()
    kueuepp_gt_quote(exe "${KUEUEPP_GT_EXE}")
    kueuepp_gt_quote(workdir "${KUEUEPP_GT_WORKDIR}")
    set(suite "")
    set(suite_entered FALSE)
    foreach(line IN LISTS lines)
      if(line MATCHES "^([^ ].*)\\.$")
        set(suite "${CMAKE_MATCH_1}")
        set(suite_entered FALSE)
        continue()
      endif()
      if(NOT line MATCHES "^  (.+)$" OR suite STREQUAL "")
        continue()
      endif()
      set(case "${CMAKE_MATCH_1}")
      # GoogleTest skips disabled cases unless asked: so do these entries.
      if(case MATCHES "^DISABLED_" OR suite MATCHES "(^|/)DISABLED_")
        continue()
      endif()
      set(per_case FALSE)
      if(NOT KUEUEPP_GT_PER_CASE STREQUAL "" AND suite MATCHES "${KUEUEPP_GT_PER_CASE}")
        set(per_case TRUE)
      endif()
      if(per_case)
        set(entry "${suite}.${case}")
        set(filter "${suite}.${case}")
      elseif(suite_entered)
        continue()
      else()
        set(entry "${suite}")
        set(filter "${suite}.*")
        set(suite_entered TRUE)
      endif()
      kueuepp_gt_quote(name "${entry}")
      kueuepp_gt_quote(filter_arg "--gtest_filter=${filter}")
      string(APPEND body "add_test(${name} ${exe} ${filter_arg})\n")
      string(APPEND body "set_tests_properties(${name} PROPERTIES WORKING_DIRECTORY ${workdir}${properties})\n")
    endforeach()
  endif()
  file(WRITE "${KUEUEPP_GT_LIST}" "${body}")
endif()
include("${KUEUEPP_GT_LIST}")
