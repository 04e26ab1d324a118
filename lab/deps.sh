#!/bin/bash
# deps: install what the lab needs on Debian 12 (apt packages, as root) and the pinned Python
# packages into LAB_CACHE/venv. Idempotent and quick when everything is there.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# Build: kernel build deps + ccache. Guest: the guest runs the host's userspace, so every
# tool a guest test or workload uses is installed here (nfs-kernel-server, fio, iperf3, ...).
# The nfs-utils companion (lab/udev.sh) builds from source: dpkg-dev, pkg-config, lib*-dev.
APT=(
	build-essential flex bison libelf-dev libssl-dev bc cpio kmod dwarves ccache xz-utils rsync git
	qemu-system-x86 python3 python3-venv
	nfs-kernel-server nfs-common rpcbind fio iperf3 iproute2 iputils-ping util-linux
	e2fsprogs xfsprogs trace-cmd linux-perf shellcheck ethtool
	dpkg-dev pkg-config libmount-dev libtirpc-dev
)

mapfile -t missing < <(apt_missing "${APT[@]}")
src=$(dpkg-query -W -f='${Version}' "$DEBIAN_PACKAGE" 2>/dev/null || true)
if [ -z "$src" ] && ! git -C "$TREE" rev-parse -q --verify "refs/tags/$BASE_TAG" >/dev/null 2>&1; then
	missing+=("$DEBIAN_PACKAGE=$DEBIAN_VERSION")
fi
if [ ${#missing[@]} -gt 0 ]; then
	[ "$(id -u)" -eq 0 ] || die "missing packages: ${missing[*]}; run as root or: apt-get install ${missing[*]}"
	say "deps: apt-get install ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq || die "apt-get update failed"
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null ||
		die "apt-get install failed for: ${missing[*]}"
fi

req=$LAB_DIR/requirements.txt
stamp=$(sha256sum <"$req" | cut -c1-16)
if [ "$(cat "$VENV/.lab-stamp" 2>/dev/null)" != "$stamp" ]; then
	say "deps: creating Python venv $VENV"
	# Debian's python3 (the lab does not depend on a pyenv on PATH).
	py=/usr/bin/python3
	[ -x "$py" ] || py=$(command -v python3) || die "python3 is missing"
	rm -rf "$VENV"
	"$py" -m venv "$VENV" || die "python3 -m venv failed (apt-get install python3-venv)"
	"$VENV/bin/pip" install -q --disable-pip-version-check -r "$req" || die "pip install -r $req failed"
	echo "$stamp" >"$VENV/.lab-stamp"
fi
say "deps: ok"
