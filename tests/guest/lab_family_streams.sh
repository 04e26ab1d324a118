#!/bin/bash
# The streams case of tests/guest/families/run.py: a small scenario through the real runner on
# the kernel under test, and what its results must say.
exec python3 "$(dirname "$0")/families/run.py" streams
