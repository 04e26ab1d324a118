#!/bin/bash
# The mount case of tests/guest/families/run.py: patch 7's NFS window against Debian's udev
# rule (nfsrahead as installed, and the companion from patches/nfs-utils), case by case.
exec python3 "$(dirname "$0")/families/run.py" mount
