/* SPDX-License-Identifier: MIT */
/* The DWARF expression stack machine for CFI (DWARF 5 section 2.5). */
#include "config.h"

#include "cursor.h"
#include "expr.h"

#define STACK_MAX 64
#define OPS_MAX 10000

/* The operations CFI uses (DW_OP_*), by group. */
enum {
	/* operands: constants and register contents */
	OP_addr = 0x03,
	OP_const1u = 0x08,
	OP_const1s = 0x09,
	OP_const2u = 0x0a,
	OP_const2s = 0x0b,
	OP_const4u = 0x0c,
	OP_const4s = 0x0d,
	OP_const8u = 0x0e,
	OP_const8s = 0x0f,
	OP_constu = 0x10,
	OP_consts = 0x11,
	OP_lit0 = 0x30,
	OP_lit31 = 0x4f,
	OP_breg0 = 0x70,
	OP_breg31 = 0x8f,
	OP_bregx = 0x92,
	/* the stack itself */
	OP_dup = 0x12,
	OP_drop = 0x13,
	OP_over = 0x14,
	OP_pick = 0x15,
	OP_swap = 0x16,
	OP_rot = 0x17,
	/* memory */
	OP_deref = 0x06,
	OP_deref_size = 0x94,
	/* one operand on the stack */
	OP_abs = 0x19,
	OP_neg = 0x1f,
	OP_not = 0x20,
	OP_plus_uconst = 0x23,
	/* two operands on the stack */
	OP_and = 0x1a,
	OP_div = 0x1b,
	OP_minus = 0x1c,
	OP_mod = 0x1d,
	OP_mul = 0x1e,
	OP_or = 0x21,
	OP_plus = 0x22,
	OP_shl = 0x24,
	OP_shr = 0x25,
	OP_shra = 0x26,
	OP_xor = 0x27,
	OP_eq = 0x29,
	OP_ge = 0x2a,
	OP_gt = 0x2b,
	OP_le = 0x2c,
	OP_lt = 0x2d,
	OP_ne = 0x2e,
	/* control flow */
	OP_bra = 0x28,
	OP_skip = 0x2f,
	OP_nop = 0x96,
};

/* What a step leaves: its value to push, or nothing (the stack changed in place). */
#define PUSH 1
#define NO_PUSH 0

/* One evaluation: the expression's bytes, the value stack, the frame. */
struct machine {
	const struct psym_expr_ctx *ctx;
	const uint8_t *expr; /* the first byte, for backward branches */
	struct cur c;
	uint64_t st[STACK_MAX];
	size_t sp;
	struct psym_err *e;
};

static int bad(struct psym_err *e, const char *msg)
{
	return psym_err_set(e, PSYM_EBADDWARF, "DWARF expression: %s", msg);
}

/* Fewer than n values on the stack: the error; 0 otherwise. */
static int need(const struct machine *m, size_t n)
{
	return m->sp < n ? bad(m->e, "stack underflow") : 0;
}

static bool reg_value(const struct psym_expr_ctx *ctx, uint64_t reg, uint64_t *v)
{
	if (reg >= PSYM_CFI_NREGS || !(ctx->valid & ((uint64_t)1 << reg)))
		return false;
	*v = ctx->regs[reg];
	return true;
}

/* breg0..31, bregx: a register of the frame plus a signed offset. */
static int op_breg(struct machine *m, uint64_t reg, uint64_t *v)
{
	int64_t s = rd_sleb(&m->c);

	if (!reg_value(m->ctx, reg, v))
		return bad(m->e, "register not known in this frame");
	*v += (uint64_t)s;
	return PUSH;
}

/* The constants: an operand of the operation's size, sign-extended or not. */
static int op_const(struct machine *m, uint8_t op, uint64_t *v)
{
	struct cur *c = &m->c;

	switch (op) {
	case OP_const1u: *v = rd_u8(c); break;
	case OP_const1s: *v = (uint64_t)(int64_t)(int8_t)rd_u8(c); break;
	case OP_const2u: *v = rd_u16(c); break;
	case OP_const2s: *v = (uint64_t)(int64_t)(int16_t)rd_u16(c); break;
	case OP_const4u: *v = rd_u32(c); break;
	case OP_const4s: *v = (uint64_t)(int64_t)(int32_t)rd_u32(c); break;
	case OP_constu: *v = rd_uleb(c); break;
	case OP_consts: *v = (uint64_t)rd_sleb(c); break;
	default: /* addr, const8u, const8s */ *v = rd_u64(c); break;
	}
	return PUSH;
}

