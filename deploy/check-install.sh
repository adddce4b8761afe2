#!/usr/bin/env bash
# The proof of deploy/install.sh: a clean Debian Bookworm root made by debootstrap (this
# machine's architecture, or arm64 under qemu user emulation: --arch), the one command run
# in it (chroot), then the board itself:
#
#   1. sudo deploy/install.sh --extras web  in the fresh root: exit 0, the summary;
#   2. run again: "Nothing changed";
#   3. the board on the simulator, as the board's user:
#      crownhead run --headless --hal sim --script ... (a move is played and saved);
#   4. the native search core was built (the headers and the compiler were installed);
#   5. the voice: crownhead say --out a WAV file (espeak-ng), a RIFF file with samples;
#   6. the page: crownhead run --web, GET / answers 200 with the board's page;
#   7. arm64 only: install.sh --model pi4, then pi5: the Pi's extras (rpi_ws281x built from
#      source, lgpio, gpiod; the Pi 5's NeoPixel driver) install on aarch64 and load;
#   8. python3-dev removed, a second venv: the warning names the missing Python headers;
#   9. sudo deploy/install.sh --uninstall: the unit, the link and the venv are gone.
#
# No systemd runs in a chroot: the script detects it and skips the service's start (the
# unit is installed and enabled all the same). Off a Pi the Pi's steps are skipped too.
#
#   sudo deploy/check-install.sh            # 8-9.5 min here; 3 more the first time (debootstrap)
#   sudo deploy/check-install.sh --fresh    # debootstrap again instead of the cached base
#   sudo deploy/check-install.sh --keep     # leave the root in build/check-install/root
#   sudo nice -n 19 deploy/check-install.sh --arch arm64   # a 64-bit Pi OS's Debian, emulated
#
# --arch arm64 (or armhf) on another machine builds the root with `debootstrap --foreign`
# and runs its second stage and everything after through qemu user emulation: Debian's
# qemu-user-static and binfmt-support (installed with apt-get when missing) and the
# kernel's binfmt_misc (mounted when it is not). Its work is in build/check-install-arm64;
# it takes several times as long (docs/install.md has the figure).
#
# Needs root, debootstrap (installed with apt-get when missing) and the network (Debian's
# archive and PyPI). Exit 0: every check passed; 1: one failed; 77: it cannot run here
# (not root, no debootstrap, no emulation of --arch), with the reason.
set -euo pipefail

cd "$(dirname "$0")/.."
SRC=$(pwd)
WORK=$SRC/build/check-install
BASE=$WORK/base
ROOT=$WORK/root
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
FRESH=0
KEEP=0
ARCH=""
while [ $# -gt 0 ]; do
    case "$1" in
        --fresh) FRESH=1; shift ;;
        --keep) KEEP=1; shift ;;
        --arch) [ $# -ge 2 ] || { echo "check-install.sh: --arch needs an architecture, e.g. --arch arm64" >&2; exit 2; }
            ARCH=$2; shift 2 ;;
        --arch=*) ARCH=${1#*=}; shift ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "check-install.sh: unknown option $1" >&2; exit 2 ;;
    esac
done

# Debian's name of this machine's architecture, and qemu's of the one asked for (a Pi
# runs arm64, or armhf on a 32-bit Pi OS).
HOST_ARCH=$(dpkg --print-architecture 2>/dev/null || uname -m | sed 's/x86_64/amd64/; s/aarch64/arm64/')
ARCH=${ARCH:-$HOST_ARCH}
case "$ARCH" in
    amd64) QEMU=x86_64 ;;
    arm64) QEMU=aarch64 ;;
    armhf) QEMU=arm ;;
    *) echo "check-install.sh: --arch $ARCH: not one of amd64, arm64, armhf" >&2; exit 2 ;;
esac
FOREIGN=0
if [ "$ARCH" != "$HOST_ARCH" ]; then
    FOREIGN=1
    WORK=$SRC/build/check-install-$ARCH
    BASE=$WORK/base
    ROOT=$WORK/root
fi

skip() { echo "check-install: SKIPPED: $*" >&2; exit 77; }
fail() { echo "check-install: FAILED: $*" >&2; exit 1; }
ok() { echo "check-install: ok: $*"; }
START=$(date +%s)
elapsed() { echo "$(( $(date +%s) - START )) s"; }

