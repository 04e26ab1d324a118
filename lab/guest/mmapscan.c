// SPDX-License-Identifier: GPL-2.0
/*
 * mmapscan: read a file through read() or through a shared mapping, the way the nfs-mmap
 * family's workloads do, and print one JSON line: bytes the program used, seconds, and its
 * own major and minor faults (getrusage).
 *
 *   mmapscan MODE FILE [options]
 *     MODE read      pread() bs at a time from offset 0 (the baseline)
 *          seq       touch the mapping bs at a time from offset 0 (memcpy, as a reader would)
 *          stride    touch bs every --stride bytes
 *          random    touch bs at --ios random bs-aligned offsets
 *          copy      write() the mapping bs at a time to --dst (a local file, rewritten at
 *                    offset 0 each time): cp through mmap, the faults come from the kernel
 *     --bs N         bytes per access (default 4096)
 *     --advice A     none | sequential | random | willneed (madvise of the whole mapping;
 *                    willneed: each --willneed-kb of the mapping is advised one such chunk
 *                    before the scan reaches it, as a program prefetching ahead would)
 *     --willneed-kb N  (default 4096)
 *     --stride N     bytes (default 65536)
 *     --ios N        random: accesses (default 1000)
 *     --runtime S    stop after S seconds (default 0: the whole file, or --ios)
 *     --seed N       random: seed (default 1)
 *     --threads N    read, seq: N threads through one open file (and one mapping), thread i
 *                    reading the i-th of N equal parts of the file (default 1)
 *
 * Sizes take k, m, g suffixes. Errors name the problem and exit 2.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void die(const char *fmt, const char *arg)
{
	fprintf(stderr, "mmapscan: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	exit(2);
}

static unsigned long long size_arg(const char *opt, const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *s == '-')
		die("%s needs a number", opt);
	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	}
	if (*end)
		die("%s: trailing garbage in the number", opt);
	return v;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* xorshift64*: a fixed sequence for a seed, the same on both kernels */
static uint64_t rnd_state;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state >> 12;
	rnd_state ^= rnd_state << 25;
	rnd_state ^= rnd_state >> 27;
	return rnd_state * 2685821657736338717ULL;
}

/* what every thread needs, set once by main() */
static unsigned long long bs = 4096, stride = 65536, ios = 1000, wn = 4096 << 10, size;
static const char *mode, *file, *advice = "none", *dst;
static double runtime, t0;
static char *map;
static int fd, dfd = -1;

struct part {
	unsigned long long from, to, used, n;
};

