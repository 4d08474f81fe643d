#!/bin/sh
# The layer rule (doc/DESIGN.md): no #include reaches up the layers.
# scripts/check-layers on the tree must pass; on a copy of src/base with a
# header that includes one from resolve/ it must fail, naming the line.
. "$top_srcdir/tests/lib.sh"
need awk

expect_exit 0 "the tree keeps the layer rule" "$top_srcdir/scripts/check-layers" "$top_srcdir"

mkdir -p bad/src/base bad/src/resolve bad/src/obj bad/cli bad/BPF-collector
printf '#include "config.h"\n#include <stdio.h>\n#include "error.h"\n' >bad/src/base/ok.c
printf '#include "error.h"\n' >bad/src/obj/elf.c
printf '/* */\n' >bad/src/base/error.h
printf '/* */\n' >bad/src/resolve/registry.h
printf '#include "registry.h"\n' >bad/cli/main.c
expect_exit 0 "downward includes pass" "$top_srcdir/scripts/check-layers" "$PWD/bad"
printf '#include "error.h"\n#include "registry.h"\n' >bad/src/base/up.c
"$top_srcdir/scripts/check-layers" "$PWD/bad" >up.out 2>&1
check "an include up the layers fails" [ $? -eq 1 ]
check "... naming the file, line and header" \
	grep -q "src/base/up.c:2: includes src/resolve/registry.h (layer 3) from layer 0" up.out
rm bad/src/base/up.c
mkdir -p bad/src/newdir
printf '/* */\n' >bad/src/newdir/x.c
"$top_srcdir/scripts/check-layers" "$PWD/bad" >new.out 2>&1
check "a directory in no layer fails" [ $? -eq 1 ]
check "... and says so" grep -q "src/newdir/x.c: in no layer" new.out
finish
