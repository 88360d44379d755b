# scan_add_chapter(NUMBER NN SLUG name SOURCES file.cu ... [MAIN main.cu]
#                  [DEPENDS scan_chMM ...] [HOST] [APPLICATIONS] [HOPPER])
#
# One call per chapter folder. It builds
#   scan_chNN            a static library: the chapter's algorithms and its
#                        list of variants, linked by the chapter's program,
#                        the generic GPU test suite and the scoreboard, so
#                        every kernel is compiled once;
#   chNN_<slug>          the chapter's program (from MAIN, default main.cu),
#                        placed in the build tree's bin/ folder;
# and records the chapter in the global list that generates the test suite's
# and the scoreboard's table of chapters (chapters/all_chapters.cpp).
# HOST marks a chapter that runs on the CPU (its generic suite is a [cpu] test).
# APPLICATIONS marks a chapter without scan variants (chapter 13): it builds
# its library and program but joins neither the chapter list nor the suite.
# HOPPER marks a chapter that needs sm_90 or newer (chapters 11 to 14): its
# library and program are built for SCAN_HOPPER_ARCHITECTURES only
# (cmake/ScanArchitectures.cmake).
function(scan_add_chapter)
  cmake_parse_arguments(CH "HOST;APPLICATIONS;HOPPER" "NUMBER;SLUG;MAIN" "SOURCES;DEPENDS" ${ARGN})
  if(NOT CH_NUMBER OR NOT CH_SLUG OR NOT CH_SOURCES)
    message(FATAL_ERROR "scan_add_chapter needs NUMBER, SLUG and SOURCES")
  endif()
  if(NOT CH_MAIN)
    set(CH_MAIN main.cu)
  endif()
  set(lib scan_ch${CH_NUMBER})
  add_library(${lib} STATIC ${CH_SOURCES})
  target_include_directories(${lib} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(${lib} PUBLIC scan_common ${CH_DEPENDS} PRIVATE scan_warnings)
  set(exe ch${CH_NUMBER}_${CH_SLUG})
  add_executable(${exe} ${CH_MAIN})
  target_link_libraries(${exe} PRIVATE ${lib} scan_warnings)
  if(CH_HOPPER)
    scan_needs_hopper(${lib} ${exe})
  endif()
  set_property(GLOBAL APPEND PROPERTY SCAN_CHAPTER_PROGRAMS "${exe}")
  if(CH_APPLICATIONS)
    set_property(GLOBAL APPEND PROPERTY SCAN_APPLICATION_LIBRARIES "${lib}")
    return()
  endif()
  set_property(GLOBAL APPEND PROPERTY SCAN_CHAPTERS "${CH_NUMBER}")
  if(CH_HOST)
    set_property(GLOBAL APPEND PROPERTY SCAN_HOST_CHAPTERS "${CH_NUMBER}")
  endif()
endfunction()