/* dup, drop, over, pick, swap, rot. */
static int op_stack(struct machine *m, uint8_t op, uint64_t *v)
{
	uint64_t *st = m->st, a;
	size_t sp = m->sp;
	int r;

	switch (op) {
	case OP_dup:
		if ((r = need(m, 1)) < 0)
			return r;
		*v = st[sp - 1];
		return PUSH;
	case OP_drop:
		if ((r = need(m, 1)) < 0)
			return r;
		m->sp--;
		return NO_PUSH;
	case OP_over:
		if ((r = need(m, 2)) < 0)
			return r;
		*v = st[sp - 2];
		return PUSH;
	case OP_pick:
		a = rd_u8(&m->c);
		if (a >= sp)
			return bad(m->e, "stack underflow");
		*v = st[sp - 1 - a];
		return PUSH;
	case OP_swap:
		if ((r = need(m, 2)) < 0)
			return r;
		a = st[sp - 1];
		st[sp - 1] = st[sp - 2];
		st[sp - 2] = a;
		return NO_PUSH;
	default: /* rot */
		if ((r = need(m, 3)) < 0)
			return r;
		a = st[sp - 1];
		st[sp - 1] = st[sp - 2];
		st[sp - 2] = st[sp - 3];
		st[sp - 3] = a;
		return NO_PUSH;
	}
}

/* deref, deref_size: the top of the stack replaced by what it points to. */
static int op_deref(struct machine *m, uint8_t op)
{
	uint64_t size = op == OP_deref ? 8 : rd_u8(&m->c), *top, v = 0;
	int r;

	if ((r = need(m, 1)) < 0)
		return r;
	if (size != 1 && size != 2 && size != 4 && size != 8)
		return bad(m->e, "bad deref size");
	top = &m->st[m->sp - 1];
	if (m->ctx->read(m->ctx->arg, *top, (unsigned)size, &v) != 0)
		return psym_err_set(m->e, PSYM_EBADINPUT,
				    "DWARF expression reads 0x%llx, outside the copied stack",
				    (unsigned long long)*top);
	*top = v;
	return NO_PUSH;
}

/* abs, neg, not, plus_uconst: the top of the stack replaced. */
static int op_unary(struct machine *m, uint8_t op)
{
	uint64_t b = op == OP_plus_uconst ? rd_uleb(&m->c) : 0, a;
	int r;

	if ((r = need(m, 1)) < 0)
		return r;
	a = m->st[m->sp - 1];
	switch (op) {
	case OP_abs: a = (int64_t)a < 0 ? -a : a; break;
	case OP_neg: a = -a; break;
	case OP_not: a = ~a; break;
	default: a += b; break;
	}
	m->st[m->sp - 1] = a;
	return NO_PUSH;
}

/* a op b for the operations on two values; an error for a division by zero. */
static int binary(struct psym_err *e, uint8_t op, uint64_t a, uint64_t b, uint64_t *v)
{
	switch (op) {
	case OP_and: *v = a & b; break;
	case OP_div:
		if (b == 0 || ((int64_t)a == INT64_MIN && (int64_t)b == -1))
			return bad(e, "division by zero");
		*v = (uint64_t)((int64_t)a / (int64_t)b);
		break;
	case OP_minus: *v = a - b; break;
	case OP_mod:
		if (b == 0)
			return bad(e, "division by zero");
		*v = a % b;
		break;
	case OP_mul: *v = a * b; break;
	case OP_or: *v = a | b; break;
	case OP_plus: *v = a + b; break;
	case OP_shl: *v = b >= 64 ? 0 : a << b; break;
	case OP_shr: *v = b >= 64 ? 0 : a >> b; break;
	case OP_shra: *v = (uint64_t)((int64_t)a >> (b >= 64 ? 63 : b)); break;
	case OP_xor: *v = a ^ b; break;
	case OP_eq: *v = a == b; break;
	case OP_ge: *v = (int64_t)a >= (int64_t)b; break;
	case OP_gt: *v = (int64_t)a > (int64_t)b; break;
	case OP_le: *v = (int64_t)a <= (int64_t)b; break;
	case OP_lt: *v = (int64_t)a < (int64_t)b; break;
	default: /* ne */ *v = a != b; break;
	}
	return 0;
}

