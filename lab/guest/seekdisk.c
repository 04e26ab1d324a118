// SPDX-License-Identifier: GPL-2.0
/*
 * seekdisk: the lab's seeking disk. A memory-backed block device (the kernel's nbd driver,
 * served by this process over a socketpair: no network, no nbd-client) whose requests cost
 * what a disk with one head charges, one at a time in the order it takes them (below):
 *
 *   service = latency + positioning + bytes / bandwidth
 *   positioning = 0                      if the request starts where the last one ended,
 *                 gap / bandwidth        if it starts at most TRACK_KB after that (the head
 *                                        passes over the gap: short skips read through),
 *                 seek                   otherwise (seek and rotational delay, an average).
 *
 * null_blk charges a fixed time per request wherever it lies, so it cannot tell a fragmented
 * file from a contiguous one; this can (issue 13: read-back of files written over NFS).
 * Writes are modelled like reads (no write cache: a write is on the platter when it is
 * acknowledged, so no FLUSH is advertised), or with WCACHE 1 as a write-back cache that
 * destages in the background for free: a write costs latency + bytes / bandwidth and leaves
 * the head where it was. That keeps write-heavy setups (thousands of small stable writes)
 * short while reads still see the layout; say which in what you report. Discards are free
 * and give the memory back.
 *
 * With QUEUE above 1 the disk reorders like a SATA disk with command queueing (NCQ): of the
 * requests that have arrived (at most QUEUE), it serves next the one at or after the head
 * with the lowest offset, else the lowest (C-LOOK); 1 serves them strictly in arrival order.
 *
 *   seekdisk DEV SIZE_MB SEEK_US LATENCY_US MBPS TRACK_KB WCACHE QUEUE STATS
 *
 * DEV is an unused /dev/nbdN. The process stays in the foreground serving it until the
 * device is disconnected (nbd's NBD_CMD_DISC, or the guest powers off). STATS is a file the
 * counters are kept in, one "name value" line each, rewritten in place after every request:
 * requests, seeks, skips, read_bytes, write_bytes, busy_us. With SEEKDISK_TRACE=FILE in its
 * environment it also logs every request there: start time (us), R/W/T/F, offset, length and
 * the positioning cost (us) and the requests queued when it was taken. SEEKDISK_MAX_AGE_MS
 * sets the starvation limit (below; default 200, 0 for none).
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/nbd.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BLOCK 4096
#define MAX_QUEUE 256
#define MAX_AGE_MS 200

struct stats {
	unsigned long long requests, seeks, skips, read_bytes, write_bytes, busy_ns;
};

static void die(const char *what)
{
	fprintf(stderr, "seekdisk: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void usage(const char *why)
{
	fprintf(stderr, "seekdisk: %s\nusage: seekdisk DEV SIZE_MB SEEK_US LATENCY_US MBPS TRACK_KB WCACHE QUEUE STATS\n", why);
	exit(2);
}

static unsigned long long number(const char *s, const char *name, unsigned long long hi)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || v > hi) {
		fprintf(stderr, "seekdisk: %s must be an integer from 0 to %llu, not '%s'\n", name, hi, s);
		exit(2);
	}
	return v;
}

/* Read or write exactly len bytes; 0 at a clean end of stream before the first byte. */
static int full(int fd, void *buf, size_t len, int wr)
{
	char *p = buf;
	size_t done = 0;

	while (done < len) {
		ssize_t n = wr ? write(fd, p + done, len - done) : read(fd, p + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die(wr ? "socket write" : "socket read");
		if (n == 0) {
			if (!wr && done == 0)
				return 0;
			errno = EPIPE;
			die("socket closed mid-message");
		}
		done += n;
	}
	return 1;
}

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void sleep_until(unsigned long long ns)
{
	struct timespec ts = { .tv_sec = ns / 1000000000ULL, .tv_nsec = ns % 1000000000ULL };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* One write of the whole text at offset 0: the counters only grow, so it never shrinks. */
static void put_stats(int fd, const struct stats *st)
{
	char buf[256];
	int n = snprintf(buf, sizeof(buf),
			 "requests %llu\nseeks %llu\nskips %llu\nread_bytes %llu\nwrite_bytes %llu\nbusy_us %llu\n",
			 st->requests, st->seeks, st->skips, st->read_bytes, st->write_bytes, st->busy_ns / 1000);

	if (pwrite(fd, buf, n, 0) != n)
		die("stats write");
}

struct req {
	unsigned int cmd;
	int bad;
	unsigned long long from, len, arrival;
	char handle[8];
	char *buf;	/* a write's payload until it is served */
};

static char *disk;
static unsigned long long size, seek_ns, latency_ns, bps, track, wcache, head, busy_until;
static unsigned long long max_age_ns = MAX_AGE_MS * 1000000ULL;
static struct stats st;
static FILE *trace;
static int sock, statfd;

/* The next request off the socket; 0 at the end (a disconnect or a closed socket). */
static int recv_req(int fd, struct req *r)
{
	struct nbd_request rq;

	if (!full(fd, &rq, sizeof(rq), 0))
		return 0;
	if (be32toh(rq.magic) != NBD_REQUEST_MAGIC) {
		errno = EPROTO;
		die("bad request magic");
	}
	r->arrival = now_ns();
	r->cmd = be32toh(rq.type) & 0xffff;
	r->from = be64toh(rq.from);
	r->len = be32toh(rq.len);
	memcpy(r->handle, rq.handle, sizeof(r->handle));
	r->buf = NULL;
	r->bad = (r->cmd == NBD_CMD_READ || r->cmd == NBD_CMD_WRITE || r->cmd == NBD_CMD_TRIM) &&
		 (r->from > size || r->len > size - r->from);
	if (r->cmd == NBD_CMD_DISC)
		return 0;
	if (r->cmd == NBD_CMD_WRITE) {
		r->buf = malloc(r->len ? r->len : 1);
		if (!r->buf)
			die("malloc");
		if (r->len && !full(fd, r->buf, r->len, 0)) {
			errno = EPIPE;
			die("socket closed before a write's payload");
		}
	}
	return 1;
}

static int is_io(const struct req *r)
{
	return !r->bad && (r->cmd == NBD_CMD_READ || r->cmd == NBD_CMD_WRITE);
}

/*
 * Which queued request the disk serves next. Reads and writes may pass each other (NCQ);
 * anything else (a discard, a flush, a refused request) is served in arrival order, and
 * nothing that arrived after it passes it. The oldest request is taken once it has waited
 * max_age_ns (a disk's starvation limit, SEEKDISK_MAX_AGE_MS; 0: none). Otherwise, with a
 * write cache a write is taken at once; else the next request at or after the head, else the
 * lowest (C-LOOK).
 */
static int pick(const struct req *q, int n, unsigned long long head, int wcache)
{
	int i, best = -1, low = 0;

	if (max_age_ns && now_ns() - q[0].arrival > max_age_ns)
		return 0;
	for (i = 0; i < n && is_io(&q[i]); i++) {
		if (wcache && q[i].cmd == NBD_CMD_WRITE)
			return i;
		if (q[i].from >= head && (best < 0 || q[i].from < q[best].from))
			best = i;
		if (q[i].from < q[low].from)
			low = i;
	}
	if (i == 0)
		return 0;
	return best >= 0 ? best : low;
}

static void serve(struct req *r, int queued)
{
	struct nbd_reply rp = { .magic = htobe32(NBD_REPLY_MAGIC) };
	unsigned long long pos, start, service;

	memcpy(rp.handle, r->handle, sizeof(rp.handle));
	if (r->bad) {
		rp.error = htobe32(EINVAL);
	} else if (is_io(r)) {
		int cached = wcache && r->cmd == NBD_CMD_WRITE;

		if (r->from == head || cached) {
			pos = 0;
		} else if (r->from > head && r->from - head <= track) {
			pos = bps ? (r->from - head) * 1000000000ULL / bps : 0;
			st.skips++;
		} else {
			pos = seek_ns;
			st.seeks++;
		}
		service = latency_ns + pos + (bps ? r->len * 1000000000ULL / bps : 0);
		/* from its arrival: the time spent copying it overlaps its service */
		start = r->arrival > busy_until ? r->arrival : busy_until;
		busy_until = start + service;
		if (trace)
			fprintf(trace, "%llu %c %llu %llu %llu %d\n", start / 1000, "RW"[r->cmd], r->from, r->len,
				pos / 1000, queued);
		sleep_until(busy_until);
		if (!cached)
			head = r->from + r->len;
		st.requests++;
		st.busy_ns += service;
		if (r->cmd == NBD_CMD_READ) {
			st.read_bytes += r->len;
		} else {
			st.write_bytes += r->len;
			memcpy(disk + r->from, r->buf, r->len);
		}
	} else if (r->cmd == NBD_CMD_TRIM) {
		/* whole pages only; what is left reads back as it was, as a disk may do */
		unsigned long long a = (r->from + 4095) & ~4095ULL, b = (r->from + r->len) & ~4095ULL;

		if (b > a)
			madvise(disk + a, b - a, MADV_DONTNEED);
	} else if (r->cmd != NBD_CMD_FLUSH) {
		rp.error = htobe32(EINVAL);
	}
	if (trace && !is_io(r))
		fprintf(trace, "%llu %c %llu %llu 0 %d\n", now_ns() / 1000, r->cmd == NBD_CMD_TRIM ? 'T' :
			r->cmd == NBD_CMD_FLUSH ? 'F' : '?', r->from, r->len, queued);
	free(r->buf);
	r->buf = NULL;
	put_stats(statfd, &st);	/* before the reply: a reader that saw it complete sees it counted */
	full(sock, &rp, sizeof(rp), 1);
	if (r->cmd == NBD_CMD_READ && !r->bad)
		full(sock, disk + r->from, r->len, 1);
}

int main(int argc, char **argv)
{
	static struct req q[MAX_QUEUE];
	int sv[2], nbd, ncq, n = 0, disc = 0;
	char path[256];
	const char *env;
	pid_t pid;

	if (argc != 10)
		usage("wrong number of arguments");
	size = number(argv[2], "SIZE_MB", 1 << 20) << 20;
	seek_ns = number(argv[3], "SEEK_US", 10000000) * 1000;
	latency_ns = number(argv[4], "LATENCY_US", 10000000) * 1000;
	bps = number(argv[5], "MBPS", 100000) * 1000000;
	track = number(argv[6], "TRACK_KB", 1 << 20) << 10;
	wcache = number(argv[7], "WCACHE", 1);
	ncq = number(argv[8], "QUEUE", MAX_QUEUE);
	if (!ncq)
		usage("QUEUE must be at least 1");
	if (!size)
		usage("SIZE_MB must be at least 1");
	env = getenv("SEEKDISK_MAX_AGE_MS");
	if (env)
		max_age_ns = number(env, "SEEKDISK_MAX_AGE_MS", 60000) * 1000000;

	/* A connected nbd device has a pid attribute; its size ioctls would resize it live. */
	snprintf(path, sizeof(path), "/sys/block/%s/pid", strrchr(argv[1], '/') ? strrchr(argv[1], '/') + 1 : argv[1]);
	if (!access(path, F_OK)) {
		fprintf(stderr, "seekdisk: %s is in use (%s exists)\n", argv[1], path);
		exit(1);
	}
	/* Reclaim may wait on writeback to this device, which only this process serves. */
	if (prctl(PR_SET_IO_FLUSHER, 1, 0, 0, 0))
		die("prctl(PR_SET_IO_FLUSHER)");
	disk = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (disk == MAP_FAILED)
		die("mmap");
	statfd = open(argv[9], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (statfd < 0)
		die(argv[9]);
	put_stats(statfd, &st);
	env = getenv("SEEKDISK_TRACE");
	if (env) {
		trace = fopen(env, "w");
		if (!trace)
			die(env);
		setvbuf(trace, NULL, _IOLBF, 0);	/* the guest may power off with it open */
	}
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		die("socketpair");
	nbd = open(argv[1], O_RDWR);
	if (nbd < 0)
		die(argv[1]);
	if (ioctl(nbd, NBD_SET_BLKSIZE, (unsigned long)BLOCK) ||
	    ioctl(nbd, NBD_SET_SIZE_BLOCKS, (unsigned long)(size / BLOCK)) ||
	    ioctl(nbd, NBD_SET_FLAGS, (unsigned long)(NBD_FLAG_HAS_FLAGS | NBD_FLAG_SEND_TRIM)) ||
	    ioctl(nbd, NBD_SET_TIMEOUT, 600UL) ||
	    ioctl(nbd, NBD_SET_SOCK, (unsigned long)sv[0]))
		die("nbd ioctl (is /dev/nbd* free, and nbd built into the kernel?)");

	/* NBD_DO_IT starts the device and returns when it is disconnected: a child waits in it. */
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		close(sv[1]);
		if (ioctl(nbd, NBD_DO_IT) && errno != EPIPE) {
			/* the server would wait for requests that never come */
			kill(getppid(), SIGTERM);
			die("NBD_DO_IT");
		}
		ioctl(nbd, NBD_CLEAR_QUE);
		ioctl(nbd, NBD_CLEAR_SOCK);
		_exit(0);
	}
	close(sv[0]);
	sock = sv[1];
	signal(SIGPIPE, SIG_IGN);

	for (;;) {
		struct pollfd pfd = { .fd = sv[1], .events = POLLIN };
		int i;

		/*
		 * Everything that has arrived, up to the queue depth, is the disk's to choose
		 * from; with nothing queued, wait for the next request.
		 */
		while (!disc && n < ncq && (!n || poll(&pfd, 1, 0) == 1)) {
			if (!recv_req(sv[1], &q[n]))
				disc = 1;
			else
				n++;
		}
		if (!n)
			break;
		i = pick(q, n, head, wcache);
		serve(&q[i], n);
		memmove(&q[i], &q[i + 1], (n - i - 1) * sizeof(q[0]));
		n--;
	}
	close(sv[1]);
	if (trace)
		fclose(trace);
	waitpid(pid, NULL, 0);
	return 0;
}
