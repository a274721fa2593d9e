// SPDX-License-Identifier: GPL-2.0
/*
 * tprof-read: a sample's Python frames (its UWALK record) merged into its
 * native stack where the interpreter ran them.
 *
 * One chain of frames per thread spans every activation of the eval loop
 * (_PyEval_EvalFrameDefault): 3.11 flags the outermost frame of each
 * activation (is_entry), 3.12+ puts a sentinel frame (owner >= the
 * PYPROC's entry_value) outside each. So the walk splits into segments,
 * one per activation, innermost first, and the native stack's eval frames,
 * found by address (PYPROC's ranges, hot and .cold), are those same
 * activations from the leaf: each is replaced by its segment. A C
 * extension called from Python then has its Python caller above it and its
 * native callees below. As py-spy does, one native eval frame more than
 * segments is tolerated (an activation whose frames have returned, still
 * in the loop); more is a walk that does not fit: the stack stays native.
 * Segments the native stack ran out before (a snapshot that ended, an FP
 * chain through code without frame pointers) go under its deepest frame.
 * A walk cut short ends its stack with "[truncated]" after its last
 * activation: what the native stack has below it ran Python frames the
 * walk never reached. A walk that kept the chain's outermost frames too
 * (the module's tail: a recursion deeper than the cap) goes on after the
 * marker with them, matched from the other end: its outermost activation
 * is the native stack's outermost eval frame, and so on inwards; the
 * native frames between the head's last activation and the tail's first
 * ran in the frames left out, and go with them (where the tail's first
 * activation is the head's last, none do). Then the native stack's root.
 * Merging runs at aggregation, with only addresses; names and lines come
 * when the stream is whole (analyze/pyframes.c).
 */
#include <string.h>

#include "model/pyrecords.h"

/* The walk's frames as tagged words, and where each activation ends. */
struct segs {
	uint64_t fr[TPROF_UWALK_MAX_FRAMES];
	unsigned int end[TPROF_UWALK_MAX_FRAMES + 1];	/* exclusive */
	unsigned int nfr, nseg;
};

static bool in_eval(const struct py_proc *pp, uint64_t addr)
{
	unsigned int i;

	for (i = 0; i < pp->d.nr_ranges; i++)
		if (addr >= pp->ranges[2 * i] && addr < pp->ranges[2 * i + 1])
			return true;
	return false;
}

/* Split frames [from, to) of the walk w of pid into segments (sg),
 * innermost first. */
static void split(struct python *py, const struct py_proc *pp, int pid,
		  const struct tprof_record *w, unsigned int from,
		  unsigned int to, struct segs *sg)
{
	const struct tprof_urec_pyproc *d = &pp->d;
	unsigned int wpf = w->u.uwalk.words_per_frame, f, i;
	uint64_t cw[TPROF_UWALK_MAX_FIELDS + TPROF_UWALK_MAX_CODE_OFFS];

	sg->nfr = sg->nseg = 0;
	for (f = from; f < to; f++) {
		unsigned int base = f * wpf;
		uint64_t code;
		int64_t off;
		unsigned int entry = (tprof_record_word(w, base + d->w_entry) >>
				      d->entry_shift) & 0xff;

		if (d->entry_kind == TPROF_PY_ENTRY_SENTINEL &&
		    entry >= d->entry_value) {
			/* a sentinel: dropped, it ends an activation (an empty
			 * one too: a loop whose frames have all returned) */
			sg->end[sg->nseg++] = sg->nfr;
			continue;
		}
		code = tprof_record_word(w, base + d->w_code) & ~d->code_mask;
		/* the instruction's offset in the code's bytecode, as
		 * CPython's _PyInterpreterFrame_LASTI() * 2 */
		off = (int64_t)(tprof_record_word(w, base + d->w_instr) -
				(code + d->code_adaptive));
		for (i = d->w_check; i < wpf; i++)
			cw[i - d->w_check] = tprof_record_word(w, base + i);
		sg->fr[sg->nfr++] = python__frame(py, pid, code,
			py_check_fold(cw, wpf - d->w_check), off);
		if (d->entry_kind == TPROF_PY_ENTRY_FLAG && entry)
			sg->end[sg->nseg++] = sg->nfr;
	}
	/* frames past the last marker: a walk cut short, still an activation */
	if (sg->nfr && (!sg->nseg || sg->end[sg->nseg - 1] != sg->nfr))
		sg->end[sg->nseg++] = sg->nfr;
}

/* Append segment k's frames to out[*n..max); false if they did not fit. */
static bool put_seg(struct python *py, const struct segs *sg, unsigned int k,
		    uint64_t *out, unsigned int *n, unsigned int max)
{
	unsigned int i = k ? sg->end[k - 1] : 0;

	for (; i < sg->end[k]; i++) {
		if (*n >= max) {
			py->st.overflow += sg->end[k] - i;
			return false;
		}
		out[(*n)++] = sg->fr[i];
	}
	return true;
}

static bool seg_empty(const struct segs *sg, unsigned int k)
{
	return sg->end[k] == (k ? sg->end[k - 1] : 0);
}

/*
 * After "[truncated]": the tail's segments (tg), matched with the native
 * stack's eval frames after ips[i] from the outermost in, and the native
 * frames from there to the root. Return: where out ends.
 */
