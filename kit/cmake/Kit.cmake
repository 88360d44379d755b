# The classroom kit's build functions. A student folder includes this file
# (as cmake/Kit.cmake); so do kit/gpu/prepare-gpu.sh's build and the
# repository's own grader tests (kit/tests/CMakeLists.txt).
#
# kit_add_chapter(NUMBER NN SLUG name SOURCES f.cu ... [MAIN main.cu]
#                 [DEPENDS scan_chMM ...] [HOST] [HOPPER] [ASSIGNED])
#     In a student folder, one call per chapter folder (the chapter's own
#     CMakeLists.txt). Builds scan_chNN, the chapter's library, against
#     scan_core, scan_check and scan_bench (common without the program
#     runner and the library baselines), and chNN_name, the chapter's program, only on request
#     (`cmake --build build --target chNN_name`). ASSIGNED marks the chapter
#     the student writes: the grader grades it. HOPPER: built for the
#     Hopper architectures only (cmake/ScanArchitectures.cmake).
#
# kit_add_chapter_library(TARGET FOLDER dir SOURCES f.cu ... [DEPENDS lib ...]
#                         [HOPPER] [APPLICATIONS])
#     A chapter library from the sources in `dir`, compiled with the
#     tutorial's warnings (-Wall -Wextra ...: a student sees them).
#     APPLICATIONS (chapters 13 and 15, whose libraries hold their programs'
#     code) links scan_app as well.
#
# kit_add_grader(TARGET NUMBER NN CHAPTER_LIB lib
#                CONFIG kit.json FILES name=path ... [HOST] [APPLICATIONS] [HOPPER])
#     The grader program: kit/grader's sources (grader/ in a student
#     folder), the one chapter library it grades, and the configuration and
#     the graded source files, embedded at build time (the grader checks its
#     source rules and the lines outside the regions on exactly what was
#     compiled). The same program built on the reference's sources is the
#     reference program the student's grader times against: no program
#     holds both, so no student code can call the reference.

set(KIT_CMAKE_DIR "${CMAKE_CURRENT_LIST_DIR}" CACHE INTERNAL "where Kit.cmake and embed.cmake live")

function(kit_add_chapter_library target)
  cmake_parse_arguments(K "HOPPER;APPLICATIONS" "FOLDER" "SOURCES;DEPENDS" ${ARGN})
  set(sources "")
  foreach(s IN LISTS K_SOURCES)
    list(APPEND sources "${K_FOLDER}/${s}")
  endforeach()
  add_library(${target} STATIC ${sources})
  target_include_directories(${target} PUBLIC "${K_FOLDER}")
  target_link_libraries(${target} PUBLIC scan_core scan_check scan_bench ${K_DEPENDS})
  if(K_APPLICATIONS)
    # Chapters 13's and 15's libraries hold their programs' code too
    # (program.cu, sort_program.cu: the command line, the runner and the
    # library baselines they compare with).
    target_link_libraries(${target} PUBLIC scan_app)
  endif()
  if(K_HOPPER)
    scan_needs_hopper(${target})
  endif()
  if(TARGET CLI11::CLI11)
    target_link_libraries(${target} PRIVATE CLI11::CLI11)  # chapters 13's and 15's program code
  endif()
  # The warnings a student sees in the feedback (./grade puts those about the
  # chapter's files in results.json), never errors: a warning is a hint, and
  # a planted bug must build to be graded.
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wno-missing-field-initializers>
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra,-Wno-missing-field-initializers>)
endfunction()

