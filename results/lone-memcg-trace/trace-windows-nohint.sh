#!/bin/bash
# trace-windows.sh with fio told no access pattern (--fadvise_hint=0, as the nfs-read family runs
# it): the windows are read_ahead_kb, not twice it.
FIO_EXTRA=--fadvise_hint=0 RAS="default 2048" exec "$(dirname "$0")/trace-windows.sh" "$@"
