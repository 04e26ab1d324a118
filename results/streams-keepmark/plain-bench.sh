#!/bin/bash
exec /work/main/lab/guest/bench.py "$LAB_OUT"
