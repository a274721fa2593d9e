// SPDX-License-Identifier: GPL-2.0
/*
 * tprof C++ test program: same-named methods in different classes and
 * namespaces, a template, a lambda, an overload, so a profile must name each
 * by its demangled, qualified name (issue 13, item 4). Runs SECONDS of CPU
 * (argv[1], default 1) split over them.
 */
#include <cstdio>
#include <cstdlib>
#include <ctime>

static double cpu_now()
{
	timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

#define HOT __attribute__((noinline))

static unsigned long spin(unsigned long x)
{
	for (int i = 0; i < 20000; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}

namespace geo {
struct Shape {
	virtual ~Shape() {}
	virtual unsigned long area(unsigned long x) const = 0;
};
struct Circle : Shape {
	HOT unsigned long area(unsigned long x) const override { return spin(x + 1); }
};
struct Square : Shape {
	HOT unsigned long area(unsigned long x) const override { return spin(x + 2); }
};
} // namespace geo

namespace other {
struct Circle {
	HOT unsigned long area(unsigned long x) const { return spin(x + 3); }
};
} // namespace other

template <typename T> HOT unsigned long scaled(T v)
{
	return spin((unsigned long)v * 3);
}

HOT unsigned long over(int v) { return spin(v + 4); }
HOT unsigned long over(double v) { return spin((unsigned long)v + 5); }

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 1.0, end = cpu_now() + seconds;
	geo::Circle c;
	geo::Square sq;
	other::Circle oc;
	const geo::Shape *shapes[2] = { &c, &sq };
	auto lambda = [](unsigned long x) HOT { return spin(x + 6); };
	unsigned long acc = 0;
	int rounds = 0;

	do {
		for (int i = 0; i < 2; i++)
			acc += shapes[i]->area(acc);
		acc += oc.area(acc);
		acc += scaled<int>((int)acc) + scaled<double>((double)(acc & 0xffff));
		acc += over((int)acc) + over((double)(acc & 0xffff));
		acc += lambda(acc);
	} while (++rounds < 50 || cpu_now() < end);
	printf("%lu\n", acc & 1);
	return 0;
}
