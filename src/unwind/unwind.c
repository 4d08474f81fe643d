/* SPDX-License-Identifier: MIT */
/* One sampled stack unwound with CFI, falling back to the frame pointer. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "expr.h"
#include "unwind.h"

static const char *const stop_names[PSYM_UNWIND_NSTOPS] = {
	[PSYM_UNWIND_END] = "end",	     [PSYM_UNWIND_OUT_OF_STACK] = "out-of-stack",
	[PSYM_UNWIND_BAD_RULE] = "bad-rule", [PSYM_UNWIND_NO_PROGRESS] = "no-progress",
	[PSYM_UNWIND_DEPTH] = "depth",	     [PSYM_UNWIND_BUDGET] = "budget",
};

const char *psym_unwind_stop_name(enum psym_unwind_stop s)
{
	return (unsigned)s < PSYM_UNWIND_NSTOPS ? stop_names[s] : "?";
}

/* Callee-saved registers of the x86-64 psABI: unchanged unless a rule says otherwise. */
#define CALLEE_SAVED                                                                               \
	((1u << PSYM_X86_RBX) | (1u << PSYM_X86_RBP) | (1u << 12) | (1u << 13) | (1u << 14) |      \
	 (1u << 15))

static int read_stack(void *arg, uint64_t addr, unsigned size, uint64_t *val)
{
	const struct psym_unwind_stack *s = arg;
	uint64_t v = 0;

	if (addr < s->sp || addr - s->sp > s->len || s->len - (addr - s->sp) < size)
		return -1;
	memcpy(&v, s->bytes + (addr - s->sp), size); /* x86-64: little-endian like us */
	*val = v;
	return 0;
}

enum step {
	STEP_OK,
	STEP_END,
	STEP_OOS,
	STEP_BAD,
	STEP_NOCFI
};

/* Apply a CFI row: compute the caller's registers into *out. */
static enum step apply_row(const struct psym_cfi_row *row, const struct psym_unwind_regs *cur,
			   const struct psym_unwind_stack *stk, struct psym_unwind_regs *out,
			   struct psym_err *e)
{
	struct psym_expr_ctx ctx = { cur->r, cur->valid, read_stack, (void *)stk, row->swap };
	uint64_t cfa;

	if (row->cfa.how == PSYM_CFI_REG) {
		if (row->cfa.reg >= PSYM_CFI_NREGS || !(cur->valid & (1u << row->cfa.reg))) {
			psym_err_set(e, PSYM_EBADDWARF, "CFA register %u not known", row->cfa.reg);
			return STEP_BAD;
		}
		cfa = cur->r[row->cfa.reg] + (uint64_t)row->cfa.off;
	} else if (row->cfa.how == PSYM_CFI_EXPR) {
		int r = psym_expr_eval(&ctx, row->cfa.expr, row->cfa.exprlen, false, 0, &cfa, e);

		if (r < 0)
			return r == PSYM_EBADINPUT ? STEP_OOS : STEP_BAD;
	} else {
		psym_err_set(e, PSYM_EBADDWARF, "no CFA rule");
		return STEP_BAD;
	}
	memset(out, 0, sizeof(*out));
	for (unsigned i = 0; i < PSYM_CFI_NREGS; i++) {
		const struct psym_cfi_rule *ru = &row->reg[i];
		uint64_t v = 0, addr = 0;
		bool ok = false;
		int r;

		switch (ru->how) {
		case PSYM_CFI_UNSET:
			if (i == PSYM_X86_RSP) {
				v = cfa;
				ok = true;
			} else if ((CALLEE_SAVED & (1u << i)) && (cur->valid & (1u << i))) {
				v = cur->r[i];
				ok = true;
			}
			break;
		case PSYM_CFI_SAME:
			ok = (cur->valid & (1u << i)) != 0;
			v = cur->r[i];
			break;
		case PSYM_CFI_OFFSET:
			ok = read_stack((void *)stk, cfa + (uint64_t)ru->off, 8, &v) == 0;
			if (!ok && i == PSYM_X86_RA)
				return STEP_OOS;
			break;
		case PSYM_CFI_VAL_OFFSET:
			v = cfa + (uint64_t)ru->off;
			ok = true;
			break;
		case PSYM_CFI_REG:
			ok = ru->reg < PSYM_CFI_NREGS && (cur->valid & (1u << ru->reg));
			v = ok ? cur->r[ru->reg] : 0;
			break;
		case PSYM_CFI_EXPR:
		case PSYM_CFI_VAL_EXPR:
			r = psym_expr_eval(&ctx, ru->expr, ru->exprlen, true, cfa, &addr, e);
			if (r == 0 && ru->how == PSYM_CFI_EXPR)
				r = read_stack((void *)stk, addr, 8, &v) == 0 ? 0 : PSYM_EBADINPUT;
			else
				v = addr;
			ok = r == 0;
			if (!ok && i == PSYM_X86_RA)
				return r == PSYM_EBADINPUT ? STEP_OOS : STEP_BAD;
			break;
		case PSYM_CFI_UNDEF:
		default:
			if (i == PSYM_X86_RA)
				return STEP_END;
			break;
		}
		if (ok) {
			out->r[i] = v;
			out->valid |= 1u << i;
		}
	}
	if (!(out->valid & (1u << PSYM_X86_RA))) {
		psym_err_set(e, PSYM_EBADDWARF, "no rule for the return address");
		return STEP_BAD;
	}
	if (!(out->valid & (1u << PSYM_X86_RSP))) {
		out->r[PSYM_X86_RSP] = cfa;
		out->valid |= 1u << PSYM_X86_RSP;
	}
	return STEP_OK;
}

