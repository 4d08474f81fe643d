#!/bin/sh
# psym-collect writes FILE.d/modules, the record of the loaded kernel
# modules psym uses to find their debug files by build ID: one line
# "NAME BUILD-ID TEXT-ADDRESS" per module with code. Checked against
# /sys/module itself: the same set of modules (those with a
# sections/.text; built-in ones have none), the .text address the kernel
# gives, and the build ID of the notes file (parsed here by Python) and,
# for the test module, of the .ko (readelf -n). When no module with code
# is loaded and the kernel takes modules, tests/kmod/pmod.c is built
# against this kernel's headers and loaded (rmmod at the end). A kernel
# without loadable modules skips (77) after checking that the file lists
# no built-in module.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/collector-lib.sh"
need readelf "binutils"
need python3
loaded=
collector_at_exit '[ -n "$loaded" ] && rmmod "$loaded" 2>/dev/null'
collector_need "BPF and perf events"

# with_code: the modules /sys/module shows with a .text section.
with_code() {
	for m in /sys/module/*; do
		[ -r "$m/sections/.text" ] && echo "${m##*/}"
	done | sort
}

why_none=
if [ -n "$(with_code)" ]; then
	:
elif [ ! -e /proc/modules ]; then
	why_none="this kernel ($(uname -r)) takes no loadable modules (no /proc/modules: built without CONFIG_MODULES)"
else
	# Load the test module, built against this kernel's own headers.
	HDR=/lib/modules/$(uname -r)/build
	[ -f "$HDR/Makefile" ] || HDR=/usr/src/linux-headers-$(uname -r)
	if [ ! -f "$HDR/Makefile" ]; then
		why_none="no module loaded and no headers for $(uname -r) to build one (have: $(ls -d /usr/src/linux-headers-* 2>/dev/null | tr '\n' ' '))"
	elif ! command -v make >/dev/null 2>&1 || ! command -v insmod >/dev/null 2>&1; then
		why_none="no module loaded, and make or insmod (kmod) is missing"
	else
		mkdir mod
		cp "$top_srcdir/tests/kmod/pmod.c" mod/
		echo 'obj-m := pmod.o' >mod/Kbuild
		if ! make -s -C "$HDR" M="$T/mod" modules >build.log 2>&1 || [ ! -f mod/pmod.ko ]; then
			why_none="no module loaded, and building one against $HDR failed: $(tail -1 build.log)"
		elif ! insmod mod/pmod.ko 2>insmod.log; then
			why_none="no module loaded, and insmod of the test module failed: $(cat insmod.log)"
		else
			loaded=pmod
		fi
	fi
fi

# System-wide for a second: kernel frames are sampled, so the side files
# that describe the kernel (kallsyms, modules) are written.
# A syscall-bound load runs meanwhile, so kernel stacks are sampled even on a
# quiet machine (the kernel's side files are written only then).
for try in 1 2 3; do
	dd if=/dev/zero of=/dev/null bs=16 count=100000000 2>/dev/null &
	load=$!
	"$C" -d 1 -o p.pb.gz 2>p.log || fail "psym-collect failed: $(tail -n 2 p.log)"
	kill "$load" 2>/dev/null
	wait "$load" 2>/dev/null
	[ -f p.pb.gz.d/modules ] && break
	echo "# try $try: no p.pb.gz.d/modules ($(tail -n 1 p.log))"
done
check "psym-collect wrote p.pb.gz.d/modules" test -f p.pb.gz.d/modules
with_code >sys.list
python3 - p.pb.gz.d/modules sys.list /sys/module >check.log <<'EOF2'
import os, re, struct, sys
lines = open(sys.argv[1]).read().splitlines()
want = open(sys.argv[2]).read().split()
bad = [l for l in lines if not re.fullmatch(r'[A-Za-z0-9_-]+ (-|[0-9a-f]{2,128}) [0-9a-f]+', l)]
if bad:
    print("FAIL malformed lines:", bad[:3]); sys.exit()
got = {l.split()[0]: l.split()[1:] for l in lines}
if sorted(got) != want or len(got) != len(lines):
    print("FAIL modules %s, /sys/module has %s" % (sorted(got)[:10], want[:10])); sys.exit()
def build_id(path):
    try:
        p = open(path, "rb").read()
    except OSError:
        return "-"
    off = 0
    while off + 12 <= len(p):
        nsz, dsz, typ = struct.unpack_from("<III", p, off)
        name = off + 12
        desc = name + (nsz + 3) // 4 * 4
        if typ == 3 and p[name:name + nsz] == b"GNU\0":
            return p[desc:desc + dsz].hex()
        off = desc + (dsz + 3) // 4 * 4
    return "-"
for m in want:
    text = int(open("%s/%s/sections/.text" % (sys.argv[3], m)).read().strip(), 16)
    bid = build_id("%s/%s/notes/.note.gnu.build-id" % (sys.argv[3], m))
    if got[m] != [bid, "%x" % text]:
        print("FAIL %s: %s, /sys/module: %s %x" % (m, got[m], bid, text)); sys.exit()
print("ok %d modules" % len(want))
EOF2
check "modules lists exactly /sys/module's modules with code, their build IDs and .text addresses ($(cat check.log))" \
	grep -q '^ok' check.log
if [ -n "$loaded" ]; then
	bid=$(readelf -n mod/pmod.ko | sed -n 's/.*Build ID: //p')
	check "the test module's line has the .ko's build ID (readelf: $bid)" \
		grep -q "^pmod $bid [0-9a-f]*$" p.pb.gz.d/modules
	check "and its .text address (/sys/module/pmod/sections/.text)" \
		test "$(awk '$1 == "pmod" { print $3 }' p.pb.gz.d/modules)" = \
		"$(sed 's/^0x0*//' /sys/module/pmod/sections/.text)"
fi
if [ -n "$why_none" ]; then
	check "with no module loaded the file is empty: no built-in module listed ($(wc -l <p.pb.gz.d/modules) lines; /sys/module has $(ls /sys/module | wc -l) built-in entries)" \
		test ! -s p.pb.gz.d/modules
	[ "$n_fail" -ne 0 ] && { finish; exit 1; }
	skip "$why_none"
fi
finish
