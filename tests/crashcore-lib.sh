# The crashing multi-threaded C++ program of the stack tests (sourced after
# tests/lib.sh): crash.cc, which calls abort() from a std::sort comparator
# while three threads sleep. Skips when gdb cannot run programs.
gdb -q -batch -ex run --args /bin/true >/dev/null 2>&1 || skip "gdb cannot run programs here (ptrace)"

cat >crash.cc <<'EOF'
#include <algorithm>
#include <cstdlib>
#include <thread>
#include <unistd.h>
#include <vector>
static volatile int ready;
__attribute__((noinline)) static bool check_and_compare(int a, int b)
{
	if (a == 42 && b == 42)
		abort();
	return a < b;
}
__attribute__((noinline)) void worker(int n)
{
	__sync_fetch_and_add(&ready, 1);
	for (;;)
		if (n >= 0)
			sleep(100);
}
int main()
{
	std::vector<std::thread> ts;
	for (int i = 0; i < 3; i++)
		ts.emplace_back(worker, i);
	while (ready < 3)
		usleep(1000);
	std::vector<int> v(100);
	for (int i = 0; i < 100; i++)
		v[i] = (i * 37) % 100;
	v[10] = v[20] = 42;
	std::sort(v.begin(), v.end(), [](int a, int b) { return check_and_compare(a, b); });
	return v[0];
}
EOF