/* No CFI: rbp points at the saved rbp, the return address above it. */
static enum step frame_pointer(const struct psym_unwind_regs *cur,
			       const struct psym_unwind_stack *stk, struct psym_unwind_regs *out,
			       struct psym_err *e)
{
	uint64_t fp = cur->r[PSYM_X86_RBP], ra, saved;

	if (!(cur->valid & (1u << PSYM_X86_RBP))) {
		psym_err_set(e, PSYM_EBADDWARF, "no CFI and no frame pointer");
		return STEP_BAD;
	}
	if (fp > UINT64_MAX - 16 || read_stack((void *)stk, fp, 8, &saved) != 0 ||
	    read_stack((void *)stk, fp + 8, 8, &ra) != 0)
		return STEP_OOS;
	memset(out, 0, sizeof(*out));
	out->r[PSYM_X86_RBP] = saved;
	out->r[PSYM_X86_RSP] = fp + 16;
	out->r[PSYM_X86_RA] = ra;
	out->valid = (1u << PSYM_X86_RBP) | (1u << PSYM_X86_RSP) | (1u << PSYM_X86_RA);
	/* Other callee-saved registers are not known past a frame without CFI. */
	return STEP_OK;
}

/*
 * The CFI row for pc: 0, PSYM_NOENT (no object or no FDE), or an error;
 * *steps grows by the CFA instructions the lookups ran.
 */
static int find_row(psym_unwind_find_fn find, void *arg, uint64_t pc, struct psym_cfi_row *row,
		    uint64_t *steps, struct psym_err *e)
{
	struct psym_unwind_obj obj;

	memset(&obj, 0, sizeof(obj));
	if (find(arg, pc, &obj) != 0)
		return PSYM_NOENT;
	for (int k = 0; k < 2; k++) {
		uint64_t before;
		int r;

		if (!obj.cfi[k])
			continue;
		before = psym_cfi_steps(obj.cfi[k]);
		r = psym_cfi_find(obj.cfi[k], pc - obj.bias[k], row, e);
		*steps += psym_cfi_steps(obj.cfi[k]) - before;
		if (r <= 0)
			return r;
	}
	return PSYM_NOENT;
}

/* Whether a budget is spent (then res says which, naming its --limit). */
static bool over_budget(struct psym_unwind_budget *b, struct psym_unwind_result *res)
{
	if (!b)
		return false;
	if (b->run_steps && b->run_used >= b->run_steps) {
		res->stop = PSYM_UNWIND_BUDGET;
		snprintf(res->why, sizeof(res->why),
			 "the run's budget of %llu CFA steps is spent (--limit unwind-steps=N)",
			 (unsigned long long)b->run_steps);
		return true;
	}
	if (b->sample_steps && res->steps >= b->sample_steps) {
		res->stop = PSYM_UNWIND_BUDGET;
		snprintf(res->why, sizeof(res->why),
			 "the sample's budget of %llu CFA steps is spent "
			 "(--limit unwind-sample-steps=N)",
			 (unsigned long long)b->sample_steps);
		return true;
	}
	return false;
}

