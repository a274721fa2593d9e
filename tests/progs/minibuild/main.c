// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include "work.h"

unsigned long unit_a(unsigned long), unit_b(unsigned long),
	unit_c(unsigned long), unit_d(unsigned long);

int main(void)
{
	printf("%lu\n", unit_a(1) ^ unit_b(2) ^ unit_c(3) ^ unit_d(4));
	return 0;
}
