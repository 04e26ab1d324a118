#!/bin/bash
# peer-tools: install the peer test tools `make stress` runs over NFS (issue 16) and build the
# kernel's own mincore and cachestat kselftests; prints the directory that holds them:
#   LAB_CACHE/peer/{bin/fsx, nfstest/, kselftest/{mincore,cachestat}/}
# stress-ng and tcpdump come from apt; fsx (Alan Somers' Rust port of Apple/FreeBSD fsx) from
# crates.io, pinned; NFStest from Debian's pool (trixie's nfstest, arch all: bookworm has none),
# pinned by SHA-256. Idempotent: quick when everything is there.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

FSX_VERSION=0.3.2
NFSTEST_DEB=pool/main/n/nfstest/nfstest_3.2-3_all.deb
NFSTEST_SHA256=8637801f0ac844818308276dbb4c2e4089ed6723d985ff079885f7fcd30145ae
peer=$LAB_CACHE/peer
mkdir -p "$peer"

mapfile -t missing < <(apt_missing stress-ng tcpdump)
if [ ${#missing[@]} -gt 0 ]; then
	say "peer-tools: apt-get install ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null ||
		die "apt-get install failed for: ${missing[*]}"
fi

if [ "$("$peer/bin/fsx" --version 2>/dev/null)" != "fsx $FSX_VERSION" ]; then
	cargo=$(command -v cargo || echo "$HOME/.cargo/bin/cargo")
	if [ ! -x "$cargo" ]; then
		say "peer-tools: apt-get install cargo (for fsx)"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends cargo >/dev/null ||
			die "no cargo, and apt-get install cargo failed: fsx cannot be built"
		cargo=cargo
	fi
	say "peer-tools: cargo install fsx $FSX_VERSION"
	"$cargo" install -q --locked --root "$peer" --version "$FSX_VERSION" fsx >"$peer/fsx-install.log" 2>&1 ||
		{ tail -20 "$peer/fsx-install.log" >&2; die "cargo install fsx $FSX_VERSION failed"; }
fi

if [ ! -x "$peer/nfstest/usr/bin/nfstest_posix" ]; then
	say "peer-tools: fetching $NFSTEST_DEB"
	curl -fsS -m 120 -o "$peer/nfstest.deb" "http://deb.debian.org/debian/$NFSTEST_DEB" ||
		die "cannot download http://deb.debian.org/debian/$NFSTEST_DEB"
	echo "$NFSTEST_SHA256  $peer/nfstest.deb" | sha256sum -c --quiet - ||
		die "$NFSTEST_DEB: SHA-256 differs from the pinned $NFSTEST_SHA256"
	rm -rf "$peer/nfstest"
	dpkg-deb -x "$peer/nfstest.deb" "$peer/nfstest"
fi

# mincore and cachestat, from the patched tree's source (the series does not touch them), with
# the tree's own UAPI headers (Debian 12's linux-libc-dev predates cachestat).
src=$(src_dir patched)
[ -d "$src/tools/testing/selftests/cachestat" ] || die "no patched source tree at $src; run: lab/build.sh patched"
hdr=$peer/kselftest/usr
if [ ! -f "$hdr/include/linux/mman.h" ] || ! grep -q cachestat "$hdr/include/linux/mman.h"; then
	make -s -C "$src" ARCH=x86_64 INSTALL_HDR_PATH="$hdr" O="$peer/kselftest/hdr-build" headers_install >/dev/null ||
		die "headers_install failed"
fi
for t in mincore cachestat; do
	mkdir -p "$peer/kselftest/$t"
	make -s -C "$src/tools/testing/selftests/$t" OUTPUT="$peer/kselftest/$t" \
		KHDR_INCLUDES="-isystem $hdr/include" >"$peer/kselftest/$t.log" 2>&1 ||
		{ cat "$peer/kselftest/$t.log" >&2; die "kselftest $t does not build"; }
done
echo "$peer"
