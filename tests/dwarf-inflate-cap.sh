#!/bin/sh
# Compressed DWARF sections are refused on their claimed size, before
# anything is allocated or inflated: a small ELF whose SHF_COMPRESSED
# .debug_info inflates to GiBs of zeros costs neither memory nor time.
# The caps are --limit dwarf-section-bytes (one section) and --max-memory
# (all of a file's sections), and the one-line reason names the cap. These
# bombs are zeros, which --limit dwarf-compress-ratio (default 200:1) refuses
# first (tests/dwarf-bomb.sh); it is raised here to reach the size caps.
. "$top_srcdir/tests/lib.sh"
need gcc
need python3
need protoc

cat >prog.c <<'C'
int work(int x) { return x * 3 + 1; }
int main(int argc, char **argv) { (void)argv; return work(argc); }
C
gcc -O1 -g -gz=none -no-pie -fno-pie -o prog prog.c || skip "cannot build a non-PIE program"

# bomb.py IN OUT MIB: copy IN with its .debug_info replaced by an ELF64
# SHF_COMPRESSED (zlib) section that inflates to MIB MiB of zeros: a real
# stream (16 MiB blocks of zeros, full flushes), so the claimed size is not
# a lie the ratio check would catch.
cat >bomb.py <<'PY'
import struct, sys, zlib
src, dst, mib = sys.argv[1], sys.argv[2], int(sys.argv[3])
elf = bytearray(open(src, "rb").read())
assert elf[:4] == b"\x7fELF" and elf[4] == 2 and elf[5] == 1, "ELF64 LE only"
shoff, = struct.unpack_from("<Q", elf, 0x28)
shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 0x3a)
def sh(i):
    return shoff + i * shentsize
stroff, = struct.unpack_from("<Q", elf, sh(shstrndx) + 0x18)
chunk = 1 << 24
n = (mib << 20) // chunk
c = zlib.compressobj(9, zlib.DEFLATED, -15)
block = c.compress(bytes(chunk)) + c.flush(zlib.Z_FULL_FLUSH)
size = n * chunk
adler = ((size % 65521) << 16) | 1
stream = b"\x78\xda" + block * n + c.flush() + struct.pack(">I", adler)
data = struct.pack("<IIQQ", 1, 0, size, 1) + stream
for i in range(shnum):
    name, = struct.unpack_from("<I", elf, sh(i))
    end = elf.index(b"\0", stroff + name)
    if bytes(elf[stroff + name:end]) != b".debug_info":
        continue
    while len(elf) % 8:
        elf.append(0)
    flags, = struct.unpack_from("<Q", elf, sh(i) + 8)
    struct.pack_into("<QQQQ", elf, sh(i) + 8, flags | 0x800, 0, len(elf), len(data))
    struct.pack_into("<Q", elf, sh(i) + 0x30, 1)
    elf += data
    break
else:
    sys.exit("no .debug_info")
open(dst, "wb").write(elf)
PY
python3 bomb.py prog bomb4 4096 || { fail "cannot craft the 4 GiB section"; exit 1; }
python3 bomb.py prog bomb5 5120 || { fail "cannot craft the 5 GiB section"; exit 1; }
check "the crafted section is SHF_COMPRESSED" sh -c 'readelf -SW bomb4 | grep "\.debug_info" | grep -q " C "'
check "the crafted file is small (under 16 MB)" test "$(wc -c <bomb4)" -lt 16000000

# A generous address-space cap as a guard (not in sanitizer builds, whose
# shadow memory needs more): with it, inflating would fail, not swap.
vlimit=
(ulimit -v 3000000 && "$PSYM" --version) >/dev/null 2>&1 && vlimit="ulimit -v 3000000;"
run() { sh -c "$vlimit"' exec timeout 60 "$@"' run "$@"; }

addr=$(nm prog | awk '$3 == "work" {print $1}')
run "$PSYM" addr -e bomb4 --limit dwarf-section-bytes=1G "0x$addr" >lim.out 2>lim.err
echo "exit $?" >>lim.err
cat lim.err
check "--limit dwarf-section-bytes: refused, the reason names the limit" \
	grep -q "\.debug_info decompresses to 4294967296 bytes, over the limit of 1073741824 (--limit dwarf-section-bytes=N)" lim.err
check "--limit dwarf-section-bytes: one line of warning" test "$(grep -c . lim.err)" = 2
check "--limit dwarf-section-bytes: the name still comes from the symbol table" grep -qx work lim.out

run "$PSYM" addr -e bomb5 "0x$addr" >def.out 2>def.err
cat def.err
check "default cap (4 GiB): a 5 GiB section is refused, naming the limit" \
	grep -q "\.debug_info decompresses to 5368709120 bytes, over the limit of 4294967296 (--limit dwarf-section-bytes=N)" def.err

# symbolize --max-memory 1G: all sections together are capped by it too.
printf 'mapping 400000 500000 0 %s\n%x\n' "$T/bomb4" "$((0x$addr))" >bomb.stacks
: >empty.maps
python3 "$top_srcdir/tests/mkprofile.py" empty.maps bomb.stacks >bomb.txtpb
encode_txtpb bomb.txtpb bomb.pb
run "$PSYM" symbolize --limit dwarf-compress-ratio=2000 --max-memory 1G bomb.pb -o bomb.sym.pb.gz 2>mem.err
rc=$?
cat mem.err
check "--max-memory 1G: refused before inflating, the reason names the cap" \
	grep -q "DWARF sections decompress to 4294967296 bytes, over the memory cap of 1073741824 (--max-memory)" mem.err
check "--max-memory 1G: symbolize still finishes (exit $rc), from the symbol table" test "$rc" = 0

# The same file within the caps would be read (the cap is what refused it):
# a section of 64 MiB under --limit dwarf-section-bytes=128M passes the
# size check and is inflated (zeros: no compile units, so no DWARF).
python3 bomb.py prog bomb64 64
run "$PSYM" addr -e bomb64 --limit dwarf-compress-ratio=2000 --limit dwarf-section-bytes=128M "0x$addr" >ok.out 2>ok.err
rc=$?
cat ok.err
check "within the cap: no limit named" sh -c '! grep -q "over the" ok.err'
check "within the cap: answered (exit $rc)" sh -c "[ $rc = 0 ] && grep -qx work ok.out"

[ "$n_fail" = 0 ]