/* Scan [from, to) of the file as the mode says; one thread each. */
static void *scan_part(void *arg)
{
	struct part *pt = arg;
	unsigned long long off = pt->from, advised = pt->from, n;
	volatile unsigned long sink = 0;
	char *buf = malloc(bs);

	if (!buf)
		die("%s", "out of memory");
	memset(buf, 0, bs);
	for (n = 0;; n++) {
		if (!strcmp(mode, "random")) {
			if (n >= ios)
				break;
			off = (rnd() % (size / bs)) * bs;
		} else if (off + bs > pt->to) {
			break;
		}
		if (runtime && (n & 63) == 0 && now() - t0 >= runtime)
			break;
		if (map && !strcmp(advice, "willneed")) {
			/* keep the next chunk advised before the scan gets there */
			while (advised < pt->to && advised < (off / wn + 2) * wn) {
				unsigned long long len = advised + wn > pt->to ? pt->to - advised : wn;

				if (madvise(map + advised, len, MADV_WILLNEED))
					die("%s", "madvise(willneed) failed");
				advised += len;
			}
		}
		if (!strcmp(mode, "read")) {
			ssize_t r = pread(fd, buf, bs, off);

			if (r != (ssize_t)bs)
				die("short read from %s", file);
		} else if (!strcmp(mode, "copy")) {
			if (pwrite(dfd, map + off, bs, 0) != (ssize_t)bs)
				die("write to %s failed", dst);
		} else {
			memcpy(buf, map + off, bs);
			sink += buf[0];
		}
		pt->used += bs;
		if (strcmp(mode, "random"))
			off += strcmp(mode, "stride") ? bs : stride;
	}
	pt->n = n;
	free(buf);
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long long seed = 1, used = 0, n = 0, nthreads = 1;
	struct rusage ru0, ru1;
	struct stat st;
	double secs;
	int i;

	if (argc < 3)
		die("usage: mmapscan read|seq|stride|random|copy FILE [options]%s", "");
	mode = argv[1];
	file = argv[2];
	for (i = 3; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!v)
			die("%s needs a value", o);
		if (!strcmp(o, "--bs"))
			bs = size_arg(o, v);
		else if (!strcmp(o, "--stride"))
			stride = size_arg(o, v);
		else if (!strcmp(o, "--ios"))
			ios = size_arg(o, v);
		else if (!strcmp(o, "--willneed-kb"))
			wn = size_arg(o, v) << 10;
		else if (!strcmp(o, "--threads"))
			nthreads = size_arg(o, v);
		else if (!strcmp(o, "--seed"))
			seed = size_arg(o, v);
		else if (!strcmp(o, "--runtime"))
			runtime = (double)size_arg(o, v);
		else if (!strcmp(o, "--advice"))
			advice = v;
		else if (!strcmp(o, "--dst"))
			dst = v;
		else
			die("unknown option %s", o);
		i++;
	}
	if (strcmp(mode, "read") && strcmp(mode, "seq") && strcmp(mode, "stride") &&
	    strcmp(mode, "random") && strcmp(mode, "copy"))
		die("unknown mode '%s' (read, seq, stride, random, copy)", mode);
	if (!bs || bs > (1ULL << 30) || !stride || !wn)
		die("%s", "--bs, --stride and --willneed-kb must be above 0 (bs at most 1g)");
	if (!nthreads || nthreads > 64)
		die("%s", "--threads must be 1 to 64");
	if (!strcmp(mode, "copy") && !dst)
		die("%s", "copy needs --dst");
	fd = open(file, O_RDONLY);
	if (fd < 0 || fstat(fd, &st))
		die("cannot open %s", file);
	size = st.st_size;
	if (size < bs)
		die("%s is smaller than --bs", file);
	if (dst) {
		dfd = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (dfd < 0)
			die("cannot open %s", dst);
	}
	rnd_state = seed * 0x9E3779B97F4A7C15ULL + 1;

	getrusage(RUSAGE_SELF, &ru0);
	t0 = now();
	map = NULL;
	if (strcmp(mode, "read")) {
		int adv = -1;

		map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
		if (map == MAP_FAILED)
			die("cannot map %s", file);
		if (!strcmp(advice, "sequential"))
			adv = MADV_SEQUENTIAL;
		else if (!strcmp(advice, "random"))
			adv = MADV_RANDOM;
		else if (strcmp(advice, "none") && strcmp(advice, "willneed"))
			die("unknown --advice '%s' (none, sequential, random, willneed)", advice);
		if (adv >= 0 && madvise(map, size, adv))
			die("madvise(%s) failed", advice);
	} else if (strcmp(advice, "none")) {
		die("--advice is for the mapped modes, not '%s'", advice);
	}

	if (nthreads > 1) {
		pthread_t tid[64];
		struct part parts[64];

		if (strcmp(mode, "read") && strcmp(mode, "seq"))
			die("%s", "--threads is for read and seq");
		memset(parts, 0, sizeof(parts));
		for (i = 0; i < (int)nthreads; i++) {
			parts[i].from = size / nthreads * i / bs * bs;
			parts[i].to = i + 1 == (int)nthreads ? size : size / nthreads * (i + 1) / bs * bs;
			if (pthread_create(&tid[i], NULL, scan_part, &parts[i]))
				die("%s", "pthread_create failed");
		}
		for (i = 0; i < (int)nthreads; i++) {
			pthread_join(tid[i], NULL);
			used += parts[i].used;
			n += parts[i].n;
		}
	} else {
		struct part all = { .from = 0, .to = size };

		scan_part(&all);
		used = all.used;
		n = all.n;
	}
	secs = now() - t0;
	getrusage(RUSAGE_SELF, &ru1);
	printf("{\"mode\": \"%s\", \"advice\": \"%s\", \"bytes\": %llu, \"accesses\": %llu, "
	       "\"secs\": %.6f, \"majflt\": %ld, \"minflt\": %ld, \"file_bytes\": %llu}\n",
	       mode, advice, used, n, secs, ru1.ru_majflt - ru0.ru_majflt,
	       ru1.ru_minflt - ru0.ru_minflt, size);
	return 0;
}
