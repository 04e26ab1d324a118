#!/bin/bash
cd /work/main
for i in 1 2 3; do
  ~/.cache/nfsra-lab/venv/bin/python lab/bench.py --no-build --kernels patched --out out/ab10/new-$i out/ab10/nfs-writeback-10ms.toml
  ~/.cache/nfsra-lab/venv/bin/python lab/bench.py --no-build --kernels patched --variant old --out out/ab10/old-$i out/ab10/nfs-writeback-10ms.toml
done
echo AB-DONE
