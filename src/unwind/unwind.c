/* SPDX-License-Identifier: MIT */
/* One sampled stack unwound with CFI, falling back to the frame pointer. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "arch.h"
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

#define BIT(i) ((uint64_t)1 << (i))

static int read_stack(void *arg, uint64_t addr, unsigned size, uint64_t *val)
{
	const struct psym_unwind_stack *s = arg;
	uint64_t v = 0;

	if (addr < s->sp || addr - s->sp > s->len || s->len - (addr - s->sp) < size)
		return -1;
	memcpy(&v, s->bytes + (addr - s->sp), size); /* x86-64, AArch64: little-endian like us */
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
static enum step apply_row(const struct psym_unwind_arch *a, const struct psym_cfi_row *row,
			   const struct psym_unwind_regs *cur, const struct psym_unwind_stack *stk,
			   struct psym_unwind_regs *out, struct psym_err *e)
{
	struct psym_expr_ctx ctx = { cur->r, cur->valid, read_stack, (void *)stk, row->swap };
	uint64_t cfa;

	if (row->cfa.how == PSYM_CFI_REG) {
		if (row->cfa.reg >= PSYM_CFI_NREGS || !(cur->valid & BIT(row->cfa.reg))) {
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
	out->machine = cur->machine;
	for (unsigned i = 0; i < a->nregs; i++) {
		const struct psym_cfi_rule *ru = &row->reg[i];
		uint64_t v = 0, addr = 0;
		bool ok = false;
		int r;

		switch (ru->how) {
		case PSYM_CFI_UNSET:
			if (i == a->sp) {
				v = cfa;
				ok = true;
			} else if ((a->callee_saved & BIT(i)) && (cur->valid & BIT(i))) {
				v = cur->r[i];
				ok = true;
			}
			break;
		case PSYM_CFI_SAME:
			ok = (cur->valid & BIT(i)) != 0;
			v = cur->r[i];
			break;
		case PSYM_CFI_OFFSET:
			ok = read_stack((void *)stk, cfa + (uint64_t)ru->off, 8, &v) == 0;
			if (!ok && i == row->ra)
				return STEP_OOS;
			break;
		case PSYM_CFI_VAL_OFFSET:
			v = cfa + (uint64_t)ru->off;
			ok = true;
			break;
		case PSYM_CFI_REG:
			ok = ru->reg < PSYM_CFI_NREGS && (cur->valid & BIT(ru->reg));
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
			if (!ok && i == row->ra)
				return r == PSYM_EBADINPUT ? STEP_OOS : STEP_BAD;
			break;
		case PSYM_CFI_UNDEF:
		default:
			if (i == row->ra)
				return STEP_END;
			break;
		}
		if (ok) {
			out->r[i] = v;
			out->valid |= BIT(i);
		}
	}
	/* An AArch64 CIE's return address defaults to the link register's value. */
	if (!(out->valid & BIT(row->ra)) && row->reg[row->ra].how == PSYM_CFI_UNSET &&
	    row->ra != a->pc && (cur->valid & BIT(row->ra))) {
		out->r[row->ra] = cur->r[row->ra];
		out->valid |= BIT(row->ra);
	}
	if (row->ra >= a->nregs || !(out->valid & BIT(row->ra))) {
		psym_err_set(e, PSYM_EBADDWARF, "no rule for the return address");
		return STEP_BAD;
	}
	/* The caller's pc: the return address column, cleaned (AArch64 PAC). */
	out->r[a->pc] = a->strip(out->r[row->ra]);
	out->valid |= BIT(a->pc);
	if (!(out->valid & BIT(a->sp))) {
		out->r[a->sp] = cfa;
		out->valid |= BIT(a->sp);
	}
	return STEP_OK;
}

/* An arch rule's outcome as a step; NO_RULE says why in e. */
static enum step arch_step(enum psym_arch_step r, const char *what, struct psym_err *e)
{
	if (r == PSYM_ARCH_OK)
		return STEP_OK;
	if (r == PSYM_ARCH_OUT_OF_STACK)
		return STEP_OOS;
	psym_err_set(e, PSYM_EBADDWARF, "%s", what);
	return STEP_BAD;
}

/*
 * The CFI row for pc: 0, PSYM_NOENT (no object or no FDE), or an error;
 * *steps grows by the CFA instructions the lookups ran.
 */
static int find_row(psym_unwind_find_fn find, void *arg, uint64_t pc, struct psym_cfi_row *row,
		    bool *sigreturn, uint64_t *steps, struct psym_err *e)
{
	struct psym_unwind_obj obj;

	memset(&obj, 0, sizeof(obj));
	if (find(arg, pc, &obj) != 0)
		return PSYM_NOENT;
	*sigreturn = obj.sigreturn;
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
	const struct psym_unwind_arch *a = psym_unwind_arch_of(regs->machine);
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
	if (!a) {
		res->stop = PSYM_UNWIND_BAD_RULE;
		snprintf(res->why, sizeof(res->why), "machine %u: no unwinder", regs->machine);
		return;
	}
	if (!(cur.valid & BIT(a->pc)) || !(cur.valid & BIT(a->sp))) {
		res->stop = PSYM_UNWIND_BAD_RULE;
		snprintf(res->why, sizeof(res->why), "no pc or stack pointer");
		return;
	}
	pcs[res->n++] = cur.r[a->pc];
	for (;;) {
		uint64_t pc = cur.r[a->pc] - (exact ? 0 : 1);
		struct psym_cfi_row row;
		enum step st;
		bool signal = false, sigret = false;
		int r;

		if (res->n == max) {
			res->stop = PSYM_UNWIND_DEPTH;
			return;
		}
		if (over_budget(budget, res))
			return;
		{
			uint64_t steps = 0;

			r = find_row(find, arg, pc, &row, &sigret, &steps, &e);
			res->steps += steps;
			if (budget)
				budget->run_used += steps;
		}
		res->no_cfi = false;
		if (sigret && a->sigreturn) {
			/* The kernel's signal frame, where the trampoline has no usable CFI. */
			st = arch_step(a->sigreturn(&cur, read_stack, (void *)stk, &next),
				       "no signal frame", &e);
			signal = true;
			pcs[res->n - 1] = cur.r[a->pc];
			r = 1; /* counted as neither CFI nor frame pointer */
		} else if (r < 0) {
			st = STEP_BAD;
		} else if (r == 0) {
			st = apply_row(a, &row, &cur, stk, &next, &e);
			signal = row.signal_frame;
			/*
			 * A signal trampoline is entered by the handler's return:
			 * its pc is recorded as is (its FDE starts a byte early so
			 * that pc - 1 finds it), as libdw and gdb show it.
			 */
			if (signal)
				pcs[res->n - 1] = cur.r[a->pc];
		} else {
			enum psym_arch_step fs;

			res->no_cfi = true;
			fs = a->frame_pointer(&cur, exact, read_stack, (void *)stk, &next);
			st = arch_step(fs, "no CFI and no frame pointer", &e);
			if (st == STEP_OK && !res->fp_frames++)
				res->guessed = res->n;
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
		if (next.r[a->pc] == 0) {
			res->stop = PSYM_UNWIND_END;
			return;
		}
		/*
		 * The stack grows down: a caller's frame is above, except across
		 * a signal (sigaltstack) -- a few times, never in a loop. On
		 * AArch64 a leaf may keep its return address in x30 without
		 * touching sp: the pc must change then.
		 */
		if (next.r[a->sp] < cur.r[a->sp] ||
		    (next.r[a->sp] == cur.r[a->sp] &&
		     (!a->leaf_keeps_sp || next.r[a->pc] == cur.r[a->pc]))) {
			bool seen = false;

			for (size_t i = 0; i < nstay && !seen; i++)
				seen = stay_pc[i] == next.r[a->pc] && stay_sp[i] == next.r[a->sp];
			if (!signal || seen || nstay == PSYM_UNWIND_MAX_SIGNAL_STAYS) {
				res->stop = PSYM_UNWIND_NO_PROGRESS;
				return;
			}
			stay_pc[nstay] = next.r[a->pc];
			stay_sp[nstay++] = next.r[a->sp];
		}
		exact = signal;
		pcs[res->n++] = next.r[a->pc] - (exact ? 0 : 1);
		cur = next;
	}
}