# qemu user emulation of $ARCH for everything run in the root: qemu-$QEMU-static, and the
# kernel's binfmt_misc handing it every $ARCH program, the children that apt, pip and gcc
# start included (running the chroot's commands through qemu by hand cannot: qemu does
# not follow a program's exec of another).
emulation() {
    local bm=/proc/sys/fs/binfmt_misc
    if ! command -v "qemu-$QEMU-static" >/dev/null 2>&1 || ! command -v update-binfmts >/dev/null 2>&1; then
        command -v apt-get >/dev/null 2>&1 || skip "no qemu-$QEMU-static and no apt-get to install qemu-user-static"
        (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq qemu-user-static binfmt-support >/dev/null) \
            || skip "qemu-user-static and binfmt-support could not be installed"
    fi
    if [ ! -e "$bm/status" ]; then
        mount binfmt_misc -t binfmt_misc "$bm" 2>/dev/null \
            || skip "the kernel's binfmt_misc is not mounted and cannot be (mount binfmt_misc -t binfmt_misc $bm): no emulation of $ARCH here"
    fi
    [ -e "$bm/qemu-$QEMU" ] || update-binfmts --enable "qemu-$QEMU" >/dev/null 2>&1 || true
    grep -qx enabled "$bm/qemu-$QEMU" 2>/dev/null \
        || skip "binfmt_misc has no enabled qemu-$QEMU entry (update-binfmts --enable qemu-$QEMU failed): no emulation of $ARCH here"
    ok "emulation of $ARCH: qemu-$QEMU-static through binfmt_misc ($(head -n 2 "$bm/qemu-$QEMU" | tail -n 1))"
}

[ "$(id -u)" = 0 ] || skip "needs root (debootstrap, chroot, mounts): sudo $0"
if ! command -v debootstrap >/dev/null 2>&1; then
    command -v apt-get >/dev/null 2>&1 || skip "no debootstrap and no apt-get to install it"
    (apt-get update -qq && apt-get install -y -qq debootstrap >/dev/null) || skip "debootstrap could not be installed"
fi
if [ "$FOREIGN" = 1 ]; then
    emulation
fi

MOUNTS=()
cleanup() {
    local m
    for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do
        m=${MOUNTS[$i]}
        umount -l "$m" 2>/dev/null || true
    done
    if [ "$KEEP" = 0 ]; then rm -rf "$ROOT"; fi
}
trap cleanup EXIT

mkdir -p "$WORK"
if [ "$FRESH" = 1 ] || [ ! -x "$BASE/bin/bash" ]; then
    rm -rf "$BASE" "$BASE.partial"
    echo "check-install: debootstrap bookworm $ARCH ($MIRROR) into $BASE.partial"
    if [ "$FOREIGN" = 0 ]; then
        debootstrap --variant=minbase --include=ca-certificates bookworm "$BASE.partial" "$MIRROR" >"$WORK/debootstrap.log" 2>&1 \
            || { tail -n 20 "$WORK/debootstrap.log" >&2; fail "debootstrap (log: $WORK/debootstrap.log)"; }
    else
        # The first stage unpacks here; the second runs the root's own dpkg, emulated. The
        # static qemu in the root serves a binfmt entry that looks it up there (no F flag).
        debootstrap --arch="$ARCH" --foreign --variant=minbase --include=ca-certificates bookworm "$BASE.partial" "$MIRROR" \
            >"$WORK/debootstrap.log" 2>&1 \
            || { tail -n 20 "$WORK/debootstrap.log" >&2; fail "debootstrap --foreign (log: $WORK/debootstrap.log)"; }
        cp "$(command -v "qemu-$QEMU-static")" "$BASE.partial/usr/bin/"
        chroot "$BASE.partial" /debootstrap/debootstrap --second-stage >>"$WORK/debootstrap.log" 2>&1 \
            || { tail -n 20 "$WORK/debootstrap.log" >&2; fail "debootstrap --second-stage, emulated (log: $WORK/debootstrap.log)"; }
    fi
    mv "$BASE.partial" "$BASE"
    ok "debootstrap: a clean Bookworm $ARCH ($(elapsed))"
fi

# A fresh copy of the clean base for every check.
rm -rf "$ROOT"
cp -a "$BASE" "$ROOT"
# /proc and /sys as usual; /dev of its own (a tmpfs with the usual nodes and a private
# devpts), never the host's bound in: nothing run in the chroot can then replace or
# remove a device of this machine.
mkdir -p "$ROOT/proc" "$ROOT/sys" "$ROOT/dev"
mount -t proc proc "$ROOT/proc" && MOUNTS+=("$ROOT/proc")
mount -t sysfs sysfs "$ROOT/sys" && MOUNTS+=("$ROOT/sys")
mount -t tmpfs -o mode=0755,size=16m tmpfs "$ROOT/dev" && MOUNTS+=("$ROOT/dev")
for node in "null 1 3" "zero 1 5" "full 1 7" "random 1 8" "urandom 1 9" "tty 5 0"; do
    set -- $node
    mknod -m 0666 "$ROOT/dev/$1" c "$2" "$3"
