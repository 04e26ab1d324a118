#!/bin/bash
# The warm-up case of tests/guest/families/run.py: local-streams with warmup_s through the real
# runner (fio's ramp_time, each fio thread's rchar and the counters started over at its end),
# and that its results cover only the time after the warm-up.
exec python3 "$(dirname "$0")/families/run.py" streams-warm
