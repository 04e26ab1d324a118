#!/bin/bash
# The nfs-mmap case of tests/guest/families/run.py: every workload of the family once through
# the real runner on the kernel under test, and what its rows must say.
exec python3 "$(dirname "$0")/families/run.py" mmap
