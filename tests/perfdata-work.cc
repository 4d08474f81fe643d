// A workload with templates and inlining for the perf.data oracle tests.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

template <typename T> struct Acc {
	T sum{};
	inline void add(T v) { sum += v * v + (v >> 3); }
};

template <typename T> static T churn(std::vector<T> &v, int rounds)
{
	Acc<T> a;
	for (int r = 0; r < rounds; r++) {
		std::sort(v.begin(), v.end());
		for (auto x : v)
			a.add(x);
		std::reverse(v.begin(), v.end());
	}
	return a.sum;
}

__attribute__((noinline)) static long mapwork(int n)
{
	std::map<std::string, long> m;
	for (int i = 0; i < n; i++)
		m[std::to_string(i * 7919 % 10007)] += i;
	long s = 0;
	for (auto &kv : m)
		s += kv.second + (long)kv.first.size();
	return s;
}

__attribute__((noinline)) long run(int seconds_tenths)
{
	std::vector<long> v(20000);
	std::vector<int> w(30000);
	long total = 0;
	for (size_t i = 0; i < v.size(); i++)
		v[i] = (long)((i * 2654435761u) % 100000);
	for (size_t i = 0; i < w.size(); i++)
		w[i] = (int)((i * 40503u) % 65536);
	for (int k = 0; k < seconds_tenths; k++) {
		total += churn(v, 3);
		total += churn(w, 2);
		total += mapwork(20000);
	}
	return total;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20;
	printf("%ld\n", run(n));
	return 0;
}
