# psym-collect tests' shared set-up (sourced after lib.sh; POSIX sh).
#
# C: the psym-collect to test ($PSYM_COLLECT, else the build's).
# collector_need WHAT [OPTION...]: skip unless psym-collect is built, this
#   is root (WHAT: what needs root, for the message) and a 1 s collection
#   with OPTIONs works here (the skip says why not, in psym-collect's words).
# collector_at_exit CMD: run CMD (sh code, evaluated then: it may name
#   variables set later) when the test ends, whatever the path out, before
#   lib.sh's cleanup: how a test stops the processes it started.
# collector_bg PID: a process the test started, killed when it ends.
# libcbound_c FILE: write the libc-bound test program (most of its time in
#   memset/memcpy, called from its own burn(); argv[1]: seconds to run).
# bid FILE: FILE's build ID (readelf).
# pprof_field FILE FIELD: the value of go tool pprof -top's "FIELD: " line.
# mapping1 DECODED: the file name of the first mapping of a profile decoded
#   by protoc (decode_pb).
C=${PSYM_COLLECT:-$top_builddir/psym-collect}

collector_need() {
	what=$1
	shift
	[ -x "$C" ] || skip "psym-collect not built (configure --disable-collector)"
	[ "$(id -u)" = 0 ] || skip "not root: $what need root here"
	# Is BPF usable at all on this machine? Say why not, precisely.
	if ! "$C" "$@" -d 1 -o probe.pb.gz --no-side-files 2>probe.err; then
		case " $* " in
		*" --stack-copy "*) skip "BPF stack copies unavailable: $(tail -1 probe.err)" ;;
		*) skip "BPF unavailable: $(tail -1 probe.err)" ;;
		esac
	fi
}

collector_exit=
collector_pids=
collector_at_exit() {
	collector_exit="$collector_exit$1
"
}
collector_bg() {
	collector_pids="$collector_pids $1"
}
trap 'for p in $collector_pids; do kill $p 2>/dev/null; done; eval "$collector_exit"; cleanup' EXIT INT TERM

libcbound_c() {
	cat >"$1" <<'EOF2'
#include <stdlib.h>
#include <string.h>
#include <time.h>
static char a[1 << 16], b[1 << 16];
__attribute__((noinline)) void burn(void)
{
	memset(a, b[7], sizeof(a));
	memcpy(b, a, sizeof(b));
}
int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 2;
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < 100; i++)
			burn();
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	return 0;
}
EOF2
}

bid() { readelf -n "$1" | sed -n 's/.*Build ID: //p'; }

pprof_field() {
	go tool pprof -top -symbolize=none "$1" 2>/dev/null | sed -n "s/^$2: //p" | head -1
}

mapping1() {
	python3 - "$1" <<'EOF2'
import re, sys
text = open(sys.argv[1]).read()
strings = re.findall(r'^string_table: "(.*)"$', text, re.M)
m = re.search(r'^mapping \{(.*?)^\}', text, re.M | re.S).group(1)
print(strings[int(re.search(r'filename: (\d+)', m).group(1))])
EOF2
}

# busiest_pids DECODED: the pid(s) with the most sample value, from
# protoc --decode's text of a profile's samples and their pid labels;
# sampled_pids DECODED: how many pids have samples there.
busiest_pids() { pid_values "$1" busiest; }
sampled_pids() { pid_values "$1" count; }
pid_values() {
	python3 - "$1" "$2" <<'EOF2'
import re, sys
text = open(sys.argv[1]).read()
strings = re.findall(r'^string_table: "(.*)"$', text, re.M)
pid_key = strings.index("pid")
per = {}
for s in re.findall(r'^sample \{(.*?)^\}', text, re.M | re.S):
    v = int(re.findall(r'^  value: (\d+)', s, re.M)[0])
    for lab in re.findall(r'label \{(.*?)\}', s, re.S):
        if re.search(r'key: %d\b' % pid_key, lab):
            pid = int(re.search(r'num: (\d+)', lab).group(1))
            per[pid] = per.get(pid, 0) + v
if sys.argv[2] == "count":
    print(len(per))
else:
    best = max(per.values())
    print(" ".join(str(p) for p, n in per.items() if n == best))
EOF2
}

# collector_hogs: a CPU hog on each core (testdata/fib.c built here, as
# "hog"), killed when the test ends: the collector must hold on a loaded
# machine, so its tests load it themselves.
collector_hogs() {
	[ -x hog ] || gcc -O1 -o hog "$top_srcdir/testdata/fib.c" || fail "cannot build the CPU hog"
	_n=$(nproc 2>/dev/null || echo 2)
	while [ "$_n" -gt 0 ]; do
		./hog 60 >/dev/null &
		collector_bg $!
		_n=$((_n - 1))
	done
}
