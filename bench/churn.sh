#!/bin/sh
# A busy host for psym-collect's tests and bench: about RATE short-lived
# processes per second (each runs /bin/true), for SECONDS seconds.
# Usage: bench/churn.sh RATE SECONDS   (run it in the background)
rate=${1:-200}
secs=${2:-10}
end=$(($(date +%s) + secs))
while [ "$(date +%s)" -lt "$end" ]; do
	i=0
	while [ $i -lt 20 ]; do
		/bin/true
		i=$((i + 1))
	done
	sleep "$(awk -v r="$rate" 'BEGIN {printf "%.3f", 20 / r}')"
done
