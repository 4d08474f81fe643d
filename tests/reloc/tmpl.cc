// C++ in an object: COMDAT groups (one section per template instance),
// inlined member functions, a lambda.
#include <algorithm>
#include <vector>

template <typename T> struct Acc {
	T total{};
	void add(T v) { total += v * v; }
	T get() const { return total; }
};

template <typename T> T reduce(const std::vector<T> &v)
{
	Acc<T> a;
	for (const T &x : v)
		a.add(x);
	return a.get();
}

int use_int(std::vector<int> &v)
{
	std::sort(v.begin(), v.end(), [](int a, int b) { return a > b; });
	return reduce(v);
}

double use_double(const std::vector<double> &v)
{
	return reduce(v);
}
