// SPDX-License-Identifier: GPL-2.0
// C++ workload for the unwinding tests, built with Debian's default flags
// (-O2 -g, no frame pointers): main -> run -> std::sort (libstdc++'s
// introsort, recursive) -> the comparator -> key(), the hot function.
#include <algorithm>
#include <cstdint>
#include <vector>

static volatile std::uint64_t sink;

__attribute__((noinline)) std::uint64_t key(std::uint64_t v)
{
	for (int i = 0; i < 40; i++)
		v = v * 6364136223846793005ULL + 1442695040888963407ULL;
	return v >> 7;
}

__attribute__((noinline)) void run(std::vector<std::uint64_t> &v,
				   std::uint64_t seed)
{
	for (auto &x : v) {
		seed = seed * 2862933555777941757ULL + 3037000493ULL;
		x = seed;
	}
	std::sort(v.begin(), v.end(), [](std::uint64_t a, std::uint64_t b) {
		return key(a) < key(b);
	});
	sink += v[0];
}

int main()
{
	std::vector<std::uint64_t> v(50000);

	for (std::uint64_t seed = 1;; seed++)
		run(v, seed);
}