/* The two values on top of the stack replaced by the result of op on them. */
static int op_binary(struct machine *m, uint8_t op)
{
	uint64_t a, b;
	int r;

	if ((r = need(m, 2)) < 0)
		return r;
	b = m->st[--m->sp];
	a = m->st[m->sp - 1];
	if ((r = binary(m->e, op, a, b, &m->st[m->sp - 1])) < 0)
		return r;
	return NO_PUSH;
}

/* bra (when the popped value is not 0) and skip: a jump inside the expression. */
static int op_branch(struct machine *m, uint8_t op)
{
	struct cur *c = &m->c;
	int64_t s = (int16_t)rd_u16(c);
	int r;

	if (op == OP_bra) {
		if ((r = need(m, 1)) < 0)
			return r;
		if (m->st[--m->sp] == 0)
			return NO_PUSH;
	}
	if (!c->ok)
		return NO_PUSH; /* the caller reports the truncated operand */
	if ((s < 0 && (size_t)-s > (size_t)(c->p - m->expr)) || (s > 0 && (size_t)s > cur_left(c)))
		return bad(m->e, "branch outside the expression");
	c->p += s;
	return NO_PUSH;
}

/* One operation: PUSH with *v, NO_PUSH, or a negative code with m->e set. */
static int step(struct machine *m, uint8_t op, uint64_t *v)
{
	if (op >= OP_lit0 && op <= OP_lit31) {
		*v = op - (unsigned)OP_lit0;
		return PUSH;
	}
	if (op >= OP_breg0 && op <= OP_breg31)
		return op_breg(m, op - (unsigned)OP_breg0, v);
	switch (op) {
	case OP_addr:
	case OP_const1u:
	case OP_const1s:
	case OP_const2u:
	case OP_const2s:
	case OP_const4u:
	case OP_const4s:
	case OP_const8u:
	case OP_const8s:
	case OP_constu:
	case OP_consts: return op_const(m, op, v);
	case OP_bregx: return op_breg(m, rd_uleb(&m->c), v);
	case OP_dup:
	case OP_drop:
	case OP_over:
	case OP_pick:
	case OP_swap:
	case OP_rot: return op_stack(m, op, v);
	case OP_deref:
	case OP_deref_size: return op_deref(m, op);
	case OP_abs:
	case OP_neg:
	case OP_not:
	case OP_plus_uconst: return op_unary(m, op);
	case OP_and:
	case OP_div:
	case OP_minus:
	case OP_mod:
	case OP_mul:
	case OP_or:
	case OP_plus:
	case OP_shl:
	case OP_shr:
	case OP_shra:
	case OP_xor:
	case OP_eq:
	case OP_ge:
	case OP_gt:
	case OP_le:
	case OP_lt:
	case OP_ne: return op_binary(m, op);
	case OP_bra:
	case OP_skip: return op_branch(m, op);
	case OP_nop: return NO_PUSH;
	default:
		return psym_err_set(m->e, PSYM_EBADDWARF,
				    "DWARF expression: operation 0x%02x not supported in CFI", op);
	}
}

int psym_expr_eval(const struct psym_expr_ctx *ctx, const uint8_t *expr, size_t len, bool has_push,
		   uint64_t push, uint64_t *out, struct psym_err *e)
{
	struct machine m = {
		.ctx = ctx, .expr = expr, .c = cur_at(expr, len, 0, ctx->swap), .e = e
	};
	size_t ops = 0;

	if (has_push)
		m.st[m.sp++] = push;
	while (m.c.p < m.c.end) {
		uint8_t op = rd_u8(&m.c);
		uint64_t v = 0;
		int r;

		if (++ops > OPS_MAX)
			return bad(e, "more than 10000 operations");
		r = step(&m, op, &v);
		if (r < 0)
			return r;
		if (!m.c.ok)
			return bad(e, "truncated operand");
		if (r == PUSH) {
			if (m.sp == STACK_MAX)
				return bad(e, "stack overflow");
			m.st[m.sp++] = v;
		}
	}
	if (m.sp == 0)
		return bad(e, "empty stack at the end");
	*out = m.st[m.sp - 1];
	return 0;
}
