#!/usr/bin/env bash
# Measures OpenSSL's libcrypto with every per-packet operation the transfer study needs, with
# the CPU features optionally masked to a testbed's CPU, and writes `openssl speed -mr` output
# that `oransim calibrate --from-openssl-speed` imports:
#
#   scripts/openssl-speed.sh CPU SECONDS > calibration/<name>.speed.txt
#   oransim calibrate --from-openssl-speed calibration/<name>.speed.txt --cores 2 --measure-io \
#       --out calibration/<name>.toml
#
# CPU (the OPENSSL_ia32cap mask; the first word masks CPUID leaf 1 ECX:EDX, the second leaf 7
# ECX:EBX; `~` clears the bits given):
#   native              no mask
#   broadwell           no AVX-512 (F, DQ, IFMA, PF, ER, CD, BW, VL, VBMI, VBMI2, VNNI, BITALG,
#                       VPOPCNTDQ), no SHA extensions, no GFNI, VAES, VPCLMULQDQ: a Xeon E5-2650 v4
#                       or Core i5-5300U (AES-NI, PCLMULQDQ, AVX2, BMI2, ADX kept)
#   broadwell-no-aesni  broadwell without AES-NI (CPUID.1:ECX bit 25); PCLMULQDQ kept
#   raptorlake          no AVX-512 (as above); SHA, GFNI, VAES, VPCLMULQDQ kept: a Core i9-13900K
# SECONDS: per run (openssl speed -seconds); 3 or more on a shared machine.
#
# Operations, each at the sizes the profile's line is fitted to:
#   AEADs   openssl speed -mr -aead [-decrypt] -seconds S -bytes B -evp CIPHER, B in 64 1500 9000
#           (encryption for all five; decryption for the GCMs and ChaCha20-Poly1305)
#   ESP CBC openssl speed -mr [-decrypt] -seconds S -bytes C -evp aes-{128,256}-cbc, C in 64 1504
#           9008 (the padded payloads of 62, 1502 and 9006 B: payload + 2-B trailer, to 16 B),
#           and openssl speed -mr -seconds S -bytes C+24 -hmac sha256 (ESP header 8 + IV 16 + C)
#   GMAC    scripts/openssl-gmac.c (openssl speed 3.0 has no GMAC): AES-128-GCM with the whole
#           frame as additional data, at 64 1500 9000 B, seal and open
set -euo pipefail
cpu=${1:?usage: openssl-speed.sh native|broadwell|broadwell-no-aesni|raptorlake SECONDS}
secs=${2:?usage: openssl-speed.sh CPU SECONDS}
case "$cpu" in
native) unset OPENSSL_ia32cap ;;
broadwell) export OPENSSL_ia32cap='~0x0:~0x5f42fc230000' ;;
broadwell-no-aesni) export OPENSSL_ia32cap='~0x200000000000000:~0x5f42fc230000' ;;
raptorlake) export OPENSSL_ia32cap='~0x0:~0x5842dc230000' ;;
*) echo "openssl-speed.sh: CPU must be native, broadwell, broadwell-no-aesni or raptorlake, not '$cpu'" >&2; exit 2 ;;
esac
here=$(cd "$(dirname "$0")" && pwd)
gmac=$(mktemp -d)/openssl-gmac
trap 'rm -rf "$(dirname "$gmac")"' EXIT
cc -O2 -o "$gmac" "$here/openssl-gmac.c" -lcrypto

echo "# scripts/openssl-speed.sh $cpu $secs: OPENSSL_ia32cap=${OPENSSL_ia32cap:-(unset)}"
echo "# $(openssl version), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) logical CPUs"
echo "# started $(date -u +%Y-%m-%dT%H:%M:%SZ), /proc/loadavg: $(cat /proc/loadavg)"
sp() { openssl speed -mr -seconds "$secs" "$@" 2>/dev/null | grep -E '^\+(H|F)'; }
for c in aes-128-gcm aes-256-gcm chacha20-poly1305 aes-128-ccm aes-256-ccm; do
    for b in 64 1500 9000; do sp -aead -bytes "$b" -evp "$c"; done
done
echo "# oransim: decrypt"
for c in aes-128-gcm aes-256-gcm chacha20-poly1305; do
    for b in 64 1500 9000; do sp -aead -decrypt -bytes "$b" -evp "$c"; done
done
echo "# oransim: encrypt"
for c in aes-128-cbc aes-256-cbc; do
    for b in 64 1504 9008; do sp -bytes "$b" -evp "$c"; done
done
echo "# oransim: decrypt"
for c in aes-128-cbc aes-256-cbc; do
    for b in 64 1504 9008; do sp -decrypt -bytes "$b" -evp "$c"; done
done
echo "# oransim: encrypt"
for b in 88 1528 9032; do sp -bytes "$b" -hmac sha256; done
"$gmac" "$secs" 64 1500 9000
echo "# ended $(date -u +%Y-%m-%dT%H:%M:%SZ), /proc/loadavg: $(cat /proc/loadavg)"
