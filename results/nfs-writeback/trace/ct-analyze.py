import re, sys, collections
tr = open(sys.argv[1]).read().splitlines()
ev = []
for l in tr:
    m = re.search(r'\s(\d+\.\d+): (\w+): (.*)', l)
    if not m: continue
    t, name, rest = float(m.group(1)), m.group(2), m.group(3)
    if name == 'nfs_initiate_commit':
        ino = int(re.search(r'fileid=\w+:\w+:(\d+)', rest).group(1)); ev.append((t, 'C', ino, rest))
    elif name == 'nfs_commit_done':
        ino = int(re.search(r'fileid=\w+:\w+:(\d+)', rest).group(1)); ev.append((t, 'D', ino, rest))
    elif name == 'ext4_sync_file_enter':
        ino = int(re.search(r'ino (\d+)', rest).group(1)); ev.append((t, 'E', ino, rest))
    elif name == 'ext4_sync_file_exit':
        ino = int(re.search(r'ino (\d+)', rest).group(1)); ev.append((t, 'X', ino, rest))
ev.sort()
q = collections.defaultdict(collections.deque); fs = collections.defaultdict(collections.deque)
t0 = ev[0][0] if ev else 0
inflight = 0; srv = 0
rows = []
for t, k, ino, rest in ev:
    if k == 'C': q[ino].append(t); inflight += 1
    elif k == 'E':
        c = q[ino].popleft() if q[ino] else None
        fs[ino].append((t, c)); srv += 1
        rows.append(f"{t-t0:8.3f} ino {ino} fsync enter, sent {t-c:6.3f} s ago" if c else f"{t-t0:8.3f} ino {ino} fsync enter (no COMMIT)")
    elif k == 'X':
        e, c = fs[ino].popleft() if fs[ino] else (None, None)
        srv -= 1
        rows.append(f"{t-t0:8.3f} ino {ino} fsync exit after {t-e:6.3f} s  (in nfsd {srv})" if e else "")
    elif k == 'D': inflight -= 1
    if k == 'C': rows.append(f"{t-t0:8.3f} ino {ino} COMMIT sent (client in flight {inflight}) {rest[-30:]}")
print("\n".join(rows))
