#!/bin/bash
cd /work/main
n=${N:-3}; sc=${SC:-out/p39/ssd300.toml}; tag=${TAG:?}
for i in $(seq 1 $n); do
	~/.cache/nfsra-lab/venv/bin/python lab/bench.py --no-build --variant old --out out/p39/$tag-$i $sc > out/p39/$tag-$i.log 2>&1
done
