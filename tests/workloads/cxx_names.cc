// SPDX-License-Identifier: MIT
/* C++ demo workload for demangling (built by tests/e2e/symbols_demangle.sh with g++): time
 * goes to a namespaced function, a member of a class template and a function of an
 * anonymous namespace, argv[1] iterations each (default 30M, about 0.1 s). */
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace hws_demo {
template <typename T> struct Acc {
	T v{};
	__attribute__((noinline)) void add(const std::vector<T> &xs)
	{
		for (auto x : xs)
			v = v * 3 + x;
	}
};

__attribute__((noinline)) long spin(long n, int k)
{
	long s = 0;

	for (long i = 0; i < n; i++)
		s += (i ^ k) % 7;
	return s;
}
} // namespace hws_demo

namespace {
__attribute__((noinline)) double hidden(long n)
{
	double d = 0;

	for (long i = 0; i < n; i++)
		d += (double)(i & 15) * 0.5;
	return d;
}
} // namespace

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 30000000;
	std::vector<long> xs(1000, 3);
	hws_demo::Acc<long> a;

	for (long i = 0; i < n / 1000; i++)
		a.add(xs);
	std::printf("%ld %ld %f\n", a.v, hws_demo::spin(n, 5), hidden(n));
	return 0;
}
