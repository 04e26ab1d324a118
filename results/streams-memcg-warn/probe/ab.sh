#!/bin/bash
# A/B probe: the 300-stream SSD point, exp (variant old = 38 + candidate) against base (38), alternated.
cd /work/main
n=${N:-3}; sc=${SC:-out/p39/ssd300.toml}; tag=${TAG:-}
for i in $(seq 1 $n); do
	~/.cache/nfsra-lab/venv/bin/python lab/bench.py --no-build --variant old --out out/p39/exp$tag-$i $sc > out/p39/exp$tag-$i.log 2>&1
	~/.cache/nfsra-lab/venv/bin/python lab/bench.py --no-build --out out/p39/base$tag-$i $sc > out/p39/base$tag-$i.log 2>&1
done
