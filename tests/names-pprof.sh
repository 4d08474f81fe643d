#!/bin/sh
# Function names as pprof writes them (issue 54, item 6). An -O2 C++
# program with templates, lambdas, operators (<, <<, (), <=, bool),
# anonymous namespaces, std:: containers and clones (.cold, .isra,
# .constprop): an unsymbolized profile with every instruction of .text,
# symbolized by psym with each --demangle mode, against go tool pprof's
# own Demangle pass (-symbolize=demangle=MODE) over the profile psym wrote
# with the mangled names, location by location and frame by frame; the
# binary is moved away first so that pprof only demangles. Then the
# reports' --demangle against pprof -top on that profile, and the
# demangler alone on every exported name of libstdc++ plus names that
# only look like C++ (pprof's heuristic), through psym top and pprof -top.
# pprof's own -symbolize=demangle=none demangles in full, clones kept (its
# empty option list); psym's none keeps the system name, checked as pprof
# -symbolize=none shows it.
. "$top_srcdir/tests/lib.sh"
need g++
need go
need protoc
need python3
need objdump
need readelf
need nm
CMP="python3 $top_srcdir/tests/cmp-names.py"

cat >t.cc <<'C'
#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <ostream>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>
namespace {
struct Key { int a, b; };
bool operator<(const Key &x, const Key &y) { return x.a < y.a || (x.a == y.a && x.b < y.b); }
std::ostream &operator<<(std::ostream &o, const Key &k) { return o << k.a << ':' << k.b; }
template <typename T> struct Acc {
	T sum{};
	void add(const T &v) { sum += v; }
	T operator()(T x) const { return sum * x; }
	bool operator<=(const Acc &o) const { return sum <= o.sum; }
	explicit operator bool() const { return sum != 0; }
};
}
namespace app {
template <typename K, typename V> class Table {
public:
	void put(const K &k, V v) { m_[k] += v; }
	std::vector<std::pair<K, V>> top(size_t n) const {
		std::vector<std::pair<K, V>> v(m_.begin(), m_.end());
		std::sort(v.begin(), v.end(), [](const auto &a, const auto &b) { return a.second > b.second; });
		if (v.size() > n) v.resize(n);
		return v;
	}
	template <int N> V scaled(const K &k) const { auto it = m_.find(k); return it == m_.end() ? V() : it->second * N; }
private:
	std::map<K, V> m_;
};
struct Base { virtual ~Base() {} virtual int f(int x) = 0; };
struct Derived : Base { int f(int x) override { return x * 3 + 1; } };
__attribute__((noinline)) int run(std::function<int(int)> fn, int n) { int s = 0; for (int i = 0; i < n; i++) s += fn(i); return s; }
}
__attribute__((noinline, cold)) void failure(const char *m) { std::fprintf(stderr, "%s\n", m); }
__attribute__((noinline)) int work(std::vector<int> &v, int k)
{
	if (v.empty()) { failure("empty"); return -1; }
	std::sort(v.begin(), v.end(), [k](int a, int b) { return (a % k) < (b % k); });
	return v[0];
}
int main(int argc, char **argv)
{
	app::Table<std::string, long> t;
	app::Table<Key, int> tk;
	Acc<long> acc;
	std::unordered_map<int, std::string> um;
	for (int i = 0; i < 1000 * argc; i++) {
		std::string k = "k" + std::to_string(i % 97);
		t.put(k, i);
		tk.put(Key{i % 7, i % 3}, i);
		acc.add(i);
		um[i % 13] = k;
	}
	std::ostringstream os;
	for (auto &p : tk.top(3)) os << p.first << ' ';
	for (auto &p : t.top(5)) std::printf("%s %ld\n", p.first.c_str(), p.second);
	std::unique_ptr<app::Base> b(new app::Derived);
	int r = app::run([&](int x) { return b->f(x) + acc(x) + (acc <= acc); }, argc * 10);
	std::vector<int> v(argc * 100);
	for (size_t i = 0; i < v.size(); i++) v[i] = (int)(i * 7919 % 1000);
	std::printf("%d %ld %s %d %ld %zu\n", r, acc.sum, os.str().c_str(), work(v, 7), t.scaled<3>("k1"), um.size());
	return (bool)acc ? 0 : 1;
}
C
if ! g++ -O2 -g -o t t.cc 2>build.err; then
	unbuildable t "$(head -c 200 build.err | tr '\n' ' ')"
	finish
	exit $?
fi
# A maps line for the executable segment (loaded at a PIE base), and every
# instruction of .text at its runtime address, one sample each.
python3 - "$T/t" >maps <<'PY' || { fail "no executable segment in t"; finish; exit 1; }
import subprocess, sys
path = sys.argv[1]
base = 0x555555554000 if "DYN" in subprocess.run(["readelf", "-h", path], capture_output=True, text=True).stdout else 0
for l in subprocess.run(["readelf", "-lW", path], capture_output=True, text=True).stdout.splitlines():
    w = l.split()
    if w[:1] == ["LOAD"] and "E" in w[6:-1]:
        off, va, msz = int(w[1], 16), int(w[2], 16), int(w[5], 16)
        lo, hi = (base + va) & ~0xfff, (base + va + msz + 0xfff) & ~0xfff
        print("%x-%x r-xp %08x 08:01 1 %s" % (lo, hi, off & ~0xfff, path))
        sys.exit(0)
