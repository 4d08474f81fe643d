#!/bin/sh
# A busy host for psym-collect's tests and bench: about RATE short-lived
# processes per second, for SECONDS seconds. Each runs PROGRAM (default
# /bin/true); with bench/shortlived (built from bench/shortlived.c) as
# PROGRAM, each is a real program living 5-20 ms that spins SPIN ms of it.
# Usage: bench/churn.sh RATE SECONDS [PROGRAM [SPIN_MS]]   (in the background)
rate=${1:-200}
secs=${2:-10}
prog=${3:-/bin/true}
spin=${4:-2}
end=$(($(date +%s) + secs))
# The pause after each batch of 20; a spawned batch also waits for its
# longest life (20 ms), so that is taken off.
pause=$(awk -v r="$rate" -v p="$prog" 'BEGIN {s = 20 / r; if (p != "/bin/true") s -= 0.02; if (s < 0.001) s = 0.001; printf "%.3f", s}')
n=0
while [ "$(date +%s)" -lt "$end" ]; do
	i=0
	while [ $i -lt 20 ]; do
		# Lives of 5 to 20 ms, spread over the batch (no $RANDOM in sh).
		if [ "$prog" = /bin/true ]; then
			/bin/true
		else
			"$prog" "$spin" $((5 + (n + i) * 7 % 16)) >/dev/null &
		fi
		i=$((i + 1))
	done
	n=$((n + 1))
	sleep "$pause"
	[ "$prog" = /bin/true ] || wait # at most one batch alive: 20 processes
done
wait
