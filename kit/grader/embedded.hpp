// What the build embeds in the grader (kit/cmake/embed.cmake writes it):
// the configuration (kit.json) and the graded source files.
#pragma once

namespace kit {

/// A graded source file as it was compiled.
struct EmbeddedFile {
  const char* name;  ///< its path in the student folder, e.g. "chapters/03_shared_memory/shared_memory.cuh"
  const char* text;  ///< its contents
};

extern const char kConfig[];          ///< kit.json
extern const EmbeddedFile kFiles[];   ///< the graded files
extern const int kFileCount;          ///< how many

}  // namespace kit
