#!/bin/bash
# The warm-up case of tests/guest/families/run.py: local-streams with warmup_s through the real
# runner (fio's status report on SIGUSR1, the counters started over), and that its results
# cover only the time after the warm-up.
exec python3 "$(dirname "$0")/families/run.py" streams-warm
