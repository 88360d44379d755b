/// \file
/// \brief Poisoned outputs: what an element holds before anything writes it.
///
/// Every check fills the output with poison before a run, so an element a
/// variant never wrote cannot pass by holding a plausible value: integers
/// get the byte 0xA5 repeated, floating point all bits set (a NaN, which
/// fails every comparison). The step traces poison their rows the same way.
#pragma once

#include <cstring>
#include <type_traits>

namespace scan {

/// The byte a poisoned buffer is filled with (cudaMemset and memset take one byte).
template <class T>
constexpr unsigned char poison_byte() {
  return std::is_floating_point_v<T> ? 0xFF : 0xA5;
}

/// The value a poisoned element holds: poison_byte() in every byte.
template <class T>
T poison_value() {
  T value;
  std::memset(&value, poison_byte<T>(), sizeof value);
  return value;
}

}  // namespace scan
