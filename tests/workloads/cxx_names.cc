// SPDX-License-Identifier: MIT
/* C++ demo workload for demangling (built by tests/e2e/symbols_demangle.sh with g++): time
 * goes to a namespaced function, a member of a class template, a function of an anonymous
 * namespace and a member of a template whose demangled name is over 1,000 bytes long,
 * argv[1] iterations each (default 30M, about 0.1 s). */
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
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

namespace hws_long {
typedef std::map<std::string, std::vector<std::string> > M;
template <typename A, typename B, typename C, typename D> struct Wide {
	__attribute__((noinline)) long go(long n)
	{
		long s = 0;

		for (long i = 0; i < n; i++)
			s += (i ^ 3) % 5;
		return s;
	}
};
} // namespace hws_long

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
	hws_long::Wide<hws_long::M, std::map<hws_long::M, hws_long::M>, std::vector<hws_long::M>,
		       std::map<std::string, hws_long::M> >
	    w;

	std::printf("%ld %ld %f %ld\n", a.v, hws_demo::spin(n, 5), hidden(n), w.go(n));
	return 0;
}
