// A multi-threaded workload whose stacks run through libc's and
// libstdc++'s own code, for the --call-graph dwarf oracle test: one thread
// recurses (up to deeper than perf's 8 KB stack copy) and sorts with
// qsort, whose comparator libc calls back; the other sorts with std::sort
// and a lambda and formats with std::ostringstream (libstdc++ into libc's
// printf code). Built -O2 -fomit-frame-pointer: only CFI unwinds it.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

__attribute__((noinline)) static long descend(int depth, std::vector<int> &v)
{
	volatile char pad[80];

	pad[depth % 80] = (char)depth;
	if (depth > 0) {
		long r = descend(depth - 1, v);
		asm volatile("" : "+r"(r)); // no tail call, no loop
		return r + pad[depth % 80];
	}
	for (size_t i = 0; i < v.size(); i++)
		v[i] = (int)((v[i] * 1103515245u + 12345u) % 100003u);
	qsort(v.data(), v.size(), sizeof(int), cmp_int);
	return v[v.size() / 2];
}

__attribute__((noinline)) static std::string format(const std::vector<double> &d)
{
	std::ostringstream os;

	for (double x : d)
		os << x << ' ';
	return os.str();
}

static void recurser(int rounds, long *out)
{
	std::vector<int> v(4000);
	long s = 0;

	for (size_t i = 0; i < v.size(); i++)
		v[i] = (int)i;
	for (int k = 0; k < rounds; k++)
		s += descend(k % 120, v);
	*out = s;
}

static void formatter(int rounds, long *out)
{
	std::vector<double> d(3000);
	long s = 0;

	for (int k = 0; k < rounds; k++) {
		for (size_t i = 0; i < d.size(); i++)
			d[i] = std::sin((double)(i * 7 + k));
		std::sort(d.begin(), d.end(),
			  [](double a, double b) { return std::fabs(a) < std::fabs(b); });
		s += (long)format(d).size();
	}
	*out = s;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;
	long a = 0, b = 0;
	std::thread t1(recurser, 40 * n, &a);
	std::thread t2(formatter, 3 * n, &b);

	t1.join();
	t2.join();
	printf("%ld %ld\n", a, b);
	return 0;
}
