#!/bin/bash
# The 32-patch series' slow_submit_test binary on the kernel under test (to show that its
# turns case fails without patch 32). Not part of the suite.
set -u
. /work/main/lab/guest/lib.sh
. /work/main/lab/guest/tap.sh
. "$LAB_OUT/kernel.env"
diag "slow_submit_test (32 patches' binary) on this kernel"
run_ks slow_submit_test /work/main/out/slow_submit_test.p32
tap_done
