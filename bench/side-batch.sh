#!/bin/sh
# bench/side-batch.sh COLLECT PSYM N WORKDIR: the CPU of symbolizing a
# batch of N psym-collect profiles with their side directories against the
# same batch without them. Ten real 1 s system-wide profiles are
# collected with COLLECT and each is copied N/10 times (side directory
# hard-linked: same bytes); PSYM symbolizes each batch with -j 2, three
# times. Prints "with|without user+sys elapsed" per run, then the median
# ratio. Needs root (BPF). Run as: bench/side-batch.sh build/psym-collect
# build/psym 300 /tmp/sb
set -eu
C=$1 P=$2 N=$3 W=$4
rm -rf "$W"
mkdir -p "$W/src" "$W/with" "$W/without"
i=0
while [ $i -lt 10 ]; do
	"$C" -d 1 -o "$W/src/p$i.pb.gz" 2>/dev/null
	i=$((i + 1))
done
i=0
while [ $i -lt "$N" ]; do
	k=$((i % 10))
	cp "$W/src/p$k.pb.gz" "$W/with/q$i.pb.gz"
	cp -al "$W/src/p$k.pb.gz.d" "$W/with/q$i.pb.gz.d"
	cp "$W/src/p$k.pb.gz" "$W/without/q$i.pb.gz"
	i=$((i + 1))
done
echo "side directory of one profile: $(du -sb "$W/src/p0.pb.gz.d" | cut -f1) bytes, profile $(stat -c %s "$W/src/p0.pb.gz")"
for r in 1 2 3; do
	for v in with without; do
		rm -rf "$W/out"
		mkdir "$W/out"
		/usr/bin/time -f "$v %U %S %e" -o "$W/t" "$P" symbolize -j 2 "$W/$v"/*.pb.gz -o "$W/out" 2>"$W/$v.log" || true
		awk '{printf "%s %.2f %.2f\n", $1, $2 + $3, $4}' "$W/t" | tee -a "$W/times"
	done
done
tail -2 "$W/with.log"
awk '{c[$1] = c[$1] " " $2} END {print "with:" c["with"]; print "without:" c["without"]}' "$W/times"
sort -k1,1 -k2,2n "$W/times" | awk '$1 == "with" {w[++nw] = $2} $1 == "without" {o[++no] = $2}
	END {printf "median CPU with %.2f s, without %.2f s: ratio %.2fx\n", w[2], o[2], w[2] / o[2]}'
