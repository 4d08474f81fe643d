# Shared helpers for psym's shell tests. Source it: . "$top_srcdir/tests/lib.sh"
# Each test runs in its own temporary directory, exits 0 (pass), 1 (fail)
# or 77 (skip, with the reason printed).
set -u
: "${top_srcdir:?run through make check}"
: "${top_builddir:?run through make check}"
PSYM=${PSYM:-$top_builddir/psym}
unset DEBUGINFOD_URLS
export LC_ALL=C
# Python helpers imported from the source tree (tests/*.py) leave no
# __pycache__ there.
export PYTHONDONTWRITEBYTECODE=1
# Sanitizer builds: leaks inside system libraries psym cannot free (see the file).
LSAN_OPTIONS=${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$top_srcdir/tests/fuzz/lsan.supp:print_suppressions=0
export LSAN_OPTIONS

T=$(mktemp -d "${TMPDIR:-/tmp}/psym-test.XXXXXX")
# When the test began: its log ends with how long it took (check-all lists
# the slowest tests of each run).
T0=$(date +%s)
# Only the test's own shell cleans up: dash runs EXIT traps in background
# subshells too, which would delete $T under a running test. The exec makes
# sh a child of the shell asking (without it, bash forks an extra subshell in
# a trap: the EXIT trap never matched, and no test removed $T or stopped its
# debuginfod server).
TOPPID=$(exec sh -c 'echo $PPID')
# descendants PID: every live process below PID (children first, then theirs).
descendants() {
	ps -eo pid=,ppid= 2>/dev/null | awk -v top="$1" '
		{ kids[$2] = kids[$2] " " $1 }
		END {
			n = split(kids[top], q, " ")
			for (i = 1; i <= n; i++) {
				print q[i]
				m = split(kids[q[i]], c, " ")
				for (j = 1; j <= m; j++) q[++n] = c[j]
			}
		}'
}
# marked: every live process carrying this test's mark in its environment,
# also those that left the process tree (a double fork, a daemon).
PSYM_TEST_MARK=$T
export PSYM_TEST_MARK
marked() {
	local e p
	for e in /proc/[0-9]*/environ; do
		p=${e#/proc/}
		p=${p%/environ}
		[ "$p" = "$TOPPID" ] && continue
		{ tr '\0' '\n' <"$e"; } 2>/dev/null | grep -qxF "PSYM_TEST_MARK=$T" && echo "$p"
	done
}
# stop_children: end every process the test started (servers, programs run
# in the background, timeouts), also those it forgot to kill: TERM, then
# KILL for any still alive two seconds later. The helpers of the search
# itself are gone by the time kill runs.
stop_children() {
	local pids p i alive
	pids=$({ descendants "$TOPPID"; marked; } | sort -u | tr '\n' ' ')
	[ -n "${pids% }" ] || return 0
	# shellcheck disable=SC2086
	kill $pids 2>/dev/null
	for i in 1 2 3 4 5 6 7 8 9 10; do
		alive=""
		for p in $pids; do kill -0 "$p" 2>/dev/null && alive="$alive $p"; done
		[ -z "$alive" ] && return 0
		sleep 0.2
	done
	# shellcheck disable=SC2086
	kill -9 $alive 2>/dev/null
	return 0
}
cleanup() {
	[ "$(exec sh -c 'echo $PPID')" = "$TOPPID" ] || return 0
	trap - EXIT INT TERM HUP
	stop_children
	echo "# took $(($(date +%s) - T0)) s"
	# A test may leave a directory without write permission: removable anyway.
	rm -rf "$T" 2>/dev/null || { chmod -R u+rwx "$T" 2>/dev/null; rm -rf "$T"; }
}
# Also when the test is interrupted or timed out (make check -k, timeout(1),
# ^C): the exit status says which signal ended it.
trap cleanup EXIT
trap 'cleanup; exit 129' HUP
trap 'cleanup; exit 130' INT
trap 'cleanup; exit 143' TERM
cd "$T" || exit 99
# Each test has its own caches (the symbol cache, extracted packages).
XDG_CACHE_HOME=$T/.cache
export XDG_CACHE_HOME
# perf's build-ID cache, which perf record fills and psym reads: the test's own.
PERF_BUILDID_DIR=$T/.debug
export PERF_BUILDID_DIR
# No per-build-ID index unless a test names a store (--index-store): the
# other tests check what the DWARF answers and says.
PSYM_INDEX_STORE=off
export PSYM_INDEX_STORE

n_fail=0
n_ok=0

pass() { n_ok=$((n_ok + 1)); echo "ok - $*"; }
fail() { n_fail=$((n_fail + 1)); echo "FAIL - $*"; }
skip() { echo "SKIP: $*"; exit 77; }
need() { command -v "$1" >/dev/null 2>&1 || skip "$1 is not installed${2:+ ($2)}"; }

# check NAME CMD...: run CMD, pass if it exits 0.
check() {
	local name=$1
	shift
	if "$@"; then pass "$name"; else fail "$name"; fi
}

# expect_exit CODE NAME CMD...: pass if CMD exits with CODE.
expect_exit() {
	local want=$1 name=$2 rc
	shift 2
	"$@" && rc=0 || rc=$?
	if [ "$rc" = "$want" ]; then pass "$name"; else fail "$name (exit $rc, want $want)"; fi
}

# The profile.proto for protoc --decode / --encode.
PROTO_DIR=$top_srcdir/proto

# encode_txtpb IN.txtpb OUT.pb: protoc text format -> binary profile.
encode_txtpb() {
	protoc --proto_path="$PROTO_DIR" --encode=perftools.profiles.Profile profile.proto <"$1" >"$2"
}

# decode_pb FILE: binary (gzip'd or not) profile -> protoc text format.
decode_pb() {
	if [ "$(head -c2 "$1" | od -An -tx1 | tr -d ' ')" = "1f8b" ]; then
		gzip -dc "$1"
	else
		cat "$1"
	fi | protoc --proto_path="$PROTO_DIR" --decode=perftools.profiles.Profile profile.proto
}

# start_debuginfod DIR: a real debuginfod server on a free loopback port
# indexing DIR; sets $url and $server, and waits until BUILDID ($2) is served.
start_debuginfod() {
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	debuginfod -F "$1" -p "$port" -d "$T/db-$port.sqlite" -t 0 >"$T/debuginfod-$port.log" 2>&1 &
	server=$!
	url=http://127.0.0.1:$port
	python3 - "$url" "$2" <<'PY'
import sys, time, urllib.request
url, bid = sys.argv[1:]
for _ in range(300):
    try:
        urllib.request.urlopen(f"{url}/buildid/{bid}/debuginfo", timeout=2).read(); sys.exit(0)
    except Exception:
        time.sleep(0.1)
sys.exit(1)
PY
}

# unbuildable NAME REASON: a fixture that could not be built here. The test
# then ends as a skip (exit 77) naming it, never as a silent pass.
n_unbuilt=0
unbuilt=""
unbuildable() {
	n_unbuilt=$((n_unbuilt + 1))
	unbuilt="$unbuilt
  $1: $2"
	echo "SKIP-PART - $1 cannot be built here: $2"
}

# finish: the test's verdict. Failures fail; a test that checked nothing
# fails too (it proved nothing); fixtures that could not be built make it
# a skip with their reasons.
finish() {
	echo "# $n_ok passed, $n_fail failed"
	if [ "$n_fail" -ne 0 ]; then
		return 1
	fi
	if [ "$n_ok" -eq 0 ]; then
		echo "FAIL - no check ran: the test proved nothing"
		return 1
	fi
	if [ "$n_unbuilt" -ne 0 ]; then
		echo "SKIP: $n_unbuilt fixture(s) could not be built:$unbuilt"
		exit 77
	fi
	return 0
}

# ---- testdata/bad/READERS: the hostile inputs of every reader --------------
# readers_setup: the profiles and sysroot the READERS arguments refer to,
# and "table" (the rows without comments) in the current directory.
readers_setup() {
	encode_txtpb "$top_srcdir/testdata/bad/host-kernel.txtpb" kernel.pb
	encode_txtpb "$top_srcdir/testdata/bad/host-jit.txtpb" jit.pb
	mkdir -p root/dir
	mkfifo root/fifo
	grep -v '^#' "$top_srcdir/testdata/bad/READERS" | grep . >table
}

# readers_argv N FILE ARGS: sets $f (the input, a .txtpb encoded first) and
# $argv (ARGS with {} replaced by it).
readers_argv() {
	f=$top_srcdir/testdata/bad/$2
	case $2 in
	*.txtpb) encode_txtpb "$f" "in-$1.pb"; f=$PWD/in-$1.pb ;;
	esac
	# shellcheck disable=SC2086
	set -- $3
	argv=""
	for a in "$@"; do
		[ "$a" = "{}" ] && a=$f
		argv="$argv $a"
	done
}

# llvm_agree PROFILE ELF [SLIDE]: every location of a symbolized PROFILE
# (address - SLIDE, hex, = ELF virtual address) has the frames
# llvm-symbolizer --inlines gives for ELF: same function (mangled), file and
# line for each inline level, wherever llvm-symbolizer has DWARF lines. An
# independent oracle for symbolize's output.
llvm_agree() {
	"$PSYM" show --json "$1" >agree.json || return 1
	python3 - "${3:-0}" <<'PY' >agree.addrs || return 1
import json, sys
slide = int(sys.argv[1], 16)
for loc in json.load(open("agree.json"))["locations"]:
    print("0x%x" % (loc["address"] - slide))
PY
	llvm-symbolizer --inlines --no-demangle --output-style=JSON -e "$2" <agree.addrs >agree.llvm || return 1
	python3 - "${3:-0}" <<'PY'
import json, sys
slide = int(sys.argv[1], 16)
d = json.load(open("agree.json"))
fn = {f["id"]: f for f in d["functions"]}
want = {}
for l in open("agree.llvm"):
    o = json.loads(l)
    fr = [(f["FunctionName"], f["FileName"], f["Line"]) for f in o["Symbol"]]
    # Only addresses with DWARF lines are compared here (symbol-table-only
    # answers, e.g. past a section's end, are checked against nm elsewhere).
    if fr and fr[0][1]:
        want[int(o["Address"], 16)] = fr
good = bad = 0
for loc in d["locations"]:
    got = [(fn[x["function_id"]]["system_name"], fn[x["function_id"]]["filename"], x["line"])
           for x in loc.get("lines", [])]
    a = loc["address"] - slide
    if a not in want:
        continue
    if got == want[a]:
        good += 1
    else:
        bad += 1
        if bad < 5: print(hex(a), got, want.get(a))
print(good, "of", good + bad, "agree with llvm-symbolizer")
sys.exit(1 if bad or not good else 0)
PY
}

# pprof_testdata: pprof's own test files (profile/testdata: legacy and Java
# profiles with their expected dumps), from Debian's
# golang-github-google-pprof-dev, fetched into $T/pprof-pkg (never kept in
# the tree). Prints the testdata directory; 1 (with why on stderr) when the
# package cannot be had. The package's Go source tree (pprof's packages)
# is that directory less /src/github.com/google/pprof/profile/testdata.
pprof_testdata() {
	_pkg=golang-github-google-pprof-dev
	if [ ! -d "$T/pprof-pkg" ]; then
		command -v apt-get >/dev/null 2>&1 && command -v dpkg-deb >/dev/null 2>&1 ||
			{ echo "no apt-get or dpkg-deb to fetch $_pkg" >&2; return 1; }
		mkdir -p "$T/pprof-deb" &&
			(cd "$T/pprof-deb" && timeout 300 apt-get download "$_pkg") >"$T/pprof-apt.log" 2>&1 &&
			ls "$T/pprof-deb/$_pkg"_*.deb >/dev/null 2>&1 &&
			dpkg-deb -x "$T/pprof-deb/$_pkg"_*.deb "$T/pprof-pkg" ||
			{ echo "apt-get download $_pkg failed (package registry unreachable?): $(tail -1 "$T/pprof-apt.log")" >&2
			  rm -rf "$T/pprof-pkg"; return 1; }
		rm -rf "$T/pprof-deb"
	fi
	_d=$T/pprof-pkg/usr/share/gocode/src/github.com/google/pprof/profile/testdata
	[ -f "$_d/cppbench.cpu" ] || { echo "$_pkg has no profile/testdata" >&2; return 1; }
	echo "$_d"
}
