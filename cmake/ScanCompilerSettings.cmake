# Compiler settings shared by every target of the tutorial.
#
# CMake 3.25 (Debian 12) knows no flag for C++20 with nvcc: asking for
# CUDA_STANDARD 20 fails at generate time with "CMake does not know the flags
# to enable it". nvcc has accepted -std=c++20 since CUDA 12.0, so we teach
# CMake the flag. Newer CMake versions define these variables themselves and
# this block does nothing there.
if(CMAKE_CUDA_COMPILER_ID STREQUAL "NVIDIA"
   AND CMAKE_CUDA_COMPILER_VERSION VERSION_GREATER_EQUAL 12.0
   AND NOT DEFINED CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
  set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
  set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
endif()

set(CMAKE_CXX_STANDARD 20)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)
set(CMAKE_CUDA_STANDARD 20)
set(CMAKE_CUDA_STANDARD_REQUIRED ON)
set(CMAKE_CUDA_EXTENSIONS OFF)

# Link the CUDA runtime statically, so the programs in bin/ run on any machine
# with a driver, without the toolkit installed.
set(CMAKE_CUDA_RUNTIME_LIBRARY Static)

# scan_warnings: an interface target every tutorial target links.
add_library(scan_warnings INTERFACE)
# GCC before 14 warns about every member a designated initializer leaves out
# (`{.name = ..., .summary = ...}`), even members with default initializers,
# which is how VariantInfo is meant to be filled in: that one warning is off.
target_compile_options(scan_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wno-missing-field-initializers>
  $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra,-Wno-missing-field-initializers -lineinfo>)
if(SCAN_WARNINGS_AS_ERRORS)
  target_compile_options(scan_warnings INTERFACE
    $<$<COMPILE_LANGUAGE:CXX>:-Werror>
    $<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings -Xcompiler=-Werror>)
endif()
