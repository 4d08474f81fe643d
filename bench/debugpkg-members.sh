#!/bin/sh
# psym symbolize --debug-pkg on psym archives of N one-byte
# .build-id/NN/REST.debug members (default 10,000, 40,000 and 100,000),
# none of them wanted: the cost of listing the members (recording each
# build ID once, for the entry's index), next to GNU tar -t of the same
# archive. Prints wall and CPU seconds and peak RSS of each.
# Usage: bench/debugpkg-members.sh PSYM [N...]
set -eu
PSYM=$(realpath "$1")
top=$(cd "$(dirname "$0")/.." && pwd)
shift
[ $# -gt 0 ] || set -- 10000 40000 100000
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT INT TERM
cd "$T"
cat >p.txtpb <<'P'
sample_type { type: 1 unit: 2 }
sample { location_id: 1 value: 1 }
mapping { id: 1 memory_start: 4096 memory_limit: 8192 file_offset: 4096 filename: 3 build_id: 4 }
location { id: 1 mapping_id: 1 address: 4400 }
string_table: ""
string_table: "samples"
string_table: "count"
string_table: "/elsewhere/a"
string_table: "0123456789abcdef0123456789abcdef01234567"
P
protoc --proto_path="$top/proto" --encode=perftools.profiles.Profile profile.proto <p.txtpb >p.pb
for n in "$@"; do
	python3 - "$n" <<'PY' | zstd -q >m.tar.zst
import hashlib, io, sys, tarfile
with tarfile.open(fileobj=sys.stdout.buffer, mode="w|", format=tarfile.GNU_FORMAT) as t:
    for i in range(int(sys.argv[1])):
        h = hashlib.sha1(b"m%d" % i).hexdigest()
        ti = tarfile.TarInfo(".build-id/%s/%s.debug" % (h[:2], h[2:]))
        ti.size = 1
        t.addfile(ti, io.BytesIO(b"x"))
PY
	/usr/bin/time -f "$n members ($(wc -c <m.tar.zst) bytes): psym %e s wall, %U s user, %S s sys, %M KB" \
		"$PSYM" symbolize -q --no-cache --offline --debug-pkg m.tar.zst p.pb -o /dev/null
	/usr/bin/time -f "$n members: tar --zstd -t %e s wall, %U s user, %S s sys" \
		sh -c 'tar --zstd -tf m.tar.zst >/dev/null'
done