function(kit_add_chapter)
  cmake_parse_arguments(CH "HOST;APPLICATIONS;HOPPER;ASSIGNED" "NUMBER;SLUG;MAIN" "SOURCES;DEPENDS" ${ARGN})
  set(hopper "")
  if(CH_HOPPER)
    set(hopper HOPPER)
  endif()
  if(NOT CH_MAIN)
    set(CH_MAIN main.cu)
  endif()
  set(applications "")
  if(CH_APPLICATIONS)
    set(applications APPLICATIONS)
  endif()
  kit_add_chapter_library(scan_ch${CH_NUMBER} FOLDER "${CMAKE_CURRENT_SOURCE_DIR}"
                          SOURCES ${CH_SOURCES} DEPENDS ${CH_DEPENDS} ${hopper} ${applications})
  add_executable(ch${CH_NUMBER}_${CH_SLUG} EXCLUDE_FROM_ALL ${CH_MAIN})
  target_link_libraries(ch${CH_NUMBER}_${CH_SLUG} PRIVATE scan_ch${CH_NUMBER} scan_common)
  if(CH_HOPPER)
    scan_needs_hopper(ch${CH_NUMBER}_${CH_SLUG})
  endif()
  if(CH_ASSIGNED)
    set_property(GLOBAL PROPERTY KIT_NUMBER "${CH_NUMBER}")
    set_property(GLOBAL PROPERTY KIT_SOURCES "${CH_SOURCES}")
    set_property(GLOBAL PROPERTY KIT_DEPENDS "${CH_DEPENDS}")
    set_property(GLOBAL PROPERTY KIT_FOLDER "${CMAKE_CURRENT_SOURCE_DIR}")
    set_property(GLOBAL PROPERTY KIT_HOST "${CH_HOST}")
    set_property(GLOBAL PROPERTY KIT_APPLICATIONS "${CH_APPLICATIONS}")
    set_property(GLOBAL PROPERTY KIT_HOPPER "${CH_HOPPER}")
  endif()
endfunction()

function(kit_add_grader target)
  cmake_parse_arguments(G "HOST;APPLICATIONS;HOPPER" "NUMBER;CHAPTER_LIB;CONFIG;GRADER_DIR" "FILES" ${ARGN})
  set(embedded "${CMAKE_CURRENT_BINARY_DIR}/${target}_embedded.cpp")
  set(paths "")
  foreach(pair IN LISTS G_FILES)
    string(REGEX REPLACE "^[^=]*=" "" path "${pair}")
    list(APPEND paths "${path}")
  endforeach()
  string(REPLACE ";" "|" files_arg "${G_FILES}")
  add_custom_command(
    OUTPUT "${embedded}"
    COMMAND ${CMAKE_COMMAND} "-DOUTPUT=${embedded}" "-DCONFIG=${G_CONFIG}" "-DFILES=${files_arg}"
            -P "${KIT_CMAKE_DIR}/embed.cmake"
    DEPENDS "${KIT_CMAKE_DIR}/embed.cmake" "${G_CONFIG}" ${paths}
    COMMENT "Embedding the graded sources of ${target}"
    VERBATIM)
  # The grader's own code is the same for every fill of a chapter: compiled once.
  set(objects kit_grader_objects_${G_NUMBER})
  if(NOT TARGET ${objects})
    set(sources "${G_GRADER_DIR}/grade.cu" "${G_GRADER_DIR}/suite.cu" "${G_GRADER_DIR}/poison.cu"
                "${G_GRADER_DIR}/processes.cpp" "${G_GRADER_DIR}/report.cpp")
    # The chapters with programs of their own (KIT_APPLICATIONS: no registry
    # suite) have suites of their own: chapter 15's sort (sort.cu, KIT_SORT),
    # chapter 13's applications.
    set(subject "")
    if(G_APPLICATIONS AND G_NUMBER STREQUAL "15")
      list(APPEND sources "${G_GRADER_DIR}/sort.cu")
      set(subject KIT_APPLICATIONS=1 KIT_SORT=1)
    elseif(G_APPLICATIONS)
      list(APPEND sources "${G_GRADER_DIR}/applications.cu" "${G_GRADER_DIR}/applications_student.cu")
      set(subject KIT_APPLICATIONS=1)
    endif()
    add_library(${objects} OBJECT ${sources})
    target_include_directories(${objects} PRIVATE "${G_GRADER_DIR}")
    target_compile_definitions(${objects} PRIVATE KIT_STUDENT_NS=ch${G_NUMBER} ${subject})
    # The chapter's headers (chapters 13's and 15's graders include them), common's, JSON.
    target_link_libraries(${objects} PRIVATE ${G_CHAPTER_LIB} scan_core scan_check scan_bench nlohmann_json::nlohmann_json)
    if(TARGET scan_warnings)
      target_link_libraries(${objects} PRIVATE scan_warnings)
    endif()
    if(G_HOPPER)
      scan_needs_hopper(${objects})  # chapter 13's grader compiles the chapter's kernels
    endif()
  endif()
  add_executable(${target} "${embedded}" $<TARGET_OBJECTS:${objects}>)
  if(G_HOPPER)
    scan_needs_hopper(${target})
  endif()
  target_include_directories(${target} PRIVATE "${G_GRADER_DIR}")
  target_link_libraries(${target} PRIVATE ${G_CHAPTER_LIB} scan_core scan_check scan_bench nlohmann_json::nlohmann_json)
endfunction()
