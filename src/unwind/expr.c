/* SPDX-License-Identifier: MIT */
/* The DWARF expression stack machine for CFI (DWARF 5 section 2.5). */
#include "config.h"

#include "cursor.h"
#include "expr.h"

#define STACK_MAX 64
#define OPS_MAX 10000

#define BAD(msg) psym_err_set(e, PSYM_EBADDWARF, "DWARF expression: %s", msg)

static bool reg_value(const struct psym_expr_ctx *ctx, uint64_t reg, uint64_t *v)
{
	if (reg >= PSYM_CFI_NREGS || !(ctx->valid & ((uint64_t)1 << reg)))
		return false;
	*v = ctx->regs[reg];
	return true;
}

int psym_expr_eval(const struct psym_expr_ctx *ctx, const uint8_t *expr, size_t len, bool has_push,
		   uint64_t push, uint64_t *out, struct psym_err *e)
{
	uint64_t st[STACK_MAX];
	size_t sp = 0, ops = 0;
	struct cur c = cur_at(expr, len, 0, ctx->swap);

	if (has_push)
		st[sp++] = push;
	while (c.p < c.end) {
		uint8_t op = rd_u8(&c);
		uint64_t a, b, v = 0;
		int64_t s;
		bool push_v = true;

		if (++ops > OPS_MAX)
			return BAD("more than 10000 operations");
		if (op >= 0x30 && op <= 0x4f) { /* lit0..lit31 */
			v = op - 0x30u;
		} else if (op >= 0x70 && op <= 0x8f) { /* breg0..breg31 */
			s = rd_sleb(&c);
			if (!reg_value(ctx, op - 0x70u, &v))
				return BAD("register not known in this frame");
			v += (uint64_t)s;
		} else {
			switch (op) {
			case 0x03: /* addr */ v = rd_u64(&c); break;
			case 0x08: v = rd_u8(&c); break;
			case 0x09: v = (uint64_t)(int64_t)(int8_t)rd_u8(&c); break;
			case 0x0a: v = rd_u16(&c); break;
			case 0x0b: v = (uint64_t)(int64_t)(int16_t)rd_u16(&c); break;
			case 0x0c: v = rd_u32(&c); break;
			case 0x0d: v = (uint64_t)(int64_t)(int32_t)rd_u32(&c); break;
			case 0x0e:
			case 0x0f: v = rd_u64(&c); break;
			case 0x10: v = rd_uleb(&c); break;
			case 0x11: v = (uint64_t)rd_sleb(&c); break;
			case 0x92: /* bregx */
				a = rd_uleb(&c);
				s = rd_sleb(&c);
				if (!reg_value(ctx, a, &v))
					return BAD("register not known in this frame");
				v += (uint64_t)s;
				break;
			case 0x12: /* dup */
				if (sp < 1)
					return BAD("stack underflow");
				v = st[sp - 1];
				break;
			case 0x13: /* drop */
				if (sp < 1)
					return BAD("stack underflow");
				sp--;
				push_v = false;
				break;
			case 0x14: /* over */
				if (sp < 2)
					return BAD("stack underflow");
				v = st[sp - 2];
				break;
			case 0x15: /* pick */
				a = rd_u8(&c);
				if (a >= sp)
					return BAD("stack underflow");
				v = st[sp - 1 - a];
				break;
			case 0x16: /* swap */
				if (sp < 2)
					return BAD("stack underflow");
				a = st[sp - 1];
				st[sp - 1] = st[sp - 2];
				st[sp - 2] = a;
				push_v = false;
				break;
			case 0x17: /* rot */
				if (sp < 3)
					return BAD("stack underflow");
				a = st[sp - 1];
				st[sp - 1] = st[sp - 2];
				st[sp - 2] = st[sp - 3];
				st[sp - 3] = a;
				push_v = false;
				break;
			case 0x06: /* deref */
			case 0x94: /* deref_size */
				a = op == 0x06 ? 8 : rd_u8(&c);
				if (sp < 1)
					return BAD("stack underflow");
				if (a != 1 && a != 2 && a != 4 && a != 8)
					return BAD("bad deref size");
				if (ctx->read(ctx->arg, st[sp - 1], (unsigned)a, &v) != 0)
					return psym_err_set(e, PSYM_EBADINPUT,
							    "DWARF expression reads 0x%llx, "
							    "outside the copied stack",
							    (unsigned long long)st[sp - 1]);
				st[sp - 1] = v;
				push_v = false;
				break;
			case 0x19: /* abs */
			case 0x1f: /* neg */
			case 0x20: /* not */
			case 0x23: /* plus_uconst */
				b = op == 0x23 ? rd_uleb(&c) : 0;
				if (sp < 1)
					return BAD("stack underflow");
				a = st[sp - 1];
				st[sp - 1] = op == 0x19	  ? ((int64_t)a < 0 ? -a : a)
					     : op == 0x1f ? -a
					     : op == 0x20 ? ~a
							  : a + b;
				push_v = false;
				break;
			case 0x1a:
			case 0x1b:
			case 0x1c:
			case 0x1d:
			case 0x1e:
			case 0x21:
			case 0x22:
			case 0x24:
			case 0x25:
			case 0x26:
			case 0x27:
			case 0x29:
			case 0x2a:
			case 0x2b:
			case 0x2c:
			case 0x2d:
			case 0x2e:
				if (sp < 2)
					return BAD("stack underflow");
				b = st[--sp];
				a = st[sp - 1];
				switch (op) {
				case 0x1a: v = a & b; break;
				case 0x1b:
					if (b == 0 || ((int64_t)a == INT64_MIN && (int64_t)b == -1))
						return BAD("division by zero");
					v = (uint64_t)((int64_t)a / (int64_t)b);
					break;
				case 0x1c: v = a - b; break;
				case 0x1d:
					if (b == 0)
						return BAD("division by zero");
					v = a % b;
					break;
				case 0x1e: v = a * b; break;
				case 0x21: v = a | b; break;
				case 0x22: v = a + b; break;
				case 0x24: v = b >= 64 ? 0 : a << b; break;
				case 0x25: v = b >= 64 ? 0 : a >> b; break;
				case 0x26: v = (uint64_t)((int64_t)a >> (b >= 64 ? 63 : b)); break;
				case 0x27: v = a ^ b; break;
				case 0x29: v = a == b; break;
				case 0x2a: v = (int64_t)a >= (int64_t)b; break;
				case 0x2b: v = (int64_t)a > (int64_t)b; break;
				case 0x2c: v = (int64_t)a <= (int64_t)b; break;
				case 0x2d: v = (int64_t)a < (int64_t)b; break;
				default: v = a != b; break;
				}
				st[sp - 1] = v;
				push_v = false;
				break;
			case 0x28: /* bra */
			case 0x2f: /* skip */
				s = (int16_t)rd_u16(&c);
				push_v = false;
				if (op == 0x28) {
					if (sp < 1)
						return BAD("stack underflow");
					if (st[--sp] == 0)
						break;
				}
				if (!c.ok)
					break;
				if ((s < 0 && (size_t)-s > (size_t)(c.p - expr)) ||
				    (s > 0 && (size_t)s > cur_left(&c)))
					return BAD("branch outside the expression");
				c.p += s;
				break;
			case 0x96: /* nop */ push_v = false; break;
			default:
				return psym_err_set(e, PSYM_EBADDWARF,
						    "DWARF expression: operation 0x%02x not "
						    "supported in CFI",
						    op);
			}
		}
		if (!c.ok)
			return BAD("truncated operand");
		if (push_v) {
			if (sp == STACK_MAX)
				return BAD("stack overflow");
			st[sp++] = v;
		}
	}
	if (sp == 0)
		return BAD("empty stack at the end");
	*out = st[sp - 1];
	return 0;
}
