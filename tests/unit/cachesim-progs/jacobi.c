// SPDX-License-Identifier: GPL-2.0
/* 2-D Jacobi: a 5-point stencil swept over an N x N grid of doubles, two grids in turn. */
#include <stdio.h>

#ifndef N
#define N 128
#endif
#define SWEEPS 4
static double u[N][N], v[N][N];

int main(void)
{
	double sum = 0;

	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++)
			u[i][j] = v[i][j] = (i == 0 || j == 0) ? 1.0 : 0.0;
	for (int s = 0; s < SWEEPS; s++) {
		double (*from)[N] = s % 2 ? v : u, (*to)[N] = s % 2 ? u : v;

		for (int i = 1; i < N - 1; i++)
			for (int j = 1; j < N - 1; j++)
				to[i][j] = 0.25 * (from[i - 1][j] + from[i + 1][j] +
						   from[i][j - 1] + from[i][j + 1]);
	}
	for (int i = 0; i < N; i++)
		sum += u[i][1];
	printf("%g\n", sum);
	return 0;
}
