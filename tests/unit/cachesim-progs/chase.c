// SPDX-License-Identifier: GPL-2.0
/*
 * A pointer chase: NODES nodes of 64 bytes (a line each) linked in one
 * random cycle (Sattolo's shuffle, a fixed LCG), walked ROUNDS times.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NODES 8192
#define ROUNDS 3

struct node {
	struct node *next;
	long pad[7];
};

int main(void)
{
	struct node *nodes = malloc(NODES * sizeof(*nodes));
	unsigned int *perm = malloc(NODES * sizeof(*perm));
	uint64_t x = 12345;
	struct node *p;
	long steps = 0;

	if (!nodes || !perm)
		return 1;
	for (unsigned int i = 0; i < NODES; i++)
		perm[i] = i;
	for (unsigned int i = NODES - 1; i > 0; i--) {	/* Sattolo: one cycle */
		unsigned int j, t;

		x = x * 6364136223846793005u + 1442695040888963407u;
		j = (unsigned int)((x >> 33) % i);
		t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	for (unsigned int i = 0; i < NODES; i++)
		nodes[i].next = &nodes[perm[i]];
	for (p = nodes; steps < (long)NODES * ROUNDS; steps++)
		p = p->next;
	printf("%ld %ld\n", steps, (long)(p - nodes));
	free(perm);
	free(nodes);
	return 0;
}
