# SPDX-License-Identifier: Apache-2.0
# The report on generated result files (tests/report/report_test.py). report_run draws 30
# seeded random valid scenarios, runs them with this build's chsim (plus the notebook smoke
# scenarios, 3 shards of one sweep and their merge) and writes synthetic catalog and peers
# files; report_make (label python: it runs no chsim code but the quick tune runs, so the
# sanitizer builds skip it) builds a report per file, one over the shards and their merge and
# one over everything, and checks figure data against the raw rows.
# A sanitizer build (which has no report_make) runs 10 random scenarios instead of 30.
set(CHSIM_REPORT_WORK ${CMAKE_BINARY_DIR}/report-test)
set(_report_count 30)
if(CHSIM_SANITIZER_RUN)
  set(_report_count 10)
endif()
add_test(NAME report_run
         COMMAND ${CHSIM_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/report_test.py run
                 --chsim $<TARGET_FILE:chsim> --source ${PROJECT_SOURCE_DIR}
                 --work ${CHSIM_REPORT_WORK} --count ${_report_count})
add_test(NAME report_make
         COMMAND ${CHSIM_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/report_test.py report
                 --chsim $<TARGET_FILE:chsim> --source ${PROJECT_SOURCE_DIR}
                 --work ${CHSIM_REPORT_WORK})
set_tests_properties(report_run PROPERTIES LABELS report TIMEOUT ${CHSIM_HANG_S}
                     FIXTURES_SETUP report_results)
set_tests_properties(report_make PROPERTIES LABELS "report;python" TIMEOUT ${CHSIM_HANG_LONG_S}
                     FIXTURES_REQUIRED report_results FIXTURES_SETUP report_pages)
# The reports report_make wrote (over everything, and from the smallest generated input) in
# headless chromium (tests/report/browser_test.py): no JavaScript error, images loaded, every
# column sorts on a click, no overflow at 1,400 px, headline answers on the first screen; and
# two bugs planted in a copy of the sort script must fail those checks.
add_test(NAME report_browser
         COMMAND ${CHSIM_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/browser_test.py
                 --work ${CHSIM_REPORT_WORK} --plant-check)
set_tests_properties(report_browser PROPERTIES LABELS "report;python" TIMEOUT ${CHSIM_HANG_S}
                     FIXTURES_REQUIRED report_pages)
