#!/bin/sh
# contrib/systemd/psym-collect.service passes systemd-analyze verify (with
# ExecStart pointed at this build's psym-collect, which verify requires to
# exist; --man=no: the man page need not be installed), asks for the
# capabilities psym-collect needs and no others, and uses --rotate.
. "$top_srcdir/tests/lib.sh"
need systemd-analyze
unit=$top_srcdir/contrib/systemd/psym-collect.service
C=${PSYM_COLLECT:-$top_builddir/psym-collect}
[ -x "$C" ] || skip "psym-collect not built (configure --disable-collector)"
sed "s|/usr/local/bin/psym-collect|$C|" "$unit" >psym-collect.service
# verify exits 0 even on lines it ignores ("Failed to parse ..."): any
# line about this unit fails the test; lines about units it pulls in that
# this host lacks do not count.
systemd-analyze verify --man=no ./psym-collect.service >verify.log 2>&1
vrc=$?
cat verify.log
check "systemd-analyze verify accepts the unit (exit $vrc)" test $vrc = 0
check "systemd-analyze verify says nothing about the unit" sh -c '! grep -q "psym-collect.service" verify.log'
caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$unit" | tr ' ' '\n' | sort | tr '\n' ' ')
check "the bounding set is CAP_BPF CAP_PERFMON CAP_SYS_PTRACE (+ CAP_CHECKPOINT_RESTORE, CAP_SYSLOG): $caps" \
	test "$caps" = "CAP_BPF CAP_CHECKPOINT_RESTORE CAP_PERFMON CAP_SYSLOG CAP_SYS_PTRACE "
check "ExecStart uses --rotate" grep -q '^ExecStart=.*--rotate' "$unit"
# The options ExecStart passes are accepted (the % doubled for systemd undone).
opts=$(sed -n 's/^ExecStart=[^ ]* //p' "$unit" | sed 's/%%/%/g; s|/var/lib/psym-collect/|./|')
# shellcheck disable=SC2086
"$C" $opts --help >/dev/null 2>help.err
check "psym-collect accepts the unit's options" test $? = 0
finish
