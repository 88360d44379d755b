#include <scan/format.hpp>

#include <bit>
#include <cmath>
#include <cstdio>
#include <iostream>

#include <sys/ioctl.h>
#include <unistd.h>

namespace scan {

std::string fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

double rounded(double value, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::round(value * scale) / scale;
}

std::string exponent(std::int64_t n) {
  if (n > 0 && (n & (n - 1)) == 0) return "2^" + std::to_string(std::countr_zero(static_cast<std::uint64_t>(n)));
  return std::to_string(n);
}

Progress::Progress(bool enabled)
    : enabled_(enabled), terminal_(isatty(STDERR_FILENO) != 0), start_(std::chrono::steady_clock::now()) {}

Progress::~Progress() { clear(); }

std::string Progress::stamp() const {
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  char text[32];
  std::snprintf(text, sizeof text, "[%.1f s] ", seconds);
  return text;
}

void Progress::step(const std::string& what, std::int64_t n) {
  if (!enabled_ || (!terminal_ && n < kLongRun)) return;
  if (terminal_) {
    // One row that is rewritten in place: cut it to the terminal's width.
    std::string line = stamp() + what;
    winsize size{};
    if (ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 1 && line.size() >= size.ws_col) {
      line.resize(size.ws_col - 1u);
    }
    std::cout.flush();  // what stdout holds goes out before the line is drawn
    std::cerr << "\r\033[K" << line << std::flush;
    shown_ = true;
  } else {
    std::cerr << stamp() << what << std::endl;
  }
}

void Progress::print(const std::string& line) {
  if (!enabled_) return;
  clear();
  std::cerr << line << std::endl;
}

void Progress::clear() {
  if (!shown_) return;
  std::cerr << "\r\033[K" << std::flush;
  shown_ = false;
}

}  // namespace scan
