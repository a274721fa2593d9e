/* SPDX-License-Identifier: GPL-2.0 */
/* Enough code per file for the compiler to work a while (-O2). */
#define STEP(n)								\
	static unsigned long step_##n(unsigned long x, const unsigned long *t) \
	{								\
		unsigned long i, s = x;					\
		for (i = 0; i < 64; i++)				\
			s = (s * 6364136223846793005UL + t[i & 15]) ^	\
			    (s >> ((n) % 29 + 1));			\
		return s + (n);						\
	}
/* four steps: the build takes 0.63x the CPU of eight (make -j4 was 39-47 s
 * of a row under TCG); five files, not seven (62 s of a 6.12 row), still
 * five cc1 runs of seconds each there */
#define STEPS4(b) STEP(b##0) STEP(b##1) STEP(b##2) STEP(b##3)
#define CALLS4(b, x, t) x = step_##b##0(x, t) ^ step_##b##1(x, t) ^	\
	step_##b##2(x, t) ^ step_##b##3(x, t)
#define UNIT(name)							\
	STEPS4(1)							\
	unsigned long name(unsigned long x)				\
	{								\
		static const unsigned long t[16] = { 3, 5, 7, 11, 13,	\
			17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59 };	\
		CALLS4(1, x, t);					\
		return x;						\
	}