void psym_unwind(const struct psym_unwind_regs *regs, const struct psym_unwind_stack *stk,
		 psym_unwind_find_fn find, void *arg, uint64_t *pcs, size_t max,
		 struct psym_unwind_result *res)
{
	psym_unwind_budgeted(regs, stk, find, arg, pcs, max, NULL, res);
}

void psym_unwind_budgeted(const struct psym_unwind_regs *regs, const struct psym_unwind_stack *stk,
			  psym_unwind_find_fn find, void *arg, uint64_t *pcs, size_t max,
			  struct psym_unwind_budget *budget, struct psym_unwind_result *res)
{
	struct psym_unwind_regs cur = *regs, next;
	struct psym_err e = { 0 };
	bool exact = true; /* the leaf's pc, or one interrupted by a signal */
	/* Signal frames that left the stack pointer where it was: (pc, sp). */
	uint64_t stay_pc[PSYM_UNWIND_MAX_SIGNAL_STAYS], stay_sp[PSYM_UNWIND_MAX_SIGNAL_STAYS];
	size_t nstay = 0;

	memset(res, 0, sizeof(*res));
	if (max == 0) {
		res->stop = PSYM_UNWIND_DEPTH;
		return;
	}
	if (!(cur.valid & (1u << PSYM_X86_RA)) || !(cur.valid & (1u << PSYM_X86_RSP))) {
		res->stop = PSYM_UNWIND_BAD_RULE;
		snprintf(res->why, sizeof(res->why), "no rip or rsp");
		return;
	}
	pcs[res->n++] = cur.r[PSYM_X86_RA];
	for (;;) {
		uint64_t pc = cur.r[PSYM_X86_RA] - (exact ? 0 : 1);
		struct psym_cfi_row row;
		enum step st;
		bool signal = false;
		int r;

		if (res->n == max) {
			res->stop = PSYM_UNWIND_DEPTH;
			return;
		}
		if (over_budget(budget, res))
			return;
		{
			uint64_t steps = 0;

			r = find_row(find, arg, pc, &row, &steps, &e);
			res->steps += steps;
			if (budget)
				budget->run_used += steps;
		}
		if (r < 0) {
			st = STEP_BAD;
		} else if (r == 0) {
			st = apply_row(&row, &cur, stk, &next, &e);
			signal = row.signal_frame;
			/*
			 * A signal trampoline is entered by the handler's return:
			 * its pc is recorded as is (its FDE starts a byte early so
			 * that pc - 1 finds it), as libdw and gdb show it.
			 */
			if (signal)
				pcs[res->n - 1] = cur.r[PSYM_X86_RA];
		} else {
			st = frame_pointer(&cur, stk, &next, &e);
			if (st == STEP_OK)
				res->fp_frames++;
		}
		switch (st) {
		case STEP_OK: break;
		case STEP_END: res->stop = PSYM_UNWIND_END; return;
		case STEP_OOS: res->stop = PSYM_UNWIND_OUT_OF_STACK; return;
		default:
			res->stop = PSYM_UNWIND_BAD_RULE;
			snprintf(res->why, sizeof(res->why), "%.159s", e.msg);
			return;
		}
		if (r == 0)
			res->cfi_frames++;
		if (next.r[PSYM_X86_RA] == 0) {
			res->stop = PSYM_UNWIND_END;
			return;
		}
		/*
		 * The stack grows down: a caller's frame is above, except across
		 * a signal (sigaltstack) -- a few times, never in a loop.
		 */
		if (next.r[PSYM_X86_RSP] <= cur.r[PSYM_X86_RSP]) {
			bool seen = false;

			for (size_t i = 0; i < nstay && !seen; i++)
				seen = stay_pc[i] == next.r[PSYM_X86_RA] &&
				       stay_sp[i] == next.r[PSYM_X86_RSP];
			if (!signal || seen || nstay == PSYM_UNWIND_MAX_SIGNAL_STAYS) {
				res->stop = PSYM_UNWIND_NO_PROGRESS;
				return;
			}
			stay_pc[nstay] = next.r[PSYM_X86_RA];
			stay_sp[nstay++] = next.r[PSYM_X86_RSP];
		}
		exact = signal;
		pcs[res->n++] = next.r[PSYM_X86_RA] - (exact ? 0 : 1);
		cur = next;
	}
}
