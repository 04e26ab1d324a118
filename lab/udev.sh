#!/bin/bash
# udev: what a guest needs to run udev as a Debian 12 user has it, without touching the host.
#
#   udev.sh      prints the directory holding
#                  bin/systemd-udevd, bin/udevadm   Debian's udev package (same version as the
#                                                   installed systemd), unpacked, never installed:
#                                                   installing it would start udevd in every lab
#                                                   guest (virtme-ng runs whatever it finds)
#                  rules.d/                         that package's own rules
#                  nfsrahead                        nfs-utils' nfsrahead built from the Debian
#                                                   source with patches/nfs-utils applied (the
#                                                   companion); the installed one is used as is
#
# The guest puts them in its own view only (lab/guest/env.py Udev): udevd runs from here, the
# rules go to its /run/udev/rules.d, the companion is bind-mounted over /usr/libexec/nfsrahead
# inside the guest. The host's /usr is never written.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=$LAB_CACHE/udev
mkdir -p "$out"

# udev, matching the installed systemd (udevadm links no systemd library, but a match is free).
want=$(dpkg-query -W -f='${Version}' systemd 2>/dev/null || true)
if [ "$(cat "$out/udev.version" 2>/dev/null)" != "${want:-candidate}" ] || [ ! -x "$out/root/bin/udevadm" ]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	say "udev: apt-get download udev${want:+=$want} (unpacked in $out, not installed)"
	(cd "$tmp" && apt-get download -qq "udev${want:+=$want}" >/dev/null 2>&1) ||
		(cd "$tmp" && apt-get download -qq udev >/dev/null 2>&1) ||
		die "apt-get download udev failed (no Debian apt source?)"
	rm -rf "${out:?}/root" "${out:?}/bin" "${out:?}/rules.d"
	dpkg-deb -x "$tmp"/udev_*.deb "$out/root" || die "dpkg-deb -x of the udev package failed"
	mkdir -p "$out/bin"
	# udevadm runs as the daemon when called by that name.
	ln -s ../root/bin/udevadm "$out/bin/systemd-udevd"
	ln -s ../root/bin/udevadm "$out/bin/udevadm"
	cp -r "$out/root/lib/udev/rules.d" "$out/rules.d"
	"$out/bin/udevadm" --version >/dev/null || die "the unpacked udevadm does not run on this host"
	echo "${want:-candidate}" >"$out/udev.version"
fi

# The companion nfsrahead: patches/nfs-utils applied to Debian's source, only what it needs
# built (support/nfs and tools/nfsrahead; the configure options leave out what would pull in
# Kerberos, libevent, device-mapper and friends, none of which nfsrahead uses).
head=$(SERIES=nfs-utils "$LAB_DIR/apply.sh")
if [ "$(cat "$out/nfsrahead.commit" 2>/dev/null)" != "$head" ] || [ ! -x "$out/nfsrahead" ]; then
	wt=$LAB_CACHE/nfs-utils/apply
	say "udev: building nfsrahead from nfs-utils with patches/nfs-utils ($(git -C "$wt" rev-parse --short HEAD))"
	log=$out/nfsrahead-build.log
	(
		cd "$wt"
		./configure --disable-gss --disable-nfsv4 --disable-nfsdcld --disable-nfsdcltrack \
			--disable-uuid --disable-caps --disable-ldap --without-tcp-wrappers --disable-mount \
			--with-systemd=no
		make -C support/nfs
		make -C tools/nfsrahead
	) >"$log" 2>&1 || { tail -n 30 "$log" >&2; die "building nfsrahead failed (log: $log)"; }
	cp "$wt/tools/nfsrahead/nfsrahead" "$out/nfsrahead.tmp"
	mv "$out/nfsrahead.tmp" "$out/nfsrahead"
	echo "$head" >"$out/nfsrahead.commit"
fi
echo "$out"
