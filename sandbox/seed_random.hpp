#pragma once
// The random draws of the fakes' seeds (Autotask, Pax8, Xero). std::mt19937 is specified bit for
// bit; the distributions of <random> are not, so the draws are plain arithmetic on its output and
// a seed gives the same rows everywhere.
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace sandbox {

class SeedRandom {
 public:
  explicit SeedRandom(std::uint32_t seed) : engine_(seed) {}
  std::uint32_t next() { return static_cast<std::uint32_t>(engine_()); }
  int between(int lo, int hi) { return hi <= lo ? lo : lo + static_cast<int>(engine_() % (hi - lo + 1)); }
  bool chance(double p) { return engine_() % 10'000 < p * 10'000; }
  double unit() { return engine_() / 4294967296.0; }
  template <class T>
  const T& pick(const std::vector<T>& v) {
    return v[engine_() % v.size()];
  }
  template <class T>
  void shuffle(std::vector<T>& v) {
    for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[engine_() % i]);
  }
  // A version-4 UUID (RFC 4122 variant), lowercase, from this generator.
  std::string uuid() {
    static constexpr char kHex[] = "0123456789abcdef";
    std::uint32_t words[4] = {next(), next(), next(), next()};
    words[1] = (words[1] & 0xFFFF0FFFu) | 0x00004000u;
    words[2] = (words[2] & 0x3FFFFFFFu) | 0x80000000u;
    std::string out(36, '-');
    for (std::size_t i = 0, at = 0; i < 32; ++i, ++at) {
      if (at == 8 || at == 13 || at == 18 || at == 23) ++at;
      out[at] = kHex[(words[i / 8] >> (28 - 4 * (i % 8))) & 0xF];
    }
    return out;
  }

 private:
  std::mt19937 engine_;
};

}  // namespace sandbox
