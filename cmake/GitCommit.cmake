# Writes OUTPUT (a header defining SCAN_GIT_COMMIT) from `git describe` of
# SOURCE, touching the file only when the text changes. Run at every build
# (cmake -P), so the stamp follows commits made after configuring.
execute_process(COMMAND git describe --always --dirty --abbrev=12
                WORKING_DIRECTORY ${SOURCE}
                OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE
                ERROR_QUIET)
if(NOT commit)
  set(commit unknown)
endif()
set(text "// Generated at build time by cmake/GitCommit.cmake.\n#define SCAN_GIT_COMMIT \"${commit}\"\n")
if(EXISTS ${OUTPUT})
  file(READ ${OUTPUT} old)
endif()
if(NOT "${old}" STREQUAL "${text}")
  file(WRITE ${OUTPUT} "${text}")
endif()
