# Two architecture lists, one build.
#
# CMAKE_CUDA_ARCHITECTURES   what the user asked for: chapters 00 to 10,
#                            common/, the tests and the kit are built for
#                            it. They need sm_70 or newer (__nanosleep and
#                            acquire/release atomics); CUDA 13 itself starts
#                            at sm_75 (Turing: T4, RTX 20).
# SCAN_HOPPER_ARCHITECTURES  what chapters 11 to 14, and every target that
#                            compiles their code, are built for: the
#                            requested architectures at sm_90 or newer, or
#                            90 when none is. Their bulk copies and mbarriers
#                            exist from Hopper on, and they say so at run
#                            time on an older GPU (ArchitectureNeed).
#
# Included before project(), where scan_check_architectures() refuses a
# list with too old an entry in words a reader understands (nvcc's own
# error would come from inside CMake's compiler test); after project(),
# scan_resolve_architectures() resolves `native`, `all` and `all-major` and
# sets SCAN_HOPPER_ARCHITECTURES. scan_needs_hopper(target ...) gives
# targets the second list: a per-target list, not __CUDA_ARCH__ guards,
# which would silently compile the Hopper path out of a build that ships
# only older PTX.

# Fails unless every entry of `architectures` is a number of sm_70 or newer
# (with an optional a, -real or -virtual); the keywords pass.
function(scan_check_architectures architectures)
  if(architectures MATCHES "^(native|all|all-major)$")
    return()
  endif()
  foreach(arch IN LISTS architectures)
    string(REGEX MATCH "^[0-9]+" number "${arch}")
    if(NOT number)
      message(FATAL_ERROR "CMAKE_CUDA_ARCHITECTURES holds '${arch}', which is not an architecture "
                          "(use numbers such as 75;86;90, or native, all, all-major)")
    endif()
    if(number LESS 70)
      message(FATAL_ERROR "CMAKE_CUDA_ARCHITECTURES holds ${arch}, but the tutorial's kernels need "
                          "sm_70 or newer (__nanosleep, acquire/release atomics): leave it out, or name "
                          "75 (T4, RTX 20), 80 (A100), 86 (RTX 30), 89 (RTX 40), 90 (H100)")
    endif()
  endforeach()
endfunction()

# After project(): sets SCAN_HOPPER_ARCHITECTURES in the caller's scope.
function(scan_resolve_architectures)
  set(requested "${CMAKE_CUDA_ARCHITECTURES}")
  if(requested STREQUAL "native")
    set(requested "${CMAKE_CUDA_ARCHITECTURES_NATIVE}")
  elseif(requested STREQUAL "all" OR requested STREQUAL "all-major")
    # Every architecture this nvcc compiles for ("compute_75 compute_80 ..."),
    # as machine code, and the newest as PTX too (what nvcc's -arch=all does),
    # from sm_70 on. Asked of nvcc, not taken from CMake's
    # CMAKE_CUDA_ARCHITECTURES_ALL: CMake 3.25 does not know CUDA 13, and
    # lists architectures that nvcc no longer has. The resolved list then
    # replaces the keyword for every target, since CUDA 12's own `all`
    # includes sm_50 and sm_60, which the chapters cannot be built for.
    execute_process(COMMAND "${CMAKE_CUDA_COMPILER}" --list-gpu-arch OUTPUT_VARIABLE listed
                    RESULT_VARIABLE result ERROR_QUIET)
    if(NOT result EQUAL 0)
      message(FATAL_ERROR "`${CMAKE_CUDA_COMPILER} --list-gpu-arch` failed: cannot resolve "
                          "CMAKE_CUDA_ARCHITECTURES=${CMAKE_CUDA_ARCHITECTURES}")
    endif()
    string(REGEX MATCHALL "compute_[0-9]+" listed "${listed}")
    string(REPLACE "compute_" "" listed "${listed}")
    list(SORT listed COMPARE NATURAL)
    set(requested "")
    foreach(arch IN LISTS listed)
      math(EXPR minor "${arch} % 10")
      if(arch LESS 70)
        continue()
      endif()
      if(CMAKE_CUDA_ARCHITECTURES STREQUAL "all" OR minor EQUAL 0)
        list(APPEND requested "${arch}-real")
      endif()
    endforeach()
    list(POP_BACK requested newest)
    string(REPLACE "-real" "" newest "${newest}")
    list(APPEND requested "${newest}")
    set(CMAKE_CUDA_ARCHITECTURES "${requested}" PARENT_SCOPE)
  endif()
  scan_check_architectures("${requested}")

  set(hopper "")
  foreach(arch IN LISTS requested)
    string(REGEX MATCH "^[0-9]+" number "${arch}")
    if(NOT number LESS 90)
      list(APPEND hopper "${arch}")
    endif()
  endforeach()
  if(NOT hopper)
    set(hopper 90)
  endif()
  set(text "${CMAKE_CUDA_ARCHITECTURES}")
  if(NOT text STREQUAL "${requested}")
    string(APPEND text " (${requested})")
  endif()
  message(STATUS "CUDA architectures: chapters 00-10 ${text}; chapters 11-14 ${hopper}")
  # A kernel template instantiated in two translation units built for
  # different lists (chapter 10's kernel in chapter 10, for every GPU, and in
  # chapter 11, for Hopper alone) must stay two kernels, each launched from
  # its own unit. nvcc makes the host stubs of kernel templates static by
  # default from CUDA 13 on; CUDA 12.8 and 12.9 have the flag, off by default;
  # before 12.8 the linker keeps one stub, which may launch the other unit's
  # copy (then the GPU has no code for it).
  if(CMAKE_CUDA_COMPILER_VERSION VERSION_GREATER_EQUAL 12.8 AND CMAKE_CUDA_COMPILER_VERSION VERSION_LESS 13.0)
    add_compile_options($<$<COMPILE_LANGUAGE:CUDA>:-static-global-template-stub=true>)
  elseif(CMAKE_CUDA_COMPILER_VERSION VERSION_LESS 12.8 AND NOT requested STREQUAL "${hopper}")
    message(WARNING "CUDA ${CMAKE_CUDA_COMPILER_VERSION} is older than 12.8: a program that links code of "
                    "both lists (the scoreboard, the tests) may launch a kernel built for the other list. "
                    "Each chapter's own program is not affected. Use CUDA 12.8 or newer, or build for one "
                    "list (-DCMAKE_CUDA_ARCHITECTURES=90 on a Hopper GPU).")
  endif()
  set(SCAN_HOPPER_ARCHITECTURES "${hopper}" PARENT_SCOPE)
  # The resolved list (no keywords), for the test that checks which code runs.
  set(SCAN_RESOLVED_ARCHITECTURES "${requested}" PARENT_SCOPE)
endfunction()

function(scan_needs_hopper)
  set_target_properties(${ARGN} PROPERTIES CUDA_ARCHITECTURES "${SCAN_HOPPER_ARCHITECTURES}")
endfunction()
