#!/bin/bash
# The writeback case of tests/guest/families/run.py: client and server dirty limits in one
# kernel, time series and idle stretches, through the real runner on the kernel under test.
exec python3 "$(dirname "$0")/families/run.py" writeback
