#include <scan/verify.hpp>

#include <cstdio>
#include <cstring>
#include <sstream>
#include <type_traits>

namespace scan {

template <class T>
std::string format_value(T value) {
  char text[64];
  if constexpr (std::is_same_v<T, float>) {
    std::snprintf(text, sizeof text, "%.9g", static_cast<double>(value));
  } else if constexpr (std::is_floating_point_v<T>) {
    std::snprintf(text, sizeof text, "%.17Lg", static_cast<long double>(value));
  } else if constexpr (std::is_signed_v<T>) {
    std::snprintf(text, sizeof text, "%lld", static_cast<long long>(value));
  } else {
    std::snprintf(text, sizeof text, "%llu", static_cast<unsigned long long>(value));
  }
  return text;
}

std::string VerifyReport::describe() const {
  if (ok) return {};
  std::ostringstream text;
  text << wrong << " of " << n << " elements wrong; first at index " << first_bad << ": expected "
       << expected << ", got " << got;
  for (const auto& line : neighbourhood) text << "\n    " << line;
  return text.str();
}

template std::string format_value<std::int32_t>(std::int32_t);
template std::string format_value<std::uint32_t>(std::uint32_t);
template std::string format_value<std::int64_t>(std::int64_t);
template std::string format_value<float>(float);
template std::string format_value<double>(double);

}  // namespace scan
