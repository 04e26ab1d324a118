#!/bin/bash
cd /work/main
for i in 1 2; do
	~/.cache/nfsra-lab/venv/bin/python lab/bench.py --no-build --variant old --out out/p39/req-hdd-$i out/p39/hdd300.toml > out/p39/req-hdd-$i.log 2>&1
	~/.cache/nfsra-lab/venv/bin/python lab/bench.py --no-build --variant old --out out/p39/req-ssd-$i out/p39/ssd300.toml > out/p39/req-ssd-$i.log 2>&1
done
~/.cache/nfsra-lab/venv/bin/python lab/bench.py --no-build --variant old --out out/p39/req-ssd-3 out/p39/ssd300.toml > out/p39/req-ssd-3.log 2>&1
