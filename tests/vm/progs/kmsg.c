// SPDX-License-Identifier: GPL-2.0
/*
 * vmt-kmsg STATE: print the kernel log records written since the last call,
 * the first line of each, and keep the last record's sequence number in the
 * file STATE (none there: every record the buffer holds).
 *
 * tests/vm/batch.sh calls it between tests. It reads /dev/kmsg, whose
 * sequence numbers survive the buffer wrapping around, unlike `dmesg`'s line
 * counts; it is a program, not a script, as it runs twice a test and a
 * python3 start takes 2 s on the debug kernel.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	/* A record is at most PRINTK_MESSAGE_MAX (2048) bytes and its header. */
	char rec[8192];
	unsigned long long last = 0, seq;
	int have_last = 0, fd;
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: vmt-kmsg STATE\n");
		return 2;
	}
	f = fopen(argv[1], "r");
	if (f) {
		have_last = fscanf(f, "%llu", &last) == 1;
		fclose(f);
	}
	fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		perror("vmt-kmsg: /dev/kmsg");
		return 1;
	}
	for (;;) {
		ssize_t n = read(fd, rec, sizeof(rec) - 1);
		char *text, *end;

		if (n < 0 && errno == EPIPE)	/* overwritten before we read it */
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n < 0) {
			perror("vmt-kmsg: read");
			return 1;
		}
		rec[n] = '\0';
		/* "PRIO,SEQ,USEC,FLAGS[,...];TEXT\n[ KEY=VALUE\n]..." */
		text = strchr(rec, ';');
		if (!text || sscanf(rec, "%*u,%llu,", &seq) != 1) {
			fprintf(stderr, "vmt-kmsg: a record without a header: %.80s\n", rec);
			return 1;
		}
		if (have_last && seq <= last)
			continue;
		last = seq;
		have_last = 1;
		text++;
		end = strchr(text, '\n');
		printf("%.*s\n", end ? (int)(end - text) : (int)strlen(text), text);
	}
	close(fd);
	if (!have_last)
		return 0;
	f = fopen(argv[1], "w");
	if (!f || fprintf(f, "%llu\n", last) < 0 || fclose(f)) {
		perror(argv[1]);
		return 1;
	}
	return 0;
}