sys.exit(1)
PY
bias=$(python3 -c 'import sys; print(0x555555554000)')
readelf -h t | grep -q DYN || bias=0
objdump -d --no-show-raw-insn -j .text t | sed -n 's/^ *\([0-9a-f]\{1,16\}\):.*/\1/p' |
	python3 -c 'import sys; [print(hex(int(l, 16) + int(sys.argv[1]))) for l in sys.stdin]' "$bias" >stacks
python3 "$top_srcdir/tests/mkprofile.py" maps stacks >p.txtpb && encode_txtpb p.txtpb p.pb ||
	{ fail "cannot make the profile"; finish; exit 1; }
echo "# $(wc -l <stacks) addresses"

for m in none default templates full; do
	"$PSYM" symbolize -q --no-index --demangle=$m -o s.$m.pb p.pb 2>err.$m ||
		fail "symbolize --demangle=$m: $(head -3 err.$m)"
	decode_pb s.$m.pb >s.$m.txt
done
"$PSYM" symbolize -q --no-index -o s.plain.pb p.pb && decode_pb s.plain.pb >s.plain.txt
check "symbolize without --demangle names as --demangle=default" $CMP s.plain.txt s.default.txt
# The fixture has what the simplification must get right.
python3 "$top_srcdir/tests/cmp-names.py" --list s.default.txt >names.default
for want in 'app::run' 'app::Table::top' 'std::_Hashtable::_M_rehash' 'operator()' \
	'app::Table::top(unsigned long) const::{lambda(auto:1 const&, auto:2 const&)#1}::operator()'; do
	if grep -qxF "$want" names.default; then pass "default names have '$want'"
	else fail "default names lack '$want'"; fi
done
if grep -q 'clone \.\|^std::vector<' names.default; then
	fail "default names keep template arguments or clone suffixes"
else pass "default names have no template arguments, no clone suffixes"; fi

# pprof demangles the profile psym wrote with mangled names, and nothing
# else: the binary is out of its reach.
mv t t.away
for m in default templates full; do
	PPROF_BINARY_PATH=$T/nowhere go tool pprof -symbolize=demangle=$m -proto s.none.pb >g.$m.pb 2>g.$m.err
	decode_pb g.$m.pb >g.$m.txt
	if $CMP s.$m.txt g.$m.txt >cmp.$m; then pass "symbolize --demangle=$m = pprof's names: $(tail -1 cmp.$m)"
	else fail "symbolize --demangle=$m: $(tail -1 cmp.$m)"; head -12 cmp.$m; fi
done
# The system name is the mangled name whatever the mode.
check "system names are the mangled names" $CMP --system s.default.txt s.none.txt

# Reports: pprof renames the functions named by their system name on
# every read (psym: --demangle=default), and all of them with
# -symbolize=demangle=MODE.
top_same() { # NAME PROFILE "PSYM-ARGS" "PPROF-ARGS" [PPROF-PROFILE]
	"$PSYM" top $3 "$2" >top.a 2>/dev/null
	PPROF_BINARY_PATH=$T/nowhere go tool pprof -top -nodecount=100000 -nodefraction=0 \
		-edgefraction=0 $4 "${5:-$2}" >top.b 2>/dev/null
	if [ -s top.a ] && cmp -s top.a top.b; then pass "$1"; else
		fail "$1"; diff top.a top.b | head -8; fi
}
top_same "top --demangle=default of mangled names = pprof -top" s.none.pb "--demangle=default" ""
for m in default templates full; do
	top_same "top --demangle=$m = pprof -top -symbolize=demangle=$m" s.default.pb \
		"--demangle=$m" "-symbolize=demangle=$m"
done
top_same "top --demangle=none = pprof -top -symbolize=none on mangled names" s.default.pb \
	"--demangle=none" "-symbolize=none" s.none.pb
mv t.away t
expect_exit 2 "symbolize --demangle=bogus: a usage error" "$PSYM" symbolize --demangle=bogus p.pb -o x.pb
expect_exit 2 "top --demangle=simple: a usage error (pprof's word is default)" \
	"$PSYM" top --demangle=simple s.none.pb

# The demangler alone: every exported C++ name of libstdc++, this
# program's symbols, and names that only look like C++.
lib=$(g++ -print-file-name=libstdc++.so.6)
{
	# (nm -D shows each name's version after '@', which is no part of it)
	nm -D --defined-only "$lib" 2>/dev/null | awk '$3 ~ /^_Z/ { sub(/@.*/, "", $3); print $3 }'
	nm --defined-only t | awk '$3 ~ /^_Z/ { print $3 }'
	cat <<'N'
std::vector<int, std::allocator<int> >::push_back(int const&)
ns::f<(3)>(2)>(x)::{lambda()#1}
Ljava/lang/Object;.<init>
main.(*Map[...]).Get
pkg.Fn[...].func1
operator<<(std::ostream&, Foo const&)
a::b(c::d<e>(f)) const
broken<(x>
main
N
} | sort -u >names
echo "# $(wc -l <names) names"
python3 "$top_srcdir/tests/gennames.py" names >n.txtpb && encode_txtpb n.txtpb n.pb
top_same "demangler: names as pprof simplifies them on reading" n.pb "--demangle=default" ""
for m in default templates full; do
	top_same "demangler: --demangle=$m = pprof -symbolize=demangle=$m ($(wc -l <names) names)" \
		n.pb "--demangle=$m" "-symbolize=demangle=$m"
done
finish