done
mkdir -p "$ROOT/dev/pts" "$ROOT/dev/shm"
chmod 1777 "$ROOT/dev/shm"
mount -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts "$ROOT/dev/pts" && MOUNTS+=("$ROOT/dev/pts")
ln -s pts/ptmx "$ROOT/dev/ptmx"
ln -s /proc/self/fd "$ROOT/dev/fd"
cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
# The checkout as a maker's clone: /opt/crownhead, the files git knows (and new ones).
mkdir -p "$ROOT/opt/crownhead"
git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf - | tar -C "$ROOT/opt/crownhead" -xf -

# The chroot's environment: a clean one, with this machine's proxy and pip certificate.
CHROOT_ENV=(PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8)
for v in http_proxy https_proxy no_proxy HTTP_PROXY HTTPS_PROXY NO_PROXY PIP_DEFAULT_TIMEOUT PIP_INDEX_URL; do
    if [ -n "${!v:-}" ]; then CHROOT_ENV+=("$v=${!v}"); fi
done
if [ -n "${PIP_CERT:-}" ] && [ -f "$PIP_CERT" ]; then
    cp "$PIP_CERT" "$ROOT/etc/ssl/certs/check-install-ca.crt"
    CHROOT_ENV+=(PIP_CERT=/etc/ssl/certs/check-install-ca.crt)
fi
in_root() { chroot "$ROOT" /usr/bin/env -i "${CHROOT_ENV[@]}" "$@"; }
as_board() { in_root runuser -u crownhead -- "$@"; }

echo "check-install: 1. sudo /opt/crownhead/deploy/install.sh --extras web (in the chroot)"
in_root /opt/crownhead/deploy/install.sh --extras web 2>&1 | tee "$WORK/install-1.log" | sed 's/^/    /'
[ "${PIPESTATUS[0]}" = 0 ] || fail "install.sh exited ${PIPESTATUS[0]}"
grep -q "systemd is not running here" "$WORK/install-1.log" || fail "the service's start was not skipped in the chroot"
grep -q "No faults found" "$WORK/install-1.log" || fail "the closing selftest did not pass"
# The maker reads this output: no Python warning in it (setuptools' note on every
# editable install came through pip's --quiet).
if grep -Eq '[a-z]Warning: ' "$WORK/install-1.log"; then fail "the install's output carries a warning: $(grep -E '[a-z]Warning: ' "$WORK/install-1.log" | head -n 1)"; fi
[ -L "$ROOT/etc/systemd/system/multi-user.target.wants/crownhead.service" ] || fail "the service is not enabled"
[ -c "$ROOT/dev/null" ] || fail "something in the chroot replaced its /dev/null"
ok "install ($(elapsed))"

echo "check-install: 2. the same command again"
in_root /opt/crownhead/deploy/install.sh --extras web >"$WORK/install-2.log" 2>&1 || fail "the second run exited non-zero"
grep -q "Nothing changed" "$WORK/install-2.log" || { cat "$WORK/install-2.log"; fail "the second run changed something"; }
ok "a second run changes nothing"

echo "check-install: 3. the board on the simulator, as crownhead"
printf 'lift 11\nwait 300\nplace 15\nwait 800\nlift 22\nwait 200\nplace 18\nwait 800\n' >"$ROOT/tmp/opening.txt"
out=$(as_board sh -c 'cd /var/lib/crownhead && crownhead run --headless --hal sim --script /tmp/opening.txt --config /etc/crownhead/config.toml' 2>&1) \
    || { echo "$out"; fail "crownhead run"; }
echo "$out" | grep -q "move 2: white 22-18" || { echo "$out"; fail "the moves were not played"; }
echo "$out" | grep -q "the game is saved" || { echo "$out"; fail "the game was not saved"; }
[ -f "$ROOT/var/lib/crownhead/current.json" ] || fail "no /var/lib/crownhead/current.json"
ok "crownhead run --headless --hal sim --script: 11-15 22-18, saved"

echo "check-install: 4. the native search core"
native=$(as_board /opt/crownhead/.venv/bin/python -c 'from crownhead.rules.engine import native; print(native.describe())')
case "$native" in
    "native search core"*) ok "$native" ;;
    *) fail "$native" ;;
esac

echo "check-install: 5. the voice to a WAV file"
as_board sh -c 'crownhead say --lang en --out /tmp/voice.wav "Black to move"' || fail "crownhead say"
head -c 4 "$ROOT/tmp/voice.wav" | grep -q RIFF || fail "the voice is not a WAV file"
size=$(stat -c %s "$ROOT/tmp/voice.wav")
[ "$size" -gt 10000 ] || fail "the WAV file holds $size bytes: no speech"
ok "crownhead say --out: a WAV file of $size bytes (espeak-ng)"