static unsigned int put_tail(struct python *py, const struct py_proc *pp,
			     const struct segs *tg, const uint64_t *ips,
			     unsigned int i, unsigned int n, uint64_t *out,
			     unsigned int m, unsigned int max)
{
	unsigned int j, k = 0, evals = 0, skip;

	py->st.tails++;
	for (j = i + 1; j < n; j++)
		evals += !py_frame_ip(ips[j]) && in_eval(pp, ips[j] - 1);
	/*
	 * The head's last activation and the tail's first are one when the
	 * native stack has one eval frame fewer after it than the tail has
	 * activations: that one continues at once. Fewer still: the native
	 * stack ended first (a snapshot cut short): the tail alone.
	 */
	if (evals + 1 < tg->nseg) {
		py->st.tail_unplaced++;
		while (k < tg->nseg && put_seg(py, tg, k, out, &m, max))
			k++;
		return m;
	}
	if (evals + 1 == tg->nseg && !put_seg(py, tg, k++, out, &m, max))
		return m;
	/*
	 * The eval frames of activations left out, and every native frame
	 * before the tail's first activation: they ran in frames left out.
	 */
	skip = evals + k - tg->nseg;
	for (j = i + 1; j < n && m < max; j++) {
		uint64_t ip = py_frame_ip(ips[j]) ? PY_FRAME_JUNK : ips[j];

		if (!in_eval(pp, ip - 1)) {
			if (k)
				out[m++] = ip;
			continue;
		}
		if (skip) {
			skip--;
			continue;
		}
		if (k < tg->nseg && !seg_empty(tg, k)) {
			if (!put_seg(py, tg, k++, out, &m, max))
				return m;
			continue;
		}
		k++;	/* an empty activation: the loop's own frame */
		out[m++] = ip;
	}
	return m;
}

unsigned int python__merge(struct python *py, int pid,
			   const struct tprof_record *w, uint64_t *ips,
			   unsigned int n, unsigned int max)
{
	const struct py_proc *pp = python__proc(py, pid);
	const struct tprof_urec_pyproc *d;
	/* and "[truncated]" */
	uint64_t out[TPROF_MAX_USER_FRAMES + TPROF_UWALK_MAX_FRAMES + 1];
	unsigned int i, k = 0, m = 0, extra = 0, wpf, ntail;
	struct segs sg, tg;
	bool partial;

	py->st.walks++;
	if (!w->u.uwalk.nr_frames) {
		py->st.empty++;
		return 0;
	}
	if (!pp) {
		py->st.no_proc++;
		return 0;
	}
	d = &pp->d;
	wpf = w->u.uwalk.words_per_frame;
	if (d->w_code >= wpf || d->w_instr >= wpf || d->w_entry >= wpf ||
	    d->w_check >= wpf ||
	    wpf > TPROF_UWALK_MAX_FIELDS + TPROF_UWALK_MAX_CODE_OFFS) {
		py->st.bad_words++;
		return 0;
	}
	if (max > ARRAY_SIZE(out))
		max = ARRAY_SIZE(out);
	/*
	 * A walk cut short (the frame cap, an unreadable frame) lacks the
	 * outer frames: its last activation runs on in Python the walk
	 * never reached, so the native frames past that activation's eval
	 * frame are not its callers. The stack ends there, saying so, or,
	 * with the chain's outermost frames (a TRUNCATED walk's tail; a
	 * FAULT one's did not reach the end), goes on with them.
	 */
	partial = w->u.uwalk.status == TPROF_UWALK_FAULT ||
		  w->u.uwalk.status == TPROF_UWALK_TRUNCATED;
	ntail = w->u.uwalk.nr_tail < w->u.uwalk.nr_frames ?
		w->u.uwalk.nr_tail : 0;
	split(py, pp, pid, w, 0, w->u.uwalk.nr_frames - ntail, &sg);
	if (w->u.uwalk.status != TPROF_UWALK_TRUNCATED)
		ntail = 0;
	split(py, pp, pid, w, w->u.uwalk.nr_frames - ntail,
	      w->u.uwalk.nr_frames, &tg);
	for (i = 0; i < n && m < max; i++) {
		uint64_t ip = py_frame_ip(ips[i]) ? PY_FRAME_JUNK : ips[i];
		bool eval = in_eval(pp, i ? ip - 1 : ip);

		if (eval && k < sg.nseg && !seg_empty(&sg, k)) {
			put_seg(py, &sg, k++, out, &m, max);
			if (partial && k == sg.nseg)
				break;	/* ips[i]: the head's last one's */
			continue;
		}
		if (eval && k < sg.nseg)
			k++;	/* an empty activation: the loop's own frame */
		else if (eval)
			extra++;
		out[m++] = ip;
	}
	if (extra > 1 && !partial) {
		py->st.mismatched++;
		return 0;
	}
	py->st.extra_eval += extra == 1 && !partial;
	if (k < sg.nseg)
		py->st.appended++;
	while (k < sg.nseg && put_seg(py, &sg, k, out, &m, max))
		k++;
	if (partial) {
		py->st.cut++;
		if (m == max)	/* the marker over the outermost frame kept */
			m--;
		out[m++] = python__cut_frame(py, pid);
		/* i: the head's last eval frame, or n: the native stack
		 * ended in the head */
		if (tg.nfr)
			m = put_tail(py, pp, &tg, ips, i, n, out, m, max);
	}
	py->st.merged++;
	py->st.frames += sg.nfr + tg.nfr;
	memcpy(ips, out, (size_t)m * sizeof(*out));
	return m;
}
