/*
 * tests/perfdata-dwarf-entry.sh records this: a syscall is a function's
 * last instruction and the next function starts right after it, so while
 * the kernel runs the syscall, the user pc is that function's first byte
 * (perf looks it up as it is).
 */
#include <stdio.h>
#include <stdlib.h>

__asm__(".text\n"
	".globl trap\n"
	".type trap, @function\n"
	"trap:\n"
	".cfi_startproc\n"
	"\tmov $110, %eax\n" /* getppid */
	"\tsyscall\n"
	".cfi_endproc\n"
	".size trap, .-trap\n"
	".globl after_trap\n"
	".type after_trap, @function\n"
	"after_trap:\n"
	".cfi_startproc\n"
	"\tret\n"
	".cfi_endproc\n"
	".size after_trap, .-after_trap\n");

void trap(void);

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;

	for (long i = 0; i < n; i++)
		trap();
	printf("%ld\n", n);
	return 0;
}
