# Two code sections and a data section between them, assembled with
# assembler-made debug info (llvm-mc -g, gcc -g): the lines are this file's.
# Offsets are section-relative; the second section's code lies at the same
# offsets as the first's.
	.text
	.globl	first
	.type	first,@function
first:
	nop
	addl	$1, %eax
	ret
	.size	first, .-first

	.data
	.long	7

	.section .text.second,"ax",@progbits
	.globl	second
	.type	second,@function
second:
	pushq	%rbp
	movq	%rsp, %rbp
	popq	%rbp
	ret
	.size	second, .-second