echo "check-install: 6. the page"
page=$(as_board sh -c '
    cd /var/lib/crownhead
    crownhead run --headless --hal sim --web 127.0.0.1:18081 --config /etc/crownhead/config.toml >/tmp/web.log 2>&1 &
    pid=$!
    /opt/crownhead/.venv/bin/python - <<EOF
import time, urllib.request
for _ in range(120):
    try:
        with urllib.request.urlopen("http://127.0.0.1:18081/", timeout=2) as r:
            print(r.status, len(r.read()))
            break
    except OSError:
        time.sleep(0.5)
else:
    print("no answer")
EOF
    kill $pid; wait $pid 2>/dev/null || true') || true
case "$page" in
    "200 "*) ok "GET http://127.0.0.1:18081/ -> $page bytes" ;;
    *) cat "$ROOT/tmp/web.log" >&2 || true; fail "the page: $page" ;;
esac

echo "check-install: 7. the Pi's extras"
# What install.sh installs on a Pi 4 and a Pi 5: extras pi4 and pi5, whose packages are
# marked for ARM machines only (on amd64 they install nothing), the Pi 5's for aarch64.
# Issue 52: on aarch64 rpi_ws281x has no wheel and builds from source, which needs Python.h.
if [ "$ARCH" != arm64 ]; then
    echo "    skipped on $ARCH: --arch arm64 checks the extras pi4 and pi5 (64-bit Pi OS)"
else
    for model in pi4 pi5; do
        in_root /opt/crownhead/deploy/install.sh --model "$model" --no-selftest >"$WORK/install-$model.log" 2>&1 \
            || { tail -n 30 "$WORK/install-$model.log"; fail "install.sh --model $model exited non-zero"; }
        grep -q "pip install -e '/opt/crownhead\[$model,web\]'" "$WORK/install-$model.log" \
            || { cat "$WORK/install-$model.log"; fail "install.sh --model $model did not install the extra $model"; }
    done
    # The pi5 run leaves its own extra; the pi4 one's packages stay in the venv (pip
    # removes nothing), so both sets load from it. lgpio from a writable directory: it
    # makes a FIFO in the current one.
    loaded=$(as_board sh -c 'cd /tmp && /opt/crownhead/.venv/bin/python -c "
import importlib.metadata as m, importlib.util as u
import rpi_ws281x, gpiod, lgpio
assert u.find_spec(\"adafruit_raspberry_pi5_neopixel_write\"), \"no adafruit_raspberry_pi5_neopixel_write\"
print(\", \".join(f\"{d} {m.version(d)}\" for d in (\"rpi_ws281x\", \"gpiod\", \"lgpio\", \"Adafruit-Blinka-Raspberry-Pi5-Neopixel\")))
"' 2>&1) || { echo "$loaded"; fail "the Pi's extras do not load"; }
    ok "extras pi4 and pi5 on aarch64: $loaded"
fi

echo "check-install: 8. without the Python headers: the warning names them"
# Issue 52: with gcc there but Python.h missing, the board said "reinstall with a C
# compiler". A second venv installed with python3-dev removed must name the headers.
in_root apt-get remove -y -qq python3-dev python3.11-dev libpython3.11-dev >"$WORK/remove-dev.log" 2>&1 \
    || { cat "$WORK/remove-dev.log"; fail "apt-get remove python3-dev"; }
in_root sh -c 'python3 -m venv /tmp/nodev && /tmp/nodev/bin/pip install --quiet /opt/crownhead' >"$WORK/nodev.log" 2>&1 \
    || { tail -n 20 "$WORK/nodev.log"; fail "pip install without the headers"; }
cause=$(in_root sh -c 'cd /tmp && /tmp/nodev/bin/python -c "from crownhead.rules.engine import native; from crownhead.extras import native_cause; print(native.describe(), native_cause())"')
case "$cause" in
    *"Python headers (Python.h) are missing"*python3-dev*) ok "$cause" ;;
    *) fail "without the headers the warning says: $cause" ;;
esac

echo "check-install: 9. --uninstall"
in_root /opt/crownhead/deploy/install.sh --uninstall >"$WORK/uninstall.log" 2>&1 || { cat "$WORK/uninstall.log"; fail "--uninstall"; }
for gone in /etc/systemd/system/crownhead.service /usr/local/bin/crownhead /opt/crownhead/.venv; do
    if [ -e "$ROOT$gone" ] || [ -L "$ROOT$gone" ]; then fail "--uninstall left $gone"; fi
done
[ -f "$ROOT/var/lib/crownhead/current.json" ] || fail "--uninstall lost the game"
ok "--uninstall: unit, link and venv gone, the games kept"

[ -c "$ROOT/dev/null" ] || fail "something in the chroot replaced its /dev/null"
echo "check-install: every check passed in $(elapsed)"
