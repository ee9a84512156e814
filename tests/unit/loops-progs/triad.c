// SPDX-License-Identifier: GPL-2.0
/* STREAM's triad, a[i] = b[i] + s c[i], over N doubles, 3 times (N from -DN). */
#include <stdio.h>

#ifndef N
#define N 65536
#endif
static double a[N], b[N], c[N];

int main(void)
{
	for (int i = 0; i < N; i++) {
		b[i] = i;
		c[i] = N - i;
	}
	for (int t = 0; t < 3; t++)
		for (int i = 0; i < N; i++)
			a[i] = b[i] + 3.0 * c[i];
	printf("%g\n", a[N / 2]);
	return 0;
}
