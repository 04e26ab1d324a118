import sys, re
B=100<<10
for d in sys.argv[1:]:
    rows=[list(map(float,l.split())) for l in open(d+'/wt-samples.txt') if len(l.split())==6]
    ev=[]
    for l in open(d+'/bdp.trace'):
        m=re.search(r"\s(\d+\.\d+): balance_dirty_pages: .* pause=(-?\d+)", l)
        if m and int(m.group(2))>0: ev.append(float(m.group(1)))
    n=left=0; nsum=lsum=0
    for i in range(1,len(rows)):
        dd,wb,w,wbytes,c,t=rows[i]; t0=rows[i-1][5]
        if dd+wb>B*3/4:
            nsum+=1; lsum+= dd>=B/4
        # writer slept in bdp since the previous sample
        if any(t0-0.0 < e <= t for e in ev):
            n+=1; left+= dd>=B/4
    bw=[l for l in open(d+'/wt-fio.txt') if 'bw=' in l][0].split('(')[1].split(')')[0]
    print(d, bw, "sum-throttled",nsum,lsum, "slept",n,left, "%.0f%%"%(100*left/max(n,1)), "sleeps",len(ev))
